// SPDX-License-Identifier: MIT
/*
 * A live sweep: choose the local InfiniBand port, discover the fabric with
 * libibnetdisc, check what it lost by directed route (fabprobe.c), then ask
 * every SM-capable port for SMInfo and every port for its PMA PortCounters
 * through one libibmad port.  Every MAD has a timeout and a retry limit
 * (libibmad's); a node that does not answer is named in fab->slow and the
 * sweep goes on.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "fabapi.h"
#include "fabint.h"

#define MAX_CAS 32

int rd_fab_local_cas(struct rd_strlist *names)
{
	char cas[MAX_CAS][UMAD_CA_NAME_LEN];
	int n = umad_get_cas_names(cas, MAX_CAS);

	int found = 0;

	if (n < 0)
		return n;
	/* Without any device libibumad still names a default ("mthca0"): keep only real ones. */
	for (int i = 0; i < n; i++) {
		umad_ca_t ca;

		if (umad_get_ca(cas[i], &ca) < 0)
			continue;
		umad_release_ca(&ca);
		if (rd_strlist_add(names, cas[i]))
			return -ENOMEM;
		found++;
	}
	return found;
}

/*
 * The local port the MADs leave from: the named CA (or every CA in turn) and
 * port (or its first InfiniBand port, Active ones first).  An Ethernet-only
 * HCA has no subnet to sweep: say so rather than "no CA".
 */
static int choose_port(const struct rd_fab_sweep_opts *o, char *ca_out, int *port_out,
		       char *why, size_t why_len)
{
	char cas[MAX_CAS][UMAD_CA_NAME_LEN];
	int n = umad_get_cas_names(cas, MAX_CAS), best = 0, real = 0;
	char eth[256] = "";

	if (n <= 0) {
		snprintf(why, why_len, "no RDMA device (umad found none: is the HCA's driver and "
			 "ib_umad loaded?)");
		return -ENODEV;
	}
	for (int i = 0; i < n && !best; i++) {
		umad_ca_t ca;

		if (o->ca && strcmp(o->ca, cas[i]) != 0)
			continue;
		if (umad_get_ca(cas[i], &ca) < 0)
			continue;
		real++;
		for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
			umad_port_t *up = ca.ports[p];
			bool ib;

			if (!up || (o->ca_port && p != o->ca_port))
				continue;
			/* An empty link_layer is an old kernel's InfiniBand port. */
			ib = !up->link_layer[0] || strcmp(up->link_layer, "InfiniBand") == 0 ||
			     strcmp(up->link_layer, "IB") == 0;
			if (!ib) {
				size_t l = strlen(eth);

				rd_snprintf(eth + l, sizeof(eth) - l, "%s%s port %d is %s", l ? ", " : "",
					 cas[i], p, up->link_layer);
				continue;
			}
			if (!best || up->state == 4) {
				rd_strlcpy(ca_out, cas[i], UMAD_CA_NAME_LEN);
				*port_out = p;
				best = up->state == 4 ? 2 : 1;
			}
			if (best == 2)
				break;
		}
		umad_release_ca(&ca);
	}
	if (!best && !real && !o->ca) {
		snprintf(why, why_len, "no RDMA device with a MAD interface (is the HCA's driver and "
			 "ib_umad loaded? /sys/class/infiniband_mad lists them)");
		return -ENODEV;
	}
	if (!best) {
		if (eth[0])
			snprintf(why, why_len, "no InfiniBand port (%s: RoCE and iWARP have no "
				 "subnet to sweep)", eth);
		else
			snprintf(why, why_len, "no InfiniBand port%s%s%s", o->ca ? " on " : "",
				 o->ca ? o->ca : "", o->ca_port ? " with that number" : "");
		return -ENODEV;
	}
	return 0;
}

/* One line of a sysfs attribute, its newline dropped; false if unreadable. */
static bool read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	(void)fclose(f);	/* read-only: nothing to lose */
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/*
 * The device node of CA's PORT: the umadN of /sys/class/infiniband_mad
 * whose ibdev and port name them (what libibumad opens).  -ENOENT if none.
 */
