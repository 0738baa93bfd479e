// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "counters.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

const char *rd_ctr_src_dir(enum rd_ctr_src src)
{
	return src == RD_SRC_PMA ? "counters" : "hw_counters";
}

const char *rd_delta_kind_name(enum rd_delta_kind k)
{
	static const char *const names[] = { "none", "ok", "wrap", "reset", "saturated", "error" };

	return (unsigned int)k < RD_ARRAY_SIZE(names) ? names[k] : "?";
}

/*
 * The PMA attributes of drivers/infiniband/core/sysfs.c with the width of
 * their PortCounters field.  The four data/packet counters are 64-bit in the
 * extended set (same file names); the unicast/multicast ones exist only there.
 */
static const struct pma_def {
	const char *name;
	unsigned char width;
	bool error;
	short role;	/* enum rd_sum, or RD_SUM_NONE (-1) */
} pma_defs[] = {
	{ "symbol_error", 16, true, RD_SUM_NONE },
	{ "link_error_recovery", 8, true, RD_SUM_NONE },
	{ "link_downed", 8, true, RD_SUM_NONE },
	{ "port_rcv_errors", 16, true, RD_SUM_NONE },
	{ "port_rcv_remote_physical_errors", 16, true, RD_SUM_NONE },
	{ "port_rcv_switch_relay_errors", 16, true, RD_SUM_NONE },
	{ "port_xmit_discards", 16, true, RD_SUM_NONE },
	{ "port_xmit_constraint_errors", 8, true, RD_SUM_NONE },
	{ "port_rcv_constraint_errors", 8, true, RD_SUM_NONE },
	{ "local_link_integrity_errors", 4, true, RD_SUM_NONE },
	{ "excessive_buffer_overrun_errors", 4, true, RD_SUM_NONE },
	{ "VL15_dropped", 16, true, RD_SUM_NONE },
	{ "port_xmit_data", 32, false, RD_SUM_TX_BYTES },
	{ "port_rcv_data", 32, false, RD_SUM_RX_BYTES },
	{ "port_xmit_packets", 32, false, RD_SUM_TX_PKTS },
	{ "port_rcv_packets", 32, false, RD_SUM_RX_PKTS },
	{ "port_xmit_wait", 32, false, RD_SUM_NONE },
	{ "unicast_xmit_packets", 64, false, RD_SUM_NONE },
	{ "unicast_rcv_packets", 64, false, RD_SUM_NONE },
	{ "multicast_xmit_packets", 64, false, RD_SUM_NONE },
	{ "multicast_rcv_packets", 64, false, RD_SUM_NONE },
};

/*
 * hw_counters that can stand for a summary column, per driver: rxe
 * (rxe_hw_counters.c), bnxt_re and efa (tx/rx_bytes, _pkts), irdma (IPv4
 * octets/packets, CNP and ECN names), mlx5 (cong group; cc_* are its
 * optional counters).  No driver's hw_counters count bytes for rxe or mlx5.
 */
static const struct hw_role {
	const char *name;
	short role;
	unsigned char prio;
} hw_roles[] = {
	{ "tx_bytes", RD_SUM_TX_BYTES, 10 },
	{ "rx_bytes", RD_SUM_RX_BYTES, 10 },
	/* irdma: IPv4 and IPv6 counted apart; equal priorities are summed. */
	{ "ip4OutOctets", RD_SUM_TX_BYTES, 20 },
	{ "ip6OutOctets", RD_SUM_TX_BYTES, 20 },
	{ "ip4InOctets", RD_SUM_RX_BYTES, 20 },
	{ "ip6InOctets", RD_SUM_RX_BYTES, 20 },
	{ "sent_pkts", RD_SUM_TX_PKTS, 10 },
	{ "rcvd_pkts", RD_SUM_RX_PKTS, 10 },
	{ "tx_pkts", RD_SUM_TX_PKTS, 10 },
	{ "rx_pkts", RD_SUM_RX_PKTS, 10 },
	{ "ip4OutPkts", RD_SUM_TX_PKTS, 20 },
	{ "ip6OutPkts", RD_SUM_TX_PKTS, 20 },
	{ "ip4InPkts", RD_SUM_RX_PKTS, 20 },
	{ "ip6InPkts", RD_SUM_RX_PKTS, 20 },
	{ "rp_cnp_handled", RD_SUM_CNP, 10 },
	{ "cnpHandled", RD_SUM_CNP, 20 },
	{ "rx_cnp_pkts", RD_SUM_CNP, 20 },
	{ "cc_rx_cnp_pkts", RD_SUM_CNP, 30 },
	{ "np_ecn_marked_roce_packets", RD_SUM_ECN, 10 },
	{ "RxECNMrkd", RD_SUM_ECN, 20 },
	{ "rx_ecn_marked_pkts", RD_SUM_ECN, 20 },
	{ "cc_rx_ce_pkts", RD_SUM_ECN, 30 },
};

