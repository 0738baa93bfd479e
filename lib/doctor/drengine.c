// SPDX-License-Identifier: MIT
/* rdma-doctor's engine: gather the facts once, run the selected checks of the table, collect. */
#define _GNU_SOURCE
#include "drapi.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doctor_int.h"
#include "drgpu.h"
#include "model/model.h"

const char *rd_dr_status_name(enum rd_dr_status s)
{
	static const char *const names[] = { "PASS", "SKIP", "WARN", "FAIL" };

	return (unsigned int)s < RD_ARRAY_SIZE(names) ? names[s] : "?";
}

const char *rd_dr_status_word(enum rd_dr_status s)
{
	static const char *const words[] = { "pass", "skip", "warn", "fail" };

	return (unsigned int)s < RD_ARRAY_SIZE(words) ? words[s] : "?";
}

bool rd_dr_id_matches(const char *id, const struct rd_dr_check *c)
{
	size_t n = strlen(id);

	if (strcmp(id, c->id) == 0)
		return true;
	return n > 0 && strncmp(id, c->id, n) == 0 && c->id[n] == '.';
}

const struct rd_dr_check *rd_dr_check_find(const char *id)
{
	size_t n;
	const struct rd_dr_check *t = rd_dr_checks(&n);

	for (size_t i = 0; i < n; i++)
		if (rd_dr_id_matches(id, &t[i]))
			return &t[i];
	return NULL;
}

void rd_dr_report_free(struct rd_dr_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

enum rd_dr_status rd_dr_report_worst(const struct rd_dr_report *r)
{
	if (r->count[RD_DR_FAIL])
		return RD_DR_FAIL;
	if (r->count[RD_DR_WARN])
		return RD_DR_WARN;
	/* Only evidence counts: a run whose every check skipped checked nothing. */
	return r->count[RD_DR_PASS] ? RD_DR_PASS : RD_DR_SKIP;
}

/*
 * The order a person fixes a node in: a device at all, its drivers, its
 * hardware link, the fabric or network behind it, then the software's access
 * to it.  The first FAIL in this order is the one an NHC line names (a port
 * DOWN before a missing uverbs node that may follow from it).
 */
static const char *const fail_order[] = {
	"dev.present", "sys.modules", "dev.driver", "port.state", "roce.netdev", "ib.sm",
	"ib.lid", "pci.link", "port.rate", "port.errors", "roce.gid", "ns.gid", "ib.pkey",
	"roce.subnet", "roce.mtu", "dev.provider", "dev.uverbs", "dev.rdma_cm", "sys.memlock",
};

static size_t fail_rank(const struct rd_dr_result *x)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(fail_order); i++)
		if (strcmp(x->check->id, fail_order[i]) == 0)
			return i;
	return RD_ARRAY_SIZE(fail_order);	/* the rest in table order */
}

const struct rd_dr_result *rd_dr_report_first_fail(const struct rd_dr_report *r)
{
	const struct rd_dr_result *best = NULL;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == RD_DR_FAIL && (!best || fail_rank(&r->v[i]) < fail_rank(best)))
			best = &r->v[i];
	return best;
}

/* ---- --expect ---- */

static const char *const expect_keys[RD_EXP_NKEYS] = {
	[RD_EXP_DEVICES] = "devices",
	[RD_EXP_RATE] = "rate",
	[RD_EXP_MTU] = "mtu",
	[RD_EXP_ACTIVE_MTU] = "active_mtu",
	[RD_EXP_FW] = "fw",
	[RD_EXP_PCIE_WIDTH] = "pcie_width",
	[RD_EXP_PCIE_SPEED] = "pcie_speed",
	[RD_EXP_ROCE_MODE] = "roce_mode",
	[RD_EXP_GID_INDEX] = "gid_index",
	[RD_EXP_LINK_LAYER] = "link_layer",
	[RD_EXP_GDR] = "gdr",
};