static int umad_node(const char *ca, int port, char *path, size_t len)
{
	static const char cls[] = "/sys/class/infiniband_mad";
	DIR *d = opendir(cls);
	struct dirent *e;
	int ret = -ENOENT;

	if (!d)
		return -errno;
	while (ret == -ENOENT && (e = readdir(d)) != NULL) {
		char dir[PATH_MAX], ibdev[UMAD_CA_NAME_LEN + 2], num[16];
		uint64_t n;

		if (strncmp(e->d_name, "umad", 4) != 0 ||
		    (size_t)snprintf(dir, sizeof(dir), "%s/%s", cls, e->d_name) >= sizeof(dir))
			continue;
		if (read_attr(dir, "ibdev", ibdev, sizeof(ibdev)) && strcmp(ibdev, ca) == 0 &&
		    read_attr(dir, "port", num, sizeof(num)) && rd_parse_u64(num, &n) == 0 &&
		    n == (uint64_t)port &&
		    (size_t)snprintf(path, len, "/dev/infiniband/%s", e->d_name) < len)
			ret = 0;
	}
	closedir(d);
	return ret;
}

/*
 * Opening the umad port is where permission fails: say it in those words.
 * libibumad's umad_open_port answers -EIO whatever open(2) said, so on a
 * failure the port's device node is opened here again for the reason.
 */
static int check_access(const char *ca, int port, char *why, size_t why_len)
{
	char node[PATH_MAX] = "its umad device";
	int fd = umad_open_port(ca, port), err = -fd;

	if (fd >= 0) {
		umad_close_port(fd);
		return 0;
	}
	if (umad_node(ca, port, node, sizeof(node)) == 0) {
		int again = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);

		if (again >= 0)
			close(again);	/* it opens now: keep libibumad's word */
		else
			err = errno;
	}
	if (err == EACCES || err == EPERM)
		snprintf(why, why_len, "%s port %d: no permission to open %s (run as root, or in "
			 "the group that owns it, usually rdma)", ca, port, node);
	else
		snprintf(why, why_len, "%s port %d: cannot open %s: %s (is ib_umad loaded?)", ca,
			 port, node, strerror(err));
	return -err;
}

/*
 * libibnetdisc reports what went wrong on stderr as it goes: keep those
 * lines (a memfd stands in for fd 2 during the call) so that the tool
 * reports them with the rest, never drops them.
 */
static int capture_begin(int *saved)
{
	int mfd = memfd_create("rd-fabric-discovery", MFD_CLOEXEC);

	*saved = -1;
	if (mfd < 0)
		return -1;
	fflush(stderr);
	*saved = dup(STDERR_FILENO);
	if (*saved < 0 || dup2(mfd, STDERR_FILENO) < 0) {
		if (*saved >= 0)
			close(*saved);
		*saved = -1;
		close(mfd);
		return -1;
	}
	return mfd;
}

/*
 * The lines discovery wrote: the first 200 (each up to 511 bytes) are kept,
 * plenty to name the fault; every line is read for the count of queries that
 * got no answer, which libibnetdisc does not keep: one line "umad (DR path
 * ... Attr 0x11:0) bad status 110; Connection timed out" for each (a "mad
 * (...) bad status" line is a node that answered with an error).
 */
static unsigned int capture_end(int mfd, int saved, struct rd_strlist *msgs)
{
	unsigned int unanswered = 0;
	struct stat st;
	const char *d;

	if (mfd < 0)
		return 0;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	if (fstat(mfd, &st) < 0 || st.st_size <= 0) {
		close(mfd);
		return 0;
	}
	d = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, mfd, 0);
	close(mfd);
	if (d == MAP_FAILED)
		return 0;
	for (size_t off = 0, len = (size_t)st.st_size; off < len;) {
		const char *l = d + off, *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off;
		char line[512];

		off += n + (nl != NULL);
		if (!n)
			continue;
		rd_strlcpy(line, l, n < sizeof(line) ? n + 1 : sizeof(line));
		if (strstr(line, "umad (") && strstr(line, "bad status"))
			unanswered++;
		if (msgs->n < 200)
			rd_strlist_add(msgs, line);
	}
	munmap((void *)d, (size_t)st.st_size);
	return unanswered;
}