/* Error counters whose names do not say "err", "discard" or "drop". */
static const char *const hw_errors[] = {
	"out_of_buffer",	/* mlx5: packets dropped for lack of a receive WQE */
	"out_of_sequence",	/* mlx5 */
	"out_of_seq_request",	/* rxe */
	"link_downed",		/* rxe */
	"rx_icrc_encapsulated",	/* mlx5: ICRC errors */
	"ip4InTruncatedPkts",	/* irdma */
	"ip6InTruncatedPkts",
	"ip4OutNoRoutes",
	"ip6OutNoRoutes",
};

/*
 * Does word start a word of name: after '_' or at the start (snake_case),
 * or capitalized (camelCase)?  "err" is in "rcvd_seq_err" and "rxVlanErrors",
 * not in "ack_deferred".
 */
static bool has_word(const char *name, const char *word)
{
	for (const char *p = name; (p = strcasestr(p, word)); p++)
		if (p == name || !isalpha((unsigned char)p[-1]) || isupper((unsigned char)*p))
			return true;
	return false;
}

static bool hw_is_error(const char *name)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(hw_errors); i++)
		if (strcmp(name, hw_errors[i]) == 0)
			return true;
	return has_word(name, "err") || has_word(name, "discard") || has_word(name, "drop");
}

/*
 * The counters whose moving during a transfer signals trouble on the path.
 * mlx5 (its hw_counters and cong group), rxe (rxe_hw_counters.c), bnxt_re
 * and irdma; anything else counted as an error (error above) is a drop.
 */
static const struct trouble_def {
	const char *name;
	unsigned char trouble;
} trouble_defs[] = {
	/* mlx5: the requester timed out, got RNR or sequence NAKs; the responder saw repeats */
	{ "local_ack_timeout_err", RD_TROUBLE_RETRANS },
	{ "rnr_nak_retry_err", RD_TROUBLE_RETRANS },
	{ "packet_seq_err", RD_TROUBLE_RETRANS },
	{ "implied_nak_seq_err", RD_TROUBLE_RETRANS },
	{ "out_of_sequence", RD_TROUBLE_RETRANS },
	{ "duplicate_request", RD_TROUBLE_RETRANS },	/* mlx5 and rxe */
	{ "roce_adp_retrans", RD_TROUBLE_RETRANS },
	{ "roce_adp_retrans_to", RD_TROUBLE_RETRANS },
	{ "roce_slow_restart", RD_TROUBLE_RETRANS },
	{ "roce_slow_restart_trans", RD_TROUBLE_RETRANS },
	/* rxe */
	{ "out_of_seq_request", RD_TROUBLE_RETRANS },
	{ "rcvd_rnr_err", RD_TROUBLE_RETRANS },
	{ "send_rnr_err", RD_TROUBLE_RETRANS },
	{ "rcvd_seq_err", RD_TROUBLE_RETRANS },
	{ "retry_exceeded_err", RD_TROUBLE_RETRANS },
	{ "retry_rnr_exceeded_err", RD_TROUBLE_RETRANS },
	{ "completer_retry_err", RD_TROUBLE_RETRANS },
	/* bnxt_re */
	{ "to_retransmits", RD_TROUBLE_RETRANS },
	{ "seq_err_naks_rcvd", RD_TROUBLE_RETRANS },
	{ "rnr_naks_rcvd", RD_TROUBLE_RETRANS },
	{ "max_retry_exceeded", RD_TROUBLE_RETRANS },
	{ "dup_req", RD_TROUBLE_RETRANS },
	/* congestion: notification point and reaction point */
	{ "np_cnp_sent", RD_TROUBLE_CONGESTION },
	{ "np_ecn_marked_roce_packets", RD_TROUBLE_CONGESTION },
	{ "rp_cnp_handled", RD_TROUBLE_CONGESTION },
	{ "rp_cnp_ignored", RD_TROUBLE_CONGESTION },
	{ "roce_slow_restart_cnps", RD_TROUBLE_CONGESTION },
	{ "cc_rx_cnp_pkts", RD_TROUBLE_CONGESTION },
	{ "cc_rx_ce_pkts", RD_TROUBLE_CONGESTION },
	{ "cc_tx_cnp_pkts", RD_TROUBLE_CONGESTION },
	{ "rx_cnp_pkts", RD_TROUBLE_CONGESTION },
	{ "tx_cnp_pkts", RD_TROUBLE_CONGESTION },
	{ "rx_ecn_marked_pkts", RD_TROUBLE_CONGESTION },
	{ "cnpHandled", RD_TROUBLE_CONGESTION },
	{ "cnpIgnored", RD_TROUBLE_CONGESTION },
	{ "cnpSent", RD_TROUBLE_CONGESTION },
	{ "RxECNMrkd", RD_TROUBLE_CONGESTION },
	/* subnet management traffic, not the transfer's */
	{ "VL15_dropped", RD_TROUBLE_NONE },
};

