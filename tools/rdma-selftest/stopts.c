// SPDX-License-Identifier: MIT
/* rdma-selftest's own options: parsing each value into the self-test's choices. */
#define _GNU_SOURCE
#include "stopts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint64_t x;

	if (rd_parse_uint(s, &x) || x < lo || x > hi)
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

/*
 * One rule for every list option: items separated by single commas, none
 * empty (strtok_r would silently pass over "64,,128").
 */
static int list_check(const char *s, char why[96])
{
	if (rd_list_has_empty_item(s)) {
		snprintf(why, 96, "an empty item in '%.60s'", s);
		return -EINVAL;
	}
	return 0;
}

/* --mcast GROUP: an IPv4 multicast address (224.0.0.0/4), the only kind the mode joins. */
static int mcast_check(const char *s, char why[96])
{
	struct in_addr a;
	struct in6_addr a6;

	if (inet_pton(AF_INET6, s, &a6) == 1) {
		snprintf(why, 96, "'%.24s' is IPv6: give an IPv4 group, 224.0.0.0 to 239.255.255.255", s);
		return -EINVAL;
	}
	if (inet_pton(AF_INET, s, &a) != 1) {
		snprintf(why, 96, "'%.40s' is not an IPv4 address", s);
		return -EINVAL;
	}
	if (!IN_MULTICAST(ntohl(a.s_addr))) {
		snprintf(why, 96, "%.24s is not a multicast group (224.0.0.0 to 239.255.255.255)", s);
		return -EINVAL;
	}
	return 0;
}

/* --bind ADDR: an IPv4 or IPv6 address of this host. */
static int bind_check(const char *s, char why[96])
{
	struct in6_addr a;

	if (inet_pton(AF_INET, s, &a) == 1 || inet_pton(AF_INET6, s, &a) == 1)
		return 0;
	snprintf(why, 96, "'%.40s' is not an IPv4 or IPv6 address", s);
	return -EINVAL;
}

static int parse_sizes(const char *s, struct rd_st_config *c, char why[96])
{
	char *copy, *save = NULL, *tok;
	int ret = list_check(s, why);

	if (ret)
		return ret;
	copy = strdup(s);
	ret = copy ? 0 : -ENOMEM;

	c->nsizes = 0;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = c->nsizes == RD_ST_MAX_SIZES ? -EINVAL : parse_size(tok, &c->sizes[c->nsizes++]);
	free(copy);
	return ret ? ret : c->nsizes ? 0 : -EINVAL;
}

/* A number above 0, in decimal digits with an optional fraction. */
static int parse_positive(const char *s, double *v)
{
	return rd_parse_decimal(s, v) || !(*v > 0) ? -EINVAL : 0;
}

/* A time lo..hi seconds (2, 0.5, 500ms, 1m), in whole milliseconds. */
static int parse_ms(const char *s, double lo, double hi, int *ms)
{
	double d;

	if (rd_parse_duration(s, &d) || d < lo || d > hi)
		return -EINVAL;
	*ms = (int)ceil(d * 1000);
	return 0;
}

/* --devices all, or DEV[:PORT] items separated by commas (which exist is seen later). */
static int devices_check(const char *arg, char why[96])
{
	const char *s = arg;

	if (strcasecmp(arg, "all") == 0)
		return 0;
	if (list_check(arg, why))
		return -EINVAL;
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
	int ret = 0, ms = 0;

	switch (opt) {
	case OPT_SERVER: ch->server = true; break;
	case OPT_ONCE: c->once = true; break;
	case OPT_BIND: ret = bind_check(arg, why); c->bind = arg; break;
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
	case 'D':
		ret = parse_ms(arg, 1, 86400, &ms);
		c->duration_s = (uint32_t)((ms + 999) / 1000);
		break;
	case 's': ret = parse_size(arg, &c->sizes[0]); c->nsizes = 1; break;
	case OPT_SIZES: ret = parse_sizes(arg, c, why); break;
	case OPT_TIMEOUT: ret = parse_ms(arg, 0.001, 3600, &c->timeout_ms); break;
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
		/* Words in any case, as --op takes them. */
		if (strcasecmp(arg, "rc") != 0 && strcasecmp(arg, "ud") != 0) {
			snprintf(why, 96, "'%.32s' is not one of rc, ud", arg);
			ret = -EINVAL;
		}
		c->ud = strcasecmp(arg, "ud") == 0;
		break;
	case OPT_MCAST: ret = mcast_check(arg, why); c->mcast = arg; break;
	case OPT_MESH: ch->mesh = true; break;
	case 'w': mo->hosts = arg; break;
	case OPT_HOSTFILE:
		if (!*arg) {
			snprintf(why, 96, "an empty file name");
			ret = -EINVAL;
		}
		mo->hostfile = arg;
		break;
	case OPT_SELF:
		/* A longer name would be cut, and then match another host's. */
		if (strlen(arg) > RD_HOSTNAME_MAX) {
			snprintf(why, 96, "a host name of %zu bytes (at most %d)", strlen(arg),
				 RD_HOSTNAME_MAX);
			ret = -EINVAL;
		}
		ret = ret || !*arg ? -EINVAL : 0;
		mo->self = arg;
		break;
	case OPT_PAIRS:
		ret = rd_st_plan_parse(arg, &mo->plan, why, 96);
		break;
	case OPT_MESH_WAIT: ret = parse_ms(arg, 1, 3600, &mo->wait_ms); break;
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