/* The PortCounters fields, by counter. */
static const int pc_fields[RD_FAB_NCTRS] = {
	[RD_FAB_SYMBOL_ERR] = IB_PC_ERR_SYM_F,
	[RD_FAB_LINK_RECOVERY] = IB_PC_LINK_RECOVERS_F,
	[RD_FAB_LINK_DOWNED] = IB_PC_LINK_DOWNED_F,
	[RD_FAB_RCV_ERR] = IB_PC_ERR_RCV_F,
	[RD_FAB_RCV_REMOTE_PHYS] = IB_PC_ERR_PHYSRCV_F,
	[RD_FAB_LOCAL_INTEGRITY] = IB_PC_ERR_LOCALINTEG_F,
	[RD_FAB_EXCESS_OVERRUN] = IB_PC_ERR_EXCESS_OVR_F,
	[RD_FAB_XMIT_DISCARDS] = IB_PC_XMT_DISCARDS_F,
	[RD_FAB_VL15_DROPPED] = IB_PC_VL15_DROPPED_F,
	[RD_FAB_SWITCH_RELAY] = IB_PC_ERR_SWITCH_REL_F,
	[RD_FAB_XMIT_CONSTRAINT] = IB_PC_ERR_XMTCONSTR_F,
	[RD_FAB_RCV_CONSTRAINT] = IB_PC_ERR_RCVCONSTR_F,
	[RD_FAB_XMIT_WAIT] = IB_PC_XMT_WAIT_F,
	[RD_FAB_XMIT_DATA] = IB_PC_XMT_BYTES_F,
	[RD_FAB_RCV_DATA] = IB_PC_RCV_BYTES_F,
	[RD_FAB_XMIT_PKTS] = IB_PC_XMT_PKTS_F,
	[RD_FAB_RCV_PKTS] = IB_PC_RCV_PKTS_F,
};

/* Whether a port's counters are worth asking for: linked, with a LID to ask at. */
static bool countable(const struct rd_fab *fab, const struct rd_fab_node *n, int p)
{
	const struct rd_fab_port *pt = &n->ports[p];

	return pt->has_info && pt->phys == RD_FAB_PHYS_LINKUP && rd_fab_mad_lid(n, p) &&
	       (!fab->picked || pt->picked);
}

static void pma_got(struct rd_fab *fab, const struct rd_fab_mad_req *r, const uint8_t *data, void *arg)
{
	struct rd_fab_port *pt = &fab->nodes[r->node].ports[r->port];
	int round = *(const int *)arg;

	for (int c = 0; c < RD_FAB_NCTRS; c++)
		pt->ctr[round][c] = mad_get_field((void *)data, 0, (enum MAD_FIELDS)pc_fields[c]);
	pt->ctr_read[round] = true;
}

static void pma_lost(struct rd_fab *fab, const struct rd_fab_mad_req *r, bool timed_out, void *arg)
{
	(void)fab, (void)r, (void)timed_out, (void)arg;	/* the port's counters stay unread */
}

/* PortCounters of every linked port, many queries in flight (fabwin.c). */
static void read_counters_pma(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout,
			      unsigned int retries, int round)
{
	struct rd_fab_mad_kind k = { IB_PERFORMANCE_CLASS, IB_GSI_PORT_COUNTERS, "PortCounters",
				     pma_got, pma_lost, &round };
	struct rd_fab_mad_req *v;
	size_t n = 0;

	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++)
			n += countable(fab, &fab->nodes[i], p);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		fab->mad_fail += (unsigned int)n;
		return;
	}
	n = 0;
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++)
			if (countable(fab, &fab->nodes[i], p))
				v[n++] = (struct rd_fab_mad_req){ (int)i, p, 0, 0, 0 };
	rd_fab_mad_window(fab, mp, &k, v, n, timeout, retries);
	free(v);
}

/*
 * The 64-bit data counters for --format, where a node's PMA has
 * PortCountersExtended (ClassPortInfo CapabilityMask: IsExtendedWidthSupported,
 * bit 9, or its NoIETF variant, bit 10).  One query at a time.
 */
