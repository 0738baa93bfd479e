// SPDX-License-Identifier: MIT
/* rdma-selftest's --verbs exchange message, as a hostile client would send it. */
#include <stdint.h>
#include <string.h>

#include "selftest/oob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_oob_msg m;
	char why[128];

	if (rd_oob_decode(data, size, &m, why, sizeof(why)) == 0) {
		struct rd_oob_msg m2;
		uint8_t again[RD_OOB_LEN];

		/* What decodes must survive a round trip unchanged (a version 1 message
		 * encodes to its own, shorter length). */
		size_t n = rd_oob_encode(&m, again);

		if (rd_oob_decode(again, n, &m2, why, sizeof(why)) != 0 ||
		    memcmp(&m, &m2, sizeof(m)) != 0)
			__builtin_trap();
	}
	return 0;
}