const char *rd_ctr_trouble_name(enum rd_ctr_trouble t)
{
	static const char *const names[] = { "", "retransmits", "congestion", "drops" };

	return (unsigned int)t < RD_ARRAY_SIZE(names) ? names[t] : "";
}

static enum rd_ctr_trouble trouble_of(const char *name, bool error)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(trouble_defs); i++)
		if (strcmp(name, trouble_defs[i].name) == 0)
			return (enum rd_ctr_trouble)trouble_defs[i].trouble;
	return error ? RD_TROUBLE_DROP : RD_TROUBLE_NONE;
}

void rd_ctr_classify(enum rd_ctr_src src, const char *name, struct rd_ctr_info *info)
{
	memset(info, 0, sizeof(*info));
	info->scale = 1;
	info->role = RD_SUM_NONE;
	if (src == RD_SRC_PMA) {
		info->width = 64;	/* an attribute this table does not know: no saturation */
		for (size_t i = 0; i < RD_ARRAY_SIZE(pma_defs); i++) {
			if (strcmp(name, pma_defs[i].name) != 0)
				continue;
			info->width = pma_defs[i].width;
			info->error = pma_defs[i].error;
			info->role = pma_defs[i].role;
			break;
		}
		info->trouble = trouble_of(name, info->error);
		/* PortXmitData/PortRcvData: "divided by 4" in the IB spec. */
		if (strcmp(name, "port_xmit_data") == 0 || strcmp(name, "port_rcv_data") == 0)
			info->scale = 4;
		return;
	}
	info->error = hw_is_error(name);
	for (size_t i = 0; i < RD_ARRAY_SIZE(hw_roles); i++) {
		if (strcmp(name, hw_roles[i].name) == 0) {
			info->role = hw_roles[i].role;
			info->prio = hw_roles[i].prio;
			break;
		}
	}
	info->trouble = trouble_of(name, info->error);
}

