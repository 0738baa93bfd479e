// SPDX-License-Identifier: MIT
/*
 * Every parser of a sysfs value, fed the same bytes: none may crash or misread.
 * The GID parser's direct path must agree with inet_pton, which it skips; the
 * stack's parsers (dpkg's status, ofed_info's text) get the same bytes.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/counters.h"
#include "model/device.h"
#include "model/netdev.h"
#include "model/stack.h"
#include "base/parse.h"
#include "sysroot/sysroot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), name[64], lower[64];
	uint64_t v;
	struct rd_rate rate;
	int vid;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';	/* the readers hand the parsers a C string */
	(void)rd_parse_u64(s, &v);
	(void)rd_parse_hex(s, &v);
	{
		/* rd_parse_gid trims white space, then reads; inet_pton is the oracle */
		const char *b = s, *e = s + strlen(s);
		uint8_t gid[16];
		char t[64];
		int ours;

		while (*b && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		ours = rd_parse_gid(s, gid);
		if (e > b && (size_t)(e - b) < sizeof(t)) {
			uint8_t want[16];

			memcpy(t, b, (size_t)(e - b));
			t[e - b] = '\0';
			if ((inet_pton(AF_INET6, t, want) == 1) != (ours == 0) ||
			    (ours == 0 && memcmp(gid, want, 16) != 0))
				__builtin_trap();
		}
	}
	(void)rd_stack_dpkg_version(s, name, sizeof(name));
	(void)rd_stack_ofed_release(s, name, sizeof(name));
	(void)rd_parse_enum(s, &v, name, sizeof(name));
	(void)rd_parse_rate(s, &rate);
	(void)rd_parse_guid(s, &v);
	(void)rd_parse_vlan_config_line(s, name, sizeof(name), &vid, lower, sizeof(lower));
	(void)rd_parse_counter((const char *)data, size, &v);
	free(s);
	return 0;
}