static void read_data_counters(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout, int round)
{
	static const int ext_fields[][2] = {
		{ RD_FAB_XMIT_DATA, IB_PC_EXT_XMT_BYTES_F },
		{ RD_FAB_RCV_DATA, IB_PC_EXT_RCV_BYTES_F },
		{ RD_FAB_XMIT_PKTS, IB_PC_EXT_XMT_PKTS_F },
		{ RD_FAB_RCV_PKTS, IB_PC_EXT_RCV_PKTS_F },
	};

	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct rd_fab_node *n = &fab->nodes[i];
		bool asked = false, ext = false;

		for (int p = 1; p <= n->nports; p++) {
			struct rd_fab_port *pt = &n->ports[p];
			uint8_t buf[1024] = { 0 };
			ib_portid_t id = { 0 };

			if (!pt->ctr_read[round])
				continue;
			ib_portid_set(&id, rd_fab_mad_lid(n, p), 0, 0);
			if (!asked) {
				fab->mads++;
				asked = true;
				if (pma_query_via(buf, &id, 0, timeout, CLASS_PORT_INFO, mp))
					ext = mad_get_field(buf, 0, IB_CPI_CAPMASK_F) & (3u << 9);
				else
					rd_fab_add_slow(fab, (int)i, p, "ClassPortInfo");
				memset(buf, 0, sizeof(buf));
			}
			if (!ext)
				break;
			fab->mads++;
			if (!pma_query_via(buf, &id, p, timeout, IB_GSI_PORT_COUNTERS_EXT, mp)) {
				rd_fab_add_slow(fab, (int)i, p, "PortCountersExtended");
				continue;
			}
			for (size_t k = 0; k < RD_ARRAY_SIZE(ext_fields); k++)
				pt->ctr[round][ext_fields[k][0]] =
					mad_get_field64(buf, 0, (enum MAD_FIELDS)ext_fields[k][1]);
			pt->ctr_ext = true;
		}
	}
}

static void read_counters(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout,
			  unsigned int retries, int round, bool data)
{
	read_counters_pma(fab, mp, timeout, retries, round);
	if (data)
		read_data_counters(fab, mp, timeout, round);
}

/* --reset: every counter of PortCounters (CounterSelect and CounterSelect2 all ones) to 0. */
static void reset_counters(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout, int round)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; p <= n->nports; p++) {
			uint8_t buf[1024] = { 0 };
			ib_portid_t id = { 0 };

			if (!n->ports[p].ctr_read[round])
				continue;
			ib_portid_set(&id, rd_fab_mad_lid(n, p), 0, 0);
			fab->mads++;
			if (performance_reset_via(buf, &id, p, 0, timeout, IB_GSI_PORT_COUNTERS, mp))
				fab->n_reset++;
			else
				rd_fab_add_slow(fab, (int)i, p, "PortCounters reset");
		}
	}
}

static void add_sm(struct rd_fab *fab, uint16_t lid, int node, int port)
{
	struct rd_fab_sm *s;

	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab->sms[i].lid == lid)
			return;
	s = realloc(fab->sms, (fab->n_sms + 1) * sizeof(*fab->sms));
	if (!s)
		return;
	fab->sms = s;
	s = &fab->sms[fab->n_sms++];
	memset(s, 0, sizeof(*s));
	s->lid = lid;
	s->node = node;
	s->port = port;
}