enum rd_delta_kind rd_ctr_update(const struct rd_ctr_info *info, struct rd_ctr_state *st, int err,
				 uint64_t value, uint64_t *delta)
{
	const uint64_t two32 = 1ull << 32, half = 1ull << 31;
	uint64_t prev = st->value;
	bool had = st->have;
	enum rd_delta_kind k;

	*delta = 0;
	if (err) {
		st->have = false;
		st->have_delta = false;
		return RD_DELTA_ERROR;
	}
	st->have = true;
	st->value = value;
	if (value > UINT32_MAX)
		st->wide = true;
	if (!had) {
		st->have_delta = false;
		return RD_DELTA_NONE;
	}
	if (info->width) {
		unsigned int w = info->width;
		uint64_t max;

		if (w == 32 && st->wide)
			w = 64;		/* PortCountersExtended under the 32-bit name */
		max = w >= 64 ? UINT64_MAX : (1ull << w) - 1;
		if (value > max)
			max = UINT64_MAX;	/* wider than the spec says: trust the value */
		if (value == max)
			return RD_DELTA_SATURATED;
		if (value < prev)
			goto reset;
		*delta = value - prev;
		k = RD_DELTA_OK;
	} else if (value >= prev) {
		*delta = value - prev;
		k = RD_DELTA_OK;
	} else if (!st->wide && prev <= UINT32_MAX) {
		/*
		 * Down, on a counter never seen above 32 bits: a wrap if it was in
		 * the upper half, came back with less than half the range, and not
		 * absurdly faster than it moved before; a reset otherwise.
		 */
		uint64_t wrapped = two32 - prev + value;
		bool plausible = prev >= half && wrapped < half;

		if (plausible && st->have_delta && st->last_delta < (UINT64_MAX >> 5))
			plausible = wrapped <= 16 * st->last_delta + (1u << 20);
		if (!plausible)
			goto reset;
		*delta = wrapped;
		k = RD_DELTA_WRAP;
	} else {
		goto reset;
	}
	st->last_delta = *delta;
	st->have_delta = true;
	return k;
reset:
	st->have_delta = false;	/* how fast it moved before the reset says nothing now */
	return RD_DELTA_RESET;
}

int rd_parse_counter(const char *buf, size_t len, uint64_t *v)
{
	const char *p = buf, *end = buf + len;
	uint64_t x = 0;
	size_t n;

	/* Runs for every counter at every refresh: one tight loop, no ctype calls. */
	while (p < end && *p == ' ')
		p++;
	while (end > p && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end)
		return -ENODATA;
	n = (size_t)(end - p);
	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned int)(unsigned char)p[i] - '0';

		if (d > 9)
			return -EINVAL;
		x = x * 10 + d;
	}
	/* Only 20 digits or more can pass 2^64-1 (18446744073709551615). */
	if (n > 20 || (n == 20 && memcmp(p, "18446744073709551615", 20) > 0)) {
		while (n > 20 && *p == '0')
			p++, n--;
		if (n > 20 || (n == 20 && memcmp(p, "18446744073709551615", 20) > 0))
			return -ERANGE;
	}
	*v = x;
	return 0;
}

double rd_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- a port's counter set ---- */

static int cmp_counter(const void *a, const void *b)
{
	const struct rd_counter *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return strcmp(x->name, y->name);
}