const char *rd_dr_expect_key_name(enum rd_dr_expect_key k)
{
	return (unsigned int)k < RD_EXP_NKEYS ? expect_keys[k] : NULL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* The value's syntax per key; *num filled for numeric keys. */
static int expect_value(enum rd_dr_expect_key k, char *v, double *num, const char **what)
{
	char *end;

	*num = 0;
	switch (k) {
	case RD_EXP_FW:
		return 0;
	case RD_EXP_ROCE_MODE:
		*what = "v1 or v2";
		if (strcasecmp(v, "v1") != 0 && strcasecmp(v, "v2") != 0)
			return -EINVAL;
		v[0] = 'v';
		return 0;
	case RD_EXP_LINK_LAYER:
		*what = "InfiniBand or Ethernet";
		if (strcasecmp(v, "infiniband") == 0)
			memcpy(v, "InfiniBand", sizeof("InfiniBand"));	/* same length as v */
		else if (strcasecmp(v, "ethernet") == 0)
			memcpy(v, "Ethernet", sizeof("Ethernet"));
		else
			return -EINVAL;
		return 0;
	case RD_EXP_ACTIVE_MTU:
		*what = "256, 512, 1024, 2048 or 4096";
		break;
	case RD_EXP_PCIE_SPEED:
		*what = "a PCIe link speed in GT/s (2.5, 5, 8, 16, 32 or 64)";
		break;
	case RD_EXP_RATE:
		*what = "a port rate in Gb/s (above 0, at most 3200)";
		break;
	case RD_EXP_MTU:
		*what = "a netdev MTU (576 to 65535)";
		break;
	case RD_EXP_PCIE_WIDTH:
		*what = "a PCIe width (1, 2, 4, 8, 12, 16 or 32, or x16)";
		break;
	case RD_EXP_DEVICES:
		*what = "a number of devices (1 to 4096)";
		break;
	case RD_EXP_GID_INDEX:
		*what = "a GID index (0 to 65535)";
		break;
	case RD_EXP_GDR:
		*what = "a number of GPUs (0 to 4096)";
		break;
	default:
		*what = "a whole number";
		break;
	}
	if (k == RD_EXP_PCIE_WIDTH && (v[0] == 'x' || v[0] == 'X'))
		memmove(v, v + 1, strlen(v));
	errno = 0;
	*num = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(*num) || *num < 0)
		return -EINVAL;
	if ((k == RD_EXP_DEVICES || k == RD_EXP_MTU || k == RD_EXP_PCIE_WIDTH ||
	     k == RD_EXP_GID_INDEX || k == RD_EXP_ACTIVE_MTU || k == RD_EXP_GDR) && *num != floor(*num))
		return -EINVAL;
	if (k == RD_EXP_ACTIVE_MTU && *num != 256 && *num != 512 && *num != 1024 &&
	    *num != 2048 && *num != 4096)
		return -EINVAL;
	/* Ranges: a value no device can have would only make a fix such as "mtu 0". */
	switch (k) {
	case RD_EXP_PCIE_SPEED:
		if (*num != 2.5 && *num != 5 && *num != 8 && *num != 16 && *num != 32 && *num != 64)
			return -EINVAL;
		break;
	case RD_EXP_RATE:
		if (*num <= 0 || *num > 3200)
			return -EINVAL;
		break;
	case RD_EXP_MTU:
		if (*num < 576 || *num > 65535)
			return -EINVAL;
		break;
	case RD_EXP_PCIE_WIDTH:
		if (*num != 1 && *num != 2 && *num != 4 && *num != 8 && *num != 12 && *num != 16 &&
		    *num != 32)
			return -EINVAL;
		break;
	case RD_EXP_DEVICES:
		if (*num < 1 || *num > 4096)
			return -EINVAL;
		break;
	case RD_EXP_GID_INDEX:
		if (*num > 65535)
			return -EINVAL;
		break;
	case RD_EXP_GDR:
		if (*num > 4096)
			return -EINVAL;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * "DEV" or "DEV/PORT" before a key's last dot: a device name as the kernel
 * allows it (letters, digits, _ - .) and a port from 1 to 255.  0 or -EINVAL.
 */
static int expect_scope(char *scope, struct rd_dr_expect_scoped *x)
{
	char *slash = strchr(scope, '/');
	uint64_t port = 0;

	if (slash) {
		*slash = '\0';
		if (rd_parse_u64(slash + 1, &port) || port < 1 || port > 255)
			return -EINVAL;
	}
	if (!*scope || strlen(scope) >= sizeof(x->dev))
		return -EINVAL;
	for (const char *p = scope; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return -EINVAL;
	rd_strlcpy(x->dev, scope, sizeof(x->dev));
	x->port = (unsigned int)port;
	return 0;
}

/* One line of an --expect file into e; -EINVAL with why naming the line. */
static int expect_line(struct rd_dr_expect *e, size_t lineno, char *line, char *why, size_t why_len)
{
	struct rd_dr_expect_scoped x = { .line = lineno };
	char *s, *eq, *key, *val, *dot;
	const char *what = "";
	bool scoped = false;
	int k = -1;

	s = trim(line);
	if (!*s || *s == '#')
		return 0;
	eq = strchr(s, '=');
	if (!eq) {
		snprintf(why, why_len, "line %zu: not key=value", lineno);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	dot = strrchr(key, '.');
	if (dot) {
		char scope[80];

		*dot = '\0';
		rd_strlcpy(scope, key, sizeof(scope));
		if (expect_scope(key, &x)) {
			snprintf(why, why_len, "line %zu: '%.40s' is not DEV or DEV/PORT (a device name "
				 "and a port from 1 to 255) before '.%.40s'", lineno, scope, dot + 1);
			return -EINVAL;
		}
		key = dot + 1;
		scoped = true;
	}
	for (int i = 0; i < RD_EXP_NKEYS; i++)
		if (strcmp(key, expect_keys[i]) == 0)
			k = i;
	if (k < 0) {
		snprintf(why, why_len,
			 "line %zu: unknown key '%.40s' (known: devices rate mtu active_mtu fw "
			 "pcie_width pcie_speed roce_mode gid_index link_layer gdr)", lineno, key);
		return -EINVAL;
	}
	if (!*val || strlen(val) >= sizeof(e->val[k])) {
		snprintf(why, why_len, "line %zu: %s: %s value", lineno, key,
			 *val ? "too long a" : "empty");
		return -EINVAL;
	}
	if (scoped) {
		if (k == RD_EXP_DEVICES || k == RD_EXP_GDR) {
			snprintf(why, why_len, "line %zu: %s counts the node's %s: it takes no "
				 "DEV. in front", lineno, key, k == RD_EXP_GDR ? "GPUs" : "devices");
			return -EINVAL;
		}
		for (size_t i = 0; i < e->nscoped; i++)
			if ((int)e->scoped[i].key == k && e->scoped[i].port == x.port &&
			    strcmp(e->scoped[i].dev, x.dev) == 0) {
				char port[16] = "";

				if (x.port)
					snprintf(port, sizeof(port), "/%u", x.port);
				snprintf(why, why_len, "line %zu: %s%s.%s given twice (line %zu)", lineno,
					 x.dev, port, key, e->scoped[i].line);
				return -EINVAL;
			}
		if (e->nscoped == RD_EXP_MAX_SCOPED) {
			snprintf(why, why_len, "line %zu: more than %d DEV.key lines", lineno,
				 RD_EXP_MAX_SCOPED);
			return -EINVAL;
		}
		x.key = (enum rd_dr_expect_key)k;
		rd_strlcpy(x.val, val, sizeof(x.val));
		if (expect_value(x.key, x.val, &x.num, &what)) {
			snprintf(why, why_len, "line %zu: %s: '%.40s' is not %s", lineno, key, val, what);
			return -EINVAL;
		}
		e->scoped[e->nscoped++] = x;
		return 0;
	}
	if (e->has[k]) {
		snprintf(why, why_len, "line %zu: %s given twice", lineno, key);
		return -EINVAL;
	}
	rd_strlcpy(e->val[k], val, sizeof(e->val[k]));
	if (expect_value((enum rd_dr_expect_key)k, e->val[k], &e->num[k], &what)) {
		snprintf(why, why_len, "line %zu: %s: '%.40s' is not %s", lineno, key, val, what);
		return -EINVAL;
	}
	e->has[k] = true;
	e->line[k] = lineno;
	return 0;
}

int rd_dr_expect_read(const char *path, int timeout_ms, struct rd_dr_expect *e, char *why,
		      size_t why_len)
{
	const struct rd_infile_limits lim = {
		.max_bytes = 64 << 10,
		.max_line = 511,
		.max_lines = 1000,
		.timeout_ms = timeout_ms,
	};
	struct rd_infile f;
	char *line;
	size_t len;
	int ret;

	memset(e, 0, sizeof(*e));
	ret = rd_infile_open(&f, path, &lim, why, why_len);
	while (ret == 0 && (ret = rd_infile_line(&f, &line, &len, why, why_len)) == 1)
		ret = expect_line(e, f.lineno, line, why, why_len);
	rd_infile_close(&f);
	return ret;
}

/* ---- facts ---- */

static bool selected(const struct rd_dr_opts *o, const struct rd_dr_check *c)
{
	bool in = !o->only || o->only->n == 0;

	if (c->selftest && !o->selftest)
		return false;
	for (size_t i = 0; o->only && i < o->only->n; i++)
		if (rd_dr_id_matches(o->only->v[i], c))
			in = true;
	for (size_t i = 0; o->skip && i < o->skip->n; i++)
		if (rd_dr_id_matches(o->skip->v[i], c))
			in = false;
	return in;
}

size_t rd_dr_selected_count(const struct rd_dr_opts *o)
{
	size_t n, count = 0;
	const struct rd_dr_check *t = rd_dr_checks(&n);

	for (size_t i = 0; i < n; i++)
		count += selected(o, &t[i]);
	return count;
}

static bool any_selected(const struct rd_dr_opts *o, const char *id)
{
	const struct rd_dr_check *c = rd_dr_check_find(id);

	return c && selected(o, c);
}

static void port_facts(struct rd_dr_ctx *c, const struct rd_nl_ports *nl,
		       const struct rd_vlan_map *vlans, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_port *p = dp->p;
	enum rd_map_via via;
	const char *tr = rd_port_transport(d, p);

	dp->roce = tr && strcmp(tr, "RoCE") == 0;
	dp->ib = (p->known & RD_PORT_LINK_LAYER) && p->link_layer == RD_LL_INFINIBAND;
	if (dp->roce && rd_port_gid_table_vlans(c->sr, d, p, false, vlans, &dp->gids, c->w) == 0)
		dp->has_gids = true;
	/* The table has read the netdev of GID 0, the port's first answer. */
	if (rd_port_netdev_cached(c->netdevs, nl, d, p,
				  dp->has_gids ? rd_gid_table_ndev(&dp->gids, 0) : NULL, dp->netdev,
				  sizeof(dp->netdev), &via, &dp->other_netns))
		dp->netdev[0] = '\0';
	if (dp->netdev[0] && rd_netdev_read_cached(c->netdevs, dp->netdev, vlans, &dp->nd) == 0)
		dp->has_nd = true;
	if (dp->has_gids) {
		struct rd_gid_netns uc;

		/* The choice rdma-gids --best and rdma-selftest make, so that they agree. */
		rd_gid_netns_init(&uc, c->netdevs);
		dp->best = rd_gid_best(&dp->gids, p, -1, rd_gid_netdev_usable, &uc, dp->best_reason,
				       sizeof(dp->best_reason), dp->best_why, sizeof(dp->best_why));
		if (!dp->best)
			dp->best_elsewhere = rd_gid_netns_why(&uc, dp->best_why, sizeof(dp->best_why));
	}
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void read_counters(struct rd_dr_ctx *c)
{
	for (unsigned int i = 0; i < c->list->n; i++) {
		for (unsigned int j = 0; j < c->list->v[i].nports; j++) {
			struct rd_dr_port *dp = &c->ports[i][j];

			if (!dp->has_ctrs)
				continue;
			rd_port_ctrs_begin(&dp->ctrs, rd_monotonic());
			(void)rd_port_ctrs_read_files(&dp->ctrs, RD_SRC_PMA);
			(void)rd_port_ctrs_read_files(&dp->ctrs, RD_SRC_HW);
			rd_port_ctrs_end(&dp->ctrs);
		}
	}
}

static void sample_counters(struct rd_dr_ctx *c)
{
	bool any = false;

	for (unsigned int i = 0; i < c->list->n; i++) {
		struct rd_device *d = &c->list->v[i];

		for (unsigned int j = 0; j < d->nports; j++) {
			struct rd_dr_port *dp = &c->ports[i][j];

			if (!dp->selected)
				continue;
			if (rd_port_ctrs_open(c->sr, d->name, dp->p->num, false, &dp->ctrs) == 0) {
				dp->has_ctrs = dp->ctrs.n > 0;
				any = any || dp->has_ctrs;
				if (!dp->has_ctrs)
					rd_port_ctrs_close(&dp->ctrs);
			}
		}
	}
	if (!any)
		return;
	read_counters(c);
	if (c->o->interval <= 0)
		return;
	sleep_s(c->o->interval);
	read_counters(c);
	c->rep->interval = c->o->interval;
	for (unsigned int i = 0; i < c->list->n; i++)
		for (unsigned int j = 0; j < c->list->v[i].nports; j++)
			c->ports[i][j].sampled = c->ports[i][j].has_ctrs;
}

static void free_ports(struct rd_dr_ctx *c)
{
	if (!c->ports)
		return;
	for (unsigned int i = 0; i < c->list->n; i++) {
		for (unsigned int j = 0; c->ports[i] && j < c->list->v[i].nports; j++) {
			struct rd_dr_port *dp = &c->ports[i][j];

			if (dp->has_nd)
				rd_netdev_info_free(&dp->nd);
			if (dp->has_gids)
				rd_gid_table_free(&dp->gids);
			if (dp->has_ctrs)
				rd_port_ctrs_close(&dp->ctrs);
		}
		free(c->ports[i]);
	}
	free(c->ports);
	c->ports = NULL;
}

static void run_scope(struct rd_dr_ctx *c, enum rd_dr_scope scope, struct rd_device *d,
		      struct rd_dr_port *dp)
{
	size_t n;
	const struct rd_dr_check *t = rd_dr_checks(&n);

	for (size_t i = 0; i < n && !c->err; i++) {
		if (t[i].scope != scope || !selected(c->o, &t[i]))
			continue;
		c->cur = &t[i];
		c->cur_dev = d;
		c->cur_port = dp;
		t[i].verdict(c, d, dp);
	}
	c->cur_dev = NULL;
	c->cur_port = NULL;
}

/*
 * An expectation no selected check asked for could not apply to this node
 * (roce_mode on a node without a RoCE port, ib_sm where no port is
 * InfiniBand, or a check left out by --only): said once, with its line, so
 * that a user never reads "PASS" as "my expectation held".
 */
static void name_unused_expectations(struct rd_dr_ctx *c, const bool *consulted)
{
	const struct rd_dr_expect *e = c->o->expect;

	if (!e)
		return;
	for (int k = 0; k < RD_EXP_NKEYS; k++) {
		size_t line = e->has[k] ? e->line[k] : 0;

		for (size_t i = 0; !line && i < e->nscoped; i++)
			if ((int)e->scoped[i].key == k)
				line = e->scoped[i].line;
		if (line && !consulted[k])
			rd_warn(c->w, "--expect line %zu: %s was not checked: nothing that ran on this "
				"node reads it (no port of that kind, a device that is missing, or its "
				"check not selected)", line, rd_dr_expect_key_name((enum rd_dr_expect_key)k));
	}
}

int rd_doctor_run(const struct rd_dr_opts *opts, struct rd_device_list *list,
		  struct rd_dr_report *rep, struct rd_warnings *w)
{
	bool consulted[RD_EXP_NKEYS] = { false };
	struct rd_dr_ctx c = { .o = opts, .sr = opts->sr, .list = list, .rep = rep, .w = w,
			       .consulted = consulted };
	struct rd_nl_ports nl = { 0 };
	struct rd_vlan_map vlans = { 0 };
	struct rd_netdev_cache netdevs;
	struct rd_dr_files files;
	bool have_nl = false;

	memset(rep, 0, sizeof(*rep));
	/* Beside the context, not in it: only they are handed to the readers. */
	rd_netdev_cache_init(&netdevs, c.sr);
	rd_dr_files_init(&files, c.sr);
	c.netdevs = &netdevs;
	c.files = &files;
	c.live = rd_sysroot_is_live(opts->sr);
	rep->devices = list->n;
	if (c.live && list->n) {
		(void)rd_verbs_query(list);	/* per-device errors land in verbs_error */
		have_nl = rd_nldev_ports(&nl, 1000) == 0;
	}
	(void)rd_vlan_map_read(c.sr, &vlans);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): c.ports holds pointers; *c.ports is one */
	c.ports = calloc(list->n ? list->n : 1, sizeof(*c.ports));
	if (!c.ports) {
		c.err = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < list->n; i++) {
		struct rd_device *d = &list->v[i];

		c.ports[i] = calloc(d->nports ? d->nports : 1, sizeof(**c.ports));
		if (!c.ports[i]) {
			c.err = -ENOMEM;
			goto out;
		}
		for (unsigned int j = 0; j < d->nports; j++) {
			struct rd_dr_port *dp = &c.ports[i][j];

			dp->p = &d->ports[j];
			dp->selected = opts->port == 0 || opts->port == dp->p->num;
			if (dp->selected)
				rep->ports++;
			port_facts(&c, have_nl ? &nl : NULL, &vlans, d, dp);
		}
	}
	if (any_selected(opts, "port.errors"))
		sample_counters(&c);
	if (any_selected(opts, "roce.subnet"))
		c.has_routes = rd_routes_read(c.sr, &c.routes) == 0;

	run_scope(&c, RD_DR_NODE, NULL, NULL);
	for (unsigned int i = 0; i < list->n && !c.err; i++) {
		struct rd_device *d = &list->v[i];

		run_scope(&c, RD_DR_DEVICE, d, NULL);
		for (unsigned int j = 0; j < d->nports && !c.err; j++)
			if (c.ports[i][j].selected)
				run_scope(&c, RD_DR_PORT, d, &c.ports[i][j]);
	}
	if (!c.err)
		name_unused_expectations(&c, consulted);
out:
	rd_dr_gpu_free(&c);
	free_ports(&c);
	rd_routes_free(&c.routes);
	rd_netdev_cache_free(&netdevs);
	rd_dr_files_free(&files);
	rd_vlan_map_free(&vlans);
	if (have_nl)
		rd_nl_ports_free(&nl);
	return c.err;
}