static void read_sms(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout)
{
	/* Every port that says it runs an SM, and every LID a port names as its SM. */
	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct rd_fab_node *n = &fab->nodes[i];

		for (int p = n->type == RD_FAB_SWITCH ? 0 : 1; p <= (n->type == RD_FAB_SWITCH ? 0 : n->nports); p++)
			if (n->ports[p].has_info && n->ports[p].cap_mask & RD_FAB_CAP_IS_SM &&
			    rd_fab_mad_lid(n, p))
				add_sm(fab, rd_fab_mad_lid(n, p), (int)i, p);
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 0; p <= n->nports; p++)
			if (n->ports[p].has_info && n->ports[p].sm_lid &&
			    n->ports[p].state == RD_FAB_ACTIVE)
				add_sm(fab, n->ports[p].sm_lid, -1, -1);
	}
	for (size_t k = 0; k < fab->n_sms; k++) {
		struct rd_fab_sm *s = &fab->sms[k];
		uint8_t buf[1024] = { 0 };
		ib_portid_t id = { 0 };

		ib_portid_set(&id, s->lid, 0, 0);
		fab->mads++;
		if (!smp_query_via(buf, &id, IB_ATTR_SMINFO, 0, timeout, mp)) {
			snprintf(s->why, sizeof(s->why), "no answer to SMInfo at LID %u", s->lid);
			fab->mad_fail++;
			continue;
		}
		s->answered = true;
		s->guid = mad_get_field64(buf, 0, IB_SMINFO_GUID_F);
		s->act_count = mad_get_field(buf, 0, IB_SMINFO_ACT_F);
		s->priority = mad_get_field(buf, 0, IB_SMINFO_PRIO_F);
		s->state = mad_get_field(buf, 0, IB_SMINFO_STATE_F);
		/* An SM found only through a port's SMLid: find its port by GUID. */
		for (size_t i = 0; i < fab->n_nodes && s->node < 0; i++)
			for (int p = 0; p <= fab->nodes[i].nports; p++)
				if (fab->nodes[i].ports[p].has_info && fab->nodes[i].ports[p].guid == s->guid) {
					s->node = (int)i;
					s->port = p;
					break;
				}
	}
}

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int rd_fab_sweep(struct rd_fab *fab, const struct rd_fab_sweep_opts *o, char *why, size_t why_len)
{
	struct ibnd_config cfg = { 0 };
	int mgmt[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS };
	char ca[UMAD_CA_NAME_LEN] = "";
	unsigned int timeout = o->timeout_ms ? o->timeout_ms : 200;
	struct ibmad_port *mp = NULL;
	ibnd_fabric_t *f;
	int port = 0, ret, mfd, saved;
	unsigned int unanswered;

	memset(fab, 0, sizeof(*fab));
	fab->from_node = fab->from_port = -1;
	if (umad_init() < 0) {
		snprintf(why, why_len, "cannot initialise libibumad (is ib_umad loaded?)");
		return -ENODEV;
	}
	ret = choose_port(o, ca, &port, why, why_len);
	if (ret)
		return ret;
	ret = check_access(ca, port, why, why_len);
	if (ret)
		return ret;
	cfg.timeout_ms = timeout;
	cfg.retries = o->retries;	/* the tool's default is 3; 0 is "no retry" */
	cfg.max_smps = 8;	/* SMPs in flight during discovery */
	mfd = capture_begin(&saved);
	f = ibnd_discover_fabric(ca, port, NULL, &cfg);
	unanswered = capture_end(mfd, saved, &fab->msgs);
	if (!f) {
		snprintf(why, why_len, "%s port %d: discovery failed%s%s", ca, port,
			 fab->msgs.n ? ": " : " (is the port Active and a subnet manager running?)",
			 fab->msgs.n ? fab->msgs.v[fab->msgs.n - 1] : "");
		rd_fab_free(fab);
		return -EIO;
	}
	fab->ibnd = f;
	fab->live = true;
	fab->mads = f->total_mads_used;
	fab->mad_fail = unanswered;	/* discovery's; every query after it adds its own */
	ret = rd_fab_from_ibnd(fab, f);
	if (ret) {
		snprintf(why, why_len, "%s", strerror(-ret));
		rd_fab_free(fab);
		return ret;
	}
	if (!o->counters && !o->sms && !o->routes && !rd_fab_probe_wanted(fab))
		return 0;
	/* Under ibsim this port must be opened after discovery (see the fabric notes). */
	mp = mad_rpc_open_port(ca, port, mgmt, (int)RD_ARRAY_SIZE(mgmt));
	if (!mp) {
		snprintf(why, why_len, "%s port %d: cannot open a MAD port for SMInfo and counters",
			 ca, port);
		rd_fab_free(fab);
		return -EIO;
	}
	mad_rpc_set_timeout(mp, (int)timeout);
	mad_rpc_set_retries(mp, (int)cfg.retries);
	rd_fab_probe(fab, mp, timeout);
	if (o->routes) {
		rd_fab_read_lfts(fab, mp, timeout, cfg.retries);
		fab->have_routes = true;
	}
	if (o->pick) {
		o->pick(fab, o->pick_arg);
		fab->picked = true;
	}
	if (o->sms) {
		read_sms(fab, mp, timeout);
		fab->have_sms = true;
	}
	if (o->counters) {
		read_counters(fab, mp, timeout, cfg.retries, 0, o->data);
		if (o->interval > 0) {
			sleep_seconds(o->interval);
			read_counters(fab, mp, timeout, cfg.retries, 1, o->data);
			fab->interval = o->interval;
		}
		if (o->reset)
			reset_counters(fab, mp, timeout, o->interval > 0 ? 1 : 0);
		fab->have_ctrs = true;
	}
	mad_rpc_close_port(mp);
	return 0;
}