int rd_port_ctrs_add(struct rd_port_ctrs *pc, enum rd_ctr_src src, const char *name, int fd)
{
	struct rd_counter *v, *c;

	v = realloc(pc->v, (pc->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	pc->v = v;
	c = &v[pc->n];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	RD_GCC_LEAK_FP_BEGIN	/* stored in pc->v just above */
	if (!c->name)
		return -ENOMEM;
	rd_name_set(&c->key, c->name);
	c->src = src;
	c->fd = fd;
	rd_ctr_classify(src, name, &c->info);
	return (int)pc->n++;
	RD_GCC_LEAK_FP_END
}

void rd_port_ctrs_index(struct rd_port_ctrs *pc)
{
	if (pc->n > 1)
		qsort(pc->v, pc->n, sizeof(*pc->v), cmp_counter);
	for (int r = 0; r < RD_SUM_COUNT; r++)
		pc->role[r] = -1;
	for (size_t i = 0; i < pc->n; i++) {
		const struct rd_ctr_info *in = &pc->v[i].info;
		int cur;

		if (in->role < 0 || in->role >= RD_SUM_COUNT)
			continue;
		cur = pc->role[in->role];
		/* PMA before hw (prio 0), then the table's preference. */
		if (cur < 0 || in->prio < pc->v[cur].info.prio)
			pc->role[in->role] = (int)i;
	}
}

static int open_dir(const struct rd_sysroot *sr, const char *dev, unsigned int port,
		    enum rd_ctr_src src, bool open_files, struct rd_port_ctrs *pc)
{
	const char *dir = rd_ctr_src_dir(src);
	struct rd_strlist names = { 0 };
	char path[RD_PATH_MAX];
	int ret;

	if (rd_sys_list(sr, &names, "/sys/class/infiniband/%s/ports/%u/%s", dev, port, dir))
		return 0;	/* no such directory: no counters of this kind */
	for (size_t i = 0; i < names.n; i++) {
		int fd = -1;

		if (strcmp(names.v[i], "lifespan") == 0)
			continue;	/* the hw stats cache time in ms, not a counter */
		if (open_files) {
			ret = rd_snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%u/%s/%s",
					  sr->root, dev, port, dir, names.v[i]);
			/* O_NONBLOCK: a FIFO in a copied tree must not block the open. */
			if (ret == 0)
				fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
			if (fd >= 0) {
				struct stat st;

				/* sysfs counters are regular files; anything else is not read. */
				if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
					close(fd);
					fd = -1;
					errno = S_ISDIR(st.st_mode) ? EISDIR : EMEDIUMTYPE;
				}
			}
			else if (errno == ENOENT && lstat(path, &(struct stat){ 0 }) == 0)
				errno = ENOLINK;	/* a dangling symlink in a copied tree */
			/* fd -1: the reading fails each time and says so. */
		}
		ret = rd_port_ctrs_add(pc, src, names.v[i], fd);
		if (ret < 0) {
			if (fd >= 0)
				close(fd);
			rd_strlist_free(&names);
			return ret;
		}
		if (fd < 0 && open_files)
			pc->v[ret].err = -errno;
	}
	rd_strlist_free(&names);
	return 0;
}

int rd_port_ctrs_open(const struct rd_sysroot *sr, const char *dev, unsigned int port,
		      bool hw_from_netlink, struct rd_port_ctrs *pc)
{
	int ret;

	memset(pc, 0, sizeof(*pc));
	ret = open_dir(sr, dev, port, RD_SRC_PMA, true, pc);
	if (ret == 0 && !hw_from_netlink)
		ret = open_dir(sr, dev, port, RD_SRC_HW, true, pc);
	if (ret) {
		rd_port_ctrs_close(pc);
		return ret;
	}
	rd_port_ctrs_index(pc);
	return 0;
}

void rd_port_ctrs_close(struct rd_port_ctrs *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		if (pc->v[i].fd >= 0)
			close(pc->v[i].fd);
		free(pc->v[i].name);
	}
	free(pc->v);
	memset(pc, 0, sizeof(*pc));
}

void rd_port_ctrs_begin(struct rd_port_ctrs *pc, double now)
{
	pc->t_prev = pc->t_cur;
	pc->have_prev = pc->readings > 0;
	pc->t_cur = now;
	for (size_t i = 0; i < pc->n; i++)
		pc->v[i].fed = false;
}

static int read_one(struct rd_counter *c)
{
	char buf[64];
	ssize_t n;

	if (c->fd < 0)
		return c->err ? c->err : -EBADF;
	do
		n = pread(c->fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(buf))
		return -EOVERFLOW;
	return rd_parse_counter(buf, (size_t)n, &c->value);
}

int rd_port_ctrs_read_files(struct rd_port_ctrs *pc, enum rd_ctr_src src)
{
	int gone = 0;

	for (size_t i = 0; i < pc->n; i++) {
		struct rd_counter *c = &pc->v[i];

		if (c->src != src || c->fd < 0)
			continue;
		c->err = read_one(c);
		c->fed = true;
		/* kernfs answers ENODEV once the device is unregistered. */
		if (c->err == -ENODEV)
			gone = -ENODEV;
	}
	return gone;
}

