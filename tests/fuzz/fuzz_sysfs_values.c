// SPDX-License-Identifier: MIT
/* Every parser of a sysfs value, fed the same bytes: none may crash or misread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/counters.h"
#include "model/device.h"
#include "model/netdev.h"
#include "base/parse.h"
#include "sysroot/sysroot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), name[64], lower[64];
	uint8_t gid[16];
	uint64_t v;
	struct rd_rate rate;
	int vid;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';	/* the readers hand the parsers a C string */
	(void)rd_parse_u64(s, &v);
	(void)rd_parse_hex(s, &v);
	(void)rd_parse_gid(s, gid);
	(void)rd_parse_enum(s, &v, name, sizeof(name));
	(void)rd_parse_rate(s, &rate);
	(void)rd_parse_guid(s, &v);
	(void)rd_parse_vlan_config_line(s, name, sizeof(name), &vid, lower, sizeof(lower));
	(void)rd_parse_counter((const char *)data, size, &v);
	free(s);
	return 0;
}
