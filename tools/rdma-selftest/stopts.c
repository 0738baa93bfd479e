// SPDX-License-Identifier: MIT
/* rdma-selftest's own options: parsing each value into the self-test's choices. */
#define _GNU_SOURCE
#include "stopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint64_t x;

	if (rd_parse_u64(s, &x) || x < lo || x > hi)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* BYTES[k|M], at most the server's largest message. */
static int parse_size(const char *s, uint32_t *v)
{
	uint64_t x;
	int ret = rd_parse_size(s, RD_ST_MAX_SIZE, &x);

	*v = (uint32_t)x;
	return ret;
}

static int parse_sizes(const char *s, struct rd_st_config *c)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int ret = copy ? 0 : -ENOMEM;

	c->nsizes = 0;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = c->nsizes == RD_ST_MAX_SIZES ? -EINVAL : parse_size(tok, &c->sizes[c->nsizes++]);
	free(copy);
	return ret ? ret : c->nsizes ? 0 : -EINVAL;
}

/* A number above 0 (NaN and junk refused). */
static int parse_positive(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return *end || !(*v > 0) ? -EINVAL : 0;
}

/* --devices all, or DEV[:PORT] items separated by commas (which exist is seen later). */
static int devices_check(const char *arg, char why[96])
{
	const char *s = arg;

	if (strcmp(arg, "all") == 0)
		return 0;
	do {
		size_t len = strcspn(s, ",");
		char name[64];
		unsigned int port;

		if (rd_stmesh_parse_dev(s, len, name, &port)) {
			snprintf(why, 96, "'%.*s' is not DEV or DEV:PORT (or 'all')",
				 (int)(len > 40 ? 40 : len), s);
			return -EINVAL;
		}
		s += len;
	} while (*s++ == ',');
	return 0;
}

int rd_st_opt_apply(int opt, const char *arg, struct rd_st_config *c, struct rd_st_choices *ch,
		    char why[96])
{
	struct rd_stmesh_opts *mo = &ch->mesh_opts;

	uint32_t v = 0;
	double d = 0;
	int ret = 0;

	switch (opt) {
	case OPT_SERVER: ch->server = true; break;
	case OPT_ONCE: c->once = true; break;
	case OPT_BIND: c->bind = arg; break;
	case OPT_VERBS: c->verbs = true; break;
	case 'a': ch->all_sizes = true; break;
	case OPT_QUICK: c->quick = true; break;
	case OPT_LAT_ONLY: c->lat_only = true; break;
	case OPT_BW_ONLY: c->bw_only = true; break;
	case 'P': ret = parse_u32(arg, 1, 65535, &v); c->service_port = (uint16_t)v; break;
	case 'x': ret = parse_u32(arg, 0, 0xffffff, &v); c->gid_index = (int)v; break;
	case 'n':
		ret = parse_u32(arg, 1, RD_ST_MAX_ITERS, &c->iters);
		ch->iters_given = true;
		break;
	case OPT_PINGS: ret = parse_u32(arg, 1, RD_ST_MAX_ITERS, &c->pings); break;
	case OPT_WINDOW: ret = parse_u32(arg, 1, RD_ST_MAX_WINDOW, &c->window); break;
	case 'D': ret = parse_u32(arg, 1, 86400, &c->duration_s); break;
	case 's': ret = parse_size(arg, &c->sizes[0]); c->nsizes = 1; break;
	case OPT_SIZES: ret = parse_sizes(arg, c); break;
	case OPT_TIMEOUT:
		ret = parse_positive(arg, &d) || d < 0.001 || d > 3600 ? -EINVAL : 0;
		c->timeout_ms = (int)(d * 1000);
		break;
	case OPT_EXPECT_GBPS: ret = parse_positive(arg, &c->expect_gbps); break;
	case OPT_EXPECT_LAT: ret = parse_positive(arg, &c->expect_lat_us); break;
	case OPT_QP_TIMEOUT: ret = parse_u32(arg, 0, 31, &v); c->rc.timeout = (uint8_t)v; break;
	case OPT_RETRY: ret = parse_u32(arg, 0, 7, &v); c->rc.retry_cnt = (uint8_t)v; break;
	case OPT_RNR_RETRY: ret = parse_u32(arg, 0, 7, &v); c->rc.rnr_retry = (uint8_t)v; break;
	case OPT_MIN_RNR: ret = parse_u32(arg, 0, 31, &v); c->rc.min_rnr_timer = (uint8_t)v; break;
	case OPT_OP: ret = rd_st_ops_parse(arg, &c->ops, why, 96); break;
	case OPT_DENY: ret = rd_st_deny_parse(arg, &c->deny, why, 96); break;	/* testing */
	case OPT_MTU: ret = parse_u32(arg, 256, 4096, &v) || rd_mtu_from_bytes(v, &c->rc.mtu); break;
	case OPT_NO_COUNTERS: c->no_counters = true; break;
	case OPT_TC: ret = parse_u32(arg, 0, 255, &v); c->rc.tclass = (int)v; break;
	case OPT_SL: ret = parse_u32(arg, 0, 15, &v); c->rc.sl = (int)v; break;
	case OPT_QP:
		if (strcmp(arg, "rc") != 0 && strcmp(arg, "ud") != 0) {
			snprintf(why, 96, "'%.32s' is not one of rc, ud", arg);
			ret = -EINVAL;
		}
		c->ud = strcmp(arg, "ud") == 0;
		break;
	case OPT_MCAST: ret = *arg ? 0 : -EINVAL; c->mcast = arg; break;
	case OPT_MESH: ch->mesh = true; break;
	case OPT_HOSTS: mo->hosts = arg; break;
	case OPT_HOSTFILE: mo->hostfile = arg; break;
	case OPT_SELF: ret = *arg ? 0 : -EINVAL; mo->self = arg; break;
	case OPT_PAIRS:
		ret = strcmp(arg, "ring") != 0 && strcmp(arg, "all") != 0 ? -EINVAL : 0;
		mo->ring = strcmp(arg, "ring") == 0;
		break;
	case OPT_MESH_WAIT: ret = parse_u32(arg, 1, 3600, &v); mo->wait_ms = (int)v * 1000; break;
	case OPT_DEVICES: ret = devices_check(arg, why); mo->devices = arg; break;
	case OPT_CROSS: mo->cross = true; break;
	case OPT_PEER_DEV:
		ret = rd_stmesh_parse_dev(arg, strlen(arg), ch->peer_dev, &c->peer_port);
		c->peer_dev = ch->peer_dev;
		break;
	default: return -ENOENT;
	}
	return ret;
}