int rd_port_ctrs_feed(struct rd_port_ctrs *pc, enum rd_ctr_src src, const char *name,
		      uint64_t value)
{
	size_t lo = 0, hi = pc->n;
	struct rd_counter key = { .name = (char *)name, .src = src };

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_counter(&key, &pc->v[mid]);

		if (c == 0) {
			pc->v[mid].value = value;
			pc->v[mid].err = 0;
			pc->v[mid].fed = true;
			return 0;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -ENOENT;
}

static bool kind_has_rate(enum rd_delta_kind k)
{
	return k == RD_DELTA_OK || k == RD_DELTA_WRAP;
}

void rd_port_ctrs_end(struct rd_port_ctrs *pc)
{
	double dt = pc->t_cur - pc->t_prev;

	pc->interval = pc->have_prev ? dt : 0;
	for (size_t i = 0; i < pc->n; i++) {
		struct rd_counter *c = &pc->v[i];

		/* Not read or fed this time (netlink left it out, the file would not open). */
		if (!c->fed && !c->err)
			c->err = -ENODATA;
		c->kind = rd_ctr_update(&c->info, &c->st, c->err, c->value, &c->delta);
		c->rate = 0;
		if (kind_has_rate(c->kind)) {
			if (pc->have_prev && dt > 0) {
				c->rate = (double)c->delta / dt;
			} else {
				c->kind = RD_DELTA_NONE;
				c->delta = 0;
			}
		}
	}
	pc->readings++;
}

/* Add one counter to a sum; *known / *unknown count members with and without a rate. */
static void sum_add(struct rd_sum_val *s, const struct rd_counter *c, size_t *known, size_t *unknown,
		    size_t *unreadable)
{
	s->present = true;
	if (c->err) {
		(*unreadable)++;
	} else {
		s->total_known = true;
		s->total += c->value * c->info.scale;
	}
	if (kind_has_rate(c->kind)) {
		(*known)++;
		s->rate += c->rate * c->info.scale;
		s->wrapped |= c->kind == RD_DELTA_WRAP;
	} else {
		(*unknown)++;
		s->saturated |= c->kind == RD_DELTA_SATURATED;
		s->reset |= c->kind == RD_DELTA_RESET;
	}
}

/*
 * The sums, in one pass: the errors, and per role the counters with the
 * best priority (irdma's IPv4 + IPv6 octets).  A rate is OK when every
 * member has one; for the errors PARTIAL (a lower bound) when some do;
 * UNKNOWN otherwise.
 */
void rd_port_ctrs_summary(const struct rd_port_ctrs *pc, struct rd_sum_val out[RD_SUM_COUNT])
{
	size_t known[RD_SUM_COUNT] = { 0 }, unknown[RD_SUM_COUNT] = { 0 };
	size_t unreadable[RD_SUM_COUNT] = { 0 };
	int prio[RD_SUM_COUNT];

	memset(out, 0, sizeof(*out) * RD_SUM_COUNT);
	for (int r = 0; r < RD_SUM_COUNT; r++)
		prio[r] = pc->role[r] >= 0 ? pc->v[pc->role[r]].info.prio : -1;
	for (size_t i = 0; i < pc->n; i++) {
		const struct rd_counter *c = &pc->v[i];
		int r = c->info.role;

		if (c->info.error)
			sum_add(&out[RD_SUM_ERRORS], c, &known[RD_SUM_ERRORS], &unknown[RD_SUM_ERRORS],
				&unreadable[RD_SUM_ERRORS]);
		if (r >= 0 && r < RD_SUM_COUNT && c->info.prio == prio[r])
			sum_add(&out[r], c, &known[r], &unknown[r], &unreadable[r]);
	}
	for (int r = 0; r < RD_SUM_COUNT; r++) {
		struct rd_sum_val *s = &out[r];

		/* A traffic total with a part missing is no total; an error count is a lower bound. */
		if (unreadable[r] && s->total_known) {
			if (r == RD_SUM_ERRORS)
				s->total_partial = true;
			else
				s->total_known = false;
		}
		if (!s->present || !pc->have_prev || known[r] + unknown[r] == 0)
			s->rate_state = RD_RATE_NONE;
		else if (unknown[r] == 0)
			s->rate_state = RD_RATE_OK;
		else if (known[r] && r == RD_SUM_ERRORS)
			s->rate_state = RD_RATE_PARTIAL;
		else
			s->rate_state = RD_RATE_UNKNOWN;
		if (s->rate_state == RD_RATE_UNKNOWN)
			s->rate = 0;
	}
}
