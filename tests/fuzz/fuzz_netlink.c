// SPDX-License-Identifier: MIT
/* Netlink and uevent parsing: RDMA port dumps, STAT_GET replies, kobject uevents. */
#include <stdint.h>

#include "watch/events.h"
#include "model/nldev.h"
#include "stats/nlstat.h"

static int count(void *ctx, const char *name, uint64_t value)
{
	(void)name;
	(void)value;
	(*(unsigned int *)ctx)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_nl_port p;
	struct rd_uevent ev;
	unsigned int n = 0;

	(void)rd_nldev_parse_port(data, size, &p);
	(void)rd_nlstat_parse(data, size, count, &n);
	(void)rd_uevent_parse(data, size, &ev);
	return 0;
}
