// SPDX-License-Identifier: MIT
/*
 * node_exporter-compatible metrics.  The map below follows the rules of
 * node_exporter's infiniband collector (collector/infiniband_linux.go) and
 * of the procfs reader it uses (sysfs/class_infiniband.go):
 *
 *   - labels {device, port} on every port metric; node_infiniband_info has
 *     {device, board_id, firmware_version, hca_type} and is 1;
 *   - counters/, counters_ext/ and the mlx5 hw_counters it knows, each under
 *     its own name, raw, except the data counters: 4-octet words, x 4 = bytes;
 *   - state_id and physical_state_id: the number in front of ports/N/state and
 *     phys_state; rate_bytes_per_second: the number in front of ports/N/rate
 *     (Gb/s, read as a 32-bit float) x 125000000, truncated;
 *   - lifespan_seconds: hw_counters/lifespan (ms) / 1000, integer division;
 *   - a counter whose file cannot be read ("N/A (no PMA)") is left out.
 *
 * HELP texts are our own wording of what each one counts.  Families are
 * written in name order, samples by device then port, as the Go client
 * library sorts them; values are exact integers.
 */
#define _GNU_SOURCE
#include "topne.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"
#include "stats/stats.h"

#define NE_PREFIX "node_infiniband_"

enum ne_src {
	NE_STATE,	/* ports/N/state */
	NE_PHYS,	/* ports/N/phys_state */
	NE_RATE,	/* ports/N/rate */
	NE_PMA,		/* counters/FILE */
	NE_EXT,		/* counters_ext/FILE */
	NE_HW,		/* hw_counters/FILE */
	NE_LIFESPAN,	/* hw_counters/lifespan */
};

struct ne_family {
	const char *name;	/* without NE_PREFIX */
	const char *file;
	const char *help;
	enum ne_src src;
	unsigned int scale;	/* 4 for the data words */
};

/* { name, src, file, scale, help } in the table below, in reading order */
#define NE(name, src, file, scale, help) { name, file, help, src, scale }

/* counters_ext/ files, in the order of ne_port.ext[] */
static const char *const ext_files[] = {
	"port_multicast_rcv_packets", "port_multicast_xmit_packets", "port_rcv_data_64",
	"port_rcv_packets_64", "port_unicast_rcv_packets", "port_unicast_xmit_packets",
	"port_xmit_data_64", "port_xmit_packets_64",
};

static const struct ne_family families[] = {
	NE("state_id", NE_STATE, NULL, 1,
	  "Logical port state, the number in ports/N/state (1 down, 2 init, 3 armed, 4 active, 5 active defer)."),
	NE("physical_state_id", NE_PHYS, NULL, 1,
	  "Physical link state, the number in ports/N/phys_state (1 sleep, 2 polling, 3 disabled, "
	  "4 port configuration training, 5 link up, 6 link error recovery, 7 phy test)."),
	NE("rate_bytes_per_second", NE_RATE, NULL, 1,
	  "Signalling rate of the port from ports/N/rate, in bytes per second."),

	NE("excessive_buffer_overrun_errors_total", NE_PMA, "excessive_buffer_overrun_errors", 1,
	  "Times the receive buffer overran in OverrunErrors consecutive flow-control periods."),
	NE("link_downed_total", NE_PMA, "link_downed", 1,
	  "Times the link error recovery failed and the link went down."),
	NE("link_error_recovery_total", NE_PMA, "link_error_recovery", 1,
	  "Times the link error recovery completed successfully."),
	NE("local_link_integrity_errors_total", NE_PMA, "local_link_integrity_errors", 1,
	  "Times local physical errors went over the LocalPhyErrors threshold."),
	NE("multicast_packets_received_total", NE_PMA, "multicast_rcv_packets", 1,
	  "Multicast packets received, errors included."),
	NE("multicast_packets_transmitted_total", NE_PMA, "multicast_xmit_packets", 1,
	  "Multicast packets transmitted, errors included."),
	NE("port_constraint_errors_received_total", NE_PMA, "port_rcv_constraint_errors", 1,
	  "Received packets dropped by the switch port's partition or raw-packet enforcement."),
	NE("port_constraint_errors_transmitted_total", NE_PMA, "port_xmit_constraint_errors", 1,
	  "Packets the switch port did not transmit because of partition or raw-packet enforcement."),
	NE("port_data_received_bytes_total", NE_PMA, "port_rcv_data", 4,
	  "Data received on all VLs, in bytes (counters/port_rcv_data counts 4-octet words)."),
	NE("port_data_transmitted_bytes_total", NE_PMA, "port_xmit_data", 4,
	  "Data transmitted on all VLs, in bytes (counters/port_xmit_data counts 4-octet words)."),
	NE("port_discards_received_total", NE_PMA, "port_rcv_discards", 1,
	  "Inbound packets dropped because the port was down or congested."),
	NE("port_discards_transmitted_total", NE_PMA, "port_xmit_discards", 1,
	  "Outbound packets dropped because the port was down or congested."),
	NE("port_errors_received_total", NE_PMA, "port_rcv_errors", 1,
	  "Packets received with an error."),
	NE("port_packets_received_total", NE_PMA, "port_rcv_packets", 1,
	  "Packets received on all VLs, errors included."),
	NE("port_packets_transmitted_total", NE_PMA, "port_xmit_packets", 1,
	  "Packets transmitted on all VLs, errors included."),
	NE("port_transmit_wait_total", NE_PMA, "port_xmit_wait", 1,
	  "Ticks in which the port had data to send but sent nothing for the whole tick."),
	NE("unicast_packets_received_total", NE_PMA, "unicast_rcv_packets", 1,
	  "Unicast packets received, errors included."),
	NE("unicast_packets_transmitted_total", NE_PMA, "unicast_xmit_packets", 1,
	  "Unicast packets transmitted, errors included."),
	NE("port_receive_remote_physical_errors_total", NE_PMA, "port_rcv_remote_physical_errors", 1,
	  "Received packets ending with the bad-packet (EBP) delimiter."),
	NE("port_receive_switch_relay_errors_total", NE_PMA, "port_rcv_switch_relay_errors", 1,
	  "Received packets the switch could not forward."),
	NE("symbol_error_total", NE_PMA, "symbol_error", 1,
	  "Minor link errors seen on any physical lane."),
	NE("vl15_dropped_total", NE_PMA, "VL15_dropped", 1,
	  "Incoming VL15 (subnet management) packets dropped for lack of resources."),

	NE("legacy_multicast_packets_received_total", NE_EXT, "port_multicast_rcv_packets", 1,
	  "Multicast packets received (counters_ext)."),
	NE("legacy_multicast_packets_transmitted_total", NE_EXT, "port_multicast_xmit_packets", 1,
	  "Multicast packets transmitted (counters_ext)."),
	NE("legacy_data_received_bytes_total", NE_EXT, "port_rcv_data_64", 4,
	  "Data received, in bytes (counters_ext/port_rcv_data_64 counts 4-octet words)."),
	NE("legacy_packets_received_total", NE_EXT, "port_rcv_packets_64", 1,
	  "Packets received (counters_ext)."),
	NE("legacy_unicast_packets_received_total", NE_EXT, "port_unicast_rcv_packets", 1,
	  "Unicast packets received (counters_ext)."),
	NE("legacy_unicast_packets_transmitted_total", NE_EXT, "port_unicast_xmit_packets", 1,
	  "Unicast packets transmitted (counters_ext)."),
	NE("legacy_data_transmitted_bytes_total", NE_EXT, "port_xmit_data_64", 4,
	  "Data transmitted, in bytes (counters_ext/port_xmit_data_64 counts 4-octet words)."),
	NE("legacy_packets_transmitted_total", NE_EXT, "port_xmit_packets_64", 1,
	  "Packets transmitted (counters_ext)."),

	NE("lifespan_seconds", NE_LIFESPAN, "lifespan", 1,
	  "How long the driver may serve cached hw counter values, in whole seconds."),
	NE("duplicate_requests_packets_total", NE_HW, "duplicate_request", 1,
	  "Received requests that had already been executed (duplicates)."),
	NE("implied_nak_seq_errors_total", NE_HW, "implied_nak_seq_err", 1,
	  "Read or atomic responses with a PSN above the expected one (implied NAK)."),
	NE("local_ack_timeout_errors_total", NE_HW, "local_ack_timeout_err", 1,
	  "Expiries of the requester's ACK timer that were still within the retry limit."),
	NE("np_cnp_packets_sent_total", NE_HW, "np_cnp_sent", 1,
	  "CNPs sent by the notification point on ECN-marked RoCEv2 traffic."),
	NE("np_ecn_marked_roce_packets_received_total", NE_HW, "np_ecn_marked_roce_packets", 1,
	  "RoCEv2 packets received with ECN congestion experienced."),
	NE("out_of_buffer_drops_total", NE_HW, "out_of_buffer", 1,
	  "Packets dropped because no receive WQE was posted."),
	NE("out_of_sequence_packets_received_total", NE_HW, "out_of_sequence", 1,
	  "Packets received out of sequence."),
	NE("packet_sequence_errors_total", NE_HW, "packet_seq_err", 1,
	  "NAK sequence error packets received, within the retry limit."),
	NE("req_cqes_errors_total", NE_HW, "req_cqe_error", 1,
	  "Requester completions with an error."),
	NE("req_cqes_flush_errors_total", NE_HW, "req_cqe_flush_error", 1,
	  "Requester completions flushed with an error."),
	NE("req_remote_access_errors_total", NE_HW, "req_remote_access_errors", 1,
	  "Remote access errors seen by the requester."),
	NE("req_remote_invalid_request_errors_total", NE_HW, "req_remote_invalid_request", 1,
	  "Remote invalid request errors seen by the requester."),
	NE("resp_cqes_errors_total", NE_HW, "resp_cqe_error", 1,
	  "Responder completions with an error."),
	NE("resp_cqes_flush_errors_total", NE_HW, "resp_cqe_flush_error", 1,
	  "Responder completions flushed with an error."),
	NE("resp_local_length_errors_total", NE_HW, "resp_local_length_error", 1,
	  "Local length errors seen by the responder."),
	NE("resp_remote_access_errors_total", NE_HW, "resp_remote_access_errors", 1,
	  "Remote access errors seen by the responder."),
	NE("rnr_nak_retry_packets_received_total", NE_HW, "rnr_nak_retry_err", 1,
	  "RNR NAK packets received, within the retry limit."),
	NE("roce_adp_retransmits_total", NE_HW, "roce_adp_retrans", 1,
	  "Adaptive retransmissions of RoCE traffic."),
	NE("roce_adp_retransmits_timeout_total", NE_HW, "roce_adp_retrans_to", 1,
	  "RoCE timeouts under adaptive retransmission."),
	NE("roce_slow_restart_used_total", NE_HW, "roce_slow_restart", 1,
	  "Times RoCE slow restart was used."),
	NE("roce_slow_restart_cnps_total", NE_HW, "roce_slow_restart_cnps", 1,
	  "CNPs generated by RoCE slow restart."),
	NE("roce_slow_restart_total", NE_HW, "roce_slow_restart_trans", 1,
	  "Transitions into the RoCE slow restart state."),
	NE("rp_cnp_packets_handled_total", NE_HW, "rp_cnp_handled", 1,
	  "CNPs the reaction point acted on by lowering its send rate."),
	NE("rp_cnp_ignored_packets_received_total", NE_HW, "rp_cnp_ignored", 1,
	  "CNPs the reaction point received and ignored (congestion control off?)."),
	NE("rx_atomic_requests_total", NE_HW, "rx_atomic_requests", 1,
	  "Atomic requests received."),
	NE("rx_dct_connect_requests_total", NE_HW, "rx_dct_connect", 1,
	  "DCT connection requests received."),
	NE("rx_icrc_encapsulated_errors_total", NE_HW, "rx_icrc_encapsulated", 1,
	  "RoCE packets received with an ICRC error."),
	NE("rx_read_requests_total", NE_HW, "rx_read_requests", 1,
	  "RDMA read requests received."),
	NE("rx_write_requests_total", NE_HW, "rx_write_requests", 1,
	  "RDMA write requests received."),
};

const char *rd_nodeexp_name(const char *dir, const char *name)
{
	enum ne_src want;

	if (strcmp(dir, "counters") == 0)
		want = NE_PMA;
	else if (strcmp(dir, "counters_ext") == 0)
		want = NE_EXT;
	else if (strcmp(dir, "hw_counters") == 0)
		want = strcmp(name, "lifespan") == 0 ? NE_LIFESPAN : NE_HW;
	else
		return NULL;
	for (size_t i = 0; i < RD_ARRAY_SIZE(families); i++)
		if (families[i].src == want && strcmp(families[i].file, name) == 0)
			return families[i].name;
	return NULL;
}

/* What one port has for this scrape. */
struct ne_port {
	const struct rd_watch_port *wp;
	const struct rd_device *dev;	/* NULL: not in this scrape's device list */
	const struct rd_port *port;	/* NULL likewise */
	char num[12];			/* the port number as a label value */
	uint64_t ext[RD_ARRAY_SIZE(ext_files)];
	unsigned int ext_have;		/* bit i: ext[i] read */
	uint64_t lifespan;
	bool have_lifespan;
};

/* Sort indexes into families[] by name. */
static int cmp_family(const void *a, const void *b)
{
	return strcmp(families[*(const size_t *)a].name, families[*(const size_t *)b].name);
}

static const struct rd_device *find_device(const struct rd_device_list *devs, const char *name)
{
	for (unsigned int d = 0; devs && d < devs->n; d++)
		if (strcmp(devs->v[d].name, name) == 0)
			return &devs->v[d];
	return NULL;
}

static int cmp_port(const void *a, const void *b)
{
	const struct ne_port *pa = a, *pb = b;
	int c = strcmp(pa->wp->dev, pb->wp->dev);

	return c ? c : strcmp(pa->num, pb->num);
}

static const struct rd_counter *find_ctr(const struct rd_watch_port *wp, enum rd_ctr_src src,
					 const char *name)
{
	for (size_t k = 0; k < wp->ctrs.n; k++) {
		const struct rd_counter *c = &wp->ctrs.v[k];

		if (c->src == src && strcmp(c->name, name) == 0)
			return c->err ? NULL : c;
	}
	return NULL;
}

/* The value of family f for port p; false when the port has none. */
static bool ne_value(const struct ne_family *f, const struct ne_port *p, uint64_t *v)
{
	const struct rd_counter *c;

	switch (f->src) {
	case NE_STATE:
		if (!p->port || !(p->port->known & RD_PORT_STATE))
			return false;
		*v = p->port->state;
		return true;
	case NE_PHYS:
		if (!p->port || !(p->port->known & RD_PORT_PHYS_STATE))
			return false;
		*v = p->port->phys_state;
		return true;
	case NE_RATE:
		if (!p->port || !(p->port->known & RD_PORT_RATE) || !(p->port->rate.gbps >= 0))
			return false;
		/* The collector parses the Gb/s figure as a float32, then truncates. */
		*v = (uint64_t)((double)(float)p->port->rate.gbps * 125000000.0);
		return true;
	case NE_PMA:
	case NE_HW:
		c = find_ctr(p->wp, f->src == NE_PMA ? RD_SRC_PMA : RD_SRC_HW, f->file);
		if (!c)
			return false;
		*v = c->value * f->scale;	/* uint64 arithmetic, as the collector's */
		return true;
	case NE_EXT:
		for (size_t i = 0; i < RD_ARRAY_SIZE(ext_files); i++)
			if (strcmp(ext_files[i], f->file) == 0 && (p->ext_have & (1u << i))) {
				*v = p->ext[i] * f->scale;
				return true;
			}
		return false;
	case NE_LIFESPAN:
		if (!p->have_lifespan)
			return false;
		*v = p->lifespan / 1000;
		return true;
	}
	return false;
}

/* {name="value",...} from a NULL-terminated list of name, value pairs (names in order). */
static void put_labels(FILE *fp, const char *const *kv)
{
	fputc('{', fp);
	for (size_t i = 0; kv[i]; i += 2) {
		fprintf(fp, "%s%s=\"", i ? "," : "", kv[i]);
		rd_metric_label_value(fp, kv[i + 1] ? kv[i + 1] : "");
		fputc('"', fp);
	}
	fputc('}', fp);
}

static void head(FILE *fp, const char *name, const char *type, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static bool is_counter(const struct ne_family *f)
{
	return f->src == NE_PMA || f->src == NE_EXT || f->src == NE_HW;
}

/* Read what the port watch does not keep: counters_ext/ and hw_counters/lifespan. */
static void read_extras(const struct rd_sysroot *sr, struct ne_port *p, struct rd_warnings *w)
{
	const char *dev = p->wp->dev;
	unsigned int port = p->wp->port;
	int ret;

	if (rd_sys_check_dir(sr, "/sys/class/infiniband/%s/ports/%u/counters_ext", dev, port) == 0) {
		for (size_t i = 0; i < RD_ARRAY_SIZE(ext_files); i++) {
			ret = rd_sys_read_u64(sr, &p->ext[i], "/sys/class/infiniband/%s/ports/%u/counters_ext/%s",
					      dev, port, ext_files[i]);
			if (ret == 0)
				p->ext_have |= 1u << i;
			else if (ret != -ENOENT && ret != -EINVAL)	/* EINVAL: "N/A (no PMA)" */
				rd_warn(w, "%s port %u: counters_ext/%s: %s; left out", dev, port,
					ext_files[i], rd_read_strerror(ret));
		}
	}
	ret = rd_sys_read_u64(sr, &p->lifespan, "/sys/class/infiniband/%s/ports/%u/hw_counters/lifespan",
			      dev, port);
	if (ret == 0)
		p->have_lifespan = true;
	else if (ret != -ENOENT)
		rd_warn(w, "%s port %u: hw_counters/lifespan: %s; left out", dev, port,
			rd_read_strerror(ret));
}

static void link_facts(const struct ne_port *p, const char **function, const char **pf)
{
	if (!p->dev || !p->dev->pci[0]) {
		*function = "none";
		*pf = "";
	} else if (p->dev->pf_pci[0]) {
		*function = "vf";
		*pf = p->dev->pf_pci;
	} else {
		*function = "pf";
		*pf = p->dev->pci;
	}
}

int rd_nodeexp_write(FILE *fp, const struct rd_portwatch *pw, const struct rd_device_list *devs,
		     const struct rd_sysroot *sr, struct rd_warnings *w)
{
	size_t sorted[RD_ARRAY_SIZE(families)];
	struct ne_port *ports;
	size_t n = 0;
	uint64_t v;

	ports = calloc(pw->n ? pw->n : 1, sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	for (size_t i = 0; i < pw->n; i++) {
		struct ne_port *p = &ports[n];

		if (pw->v[i]->gone)
			continue;
		p->wp = pw->v[i];
		(void)snprintf(p->num, sizeof(p->num), "%u", p->wp->port);	/* fits */
		p->dev = find_device(devs, p->wp->dev);
		for (unsigned int k = 0; p->dev && k < p->dev->nports; k++)
			if (p->dev->ports[k].num == p->wp->port)
				p->port = &p->dev->ports[k];
		read_extras(sr, p, w);
		n++;
	}
	if (n > 1)
		qsort(ports, n, sizeof(*ports), cmp_port);
	for (size_t i = 0; i < RD_ARRAY_SIZE(families); i++)
		sorted[i] = i;
	qsort(sorted, RD_ARRAY_SIZE(sorted), sizeof(sorted[0]), cmp_family);

	/* node_infiniband_info takes its place in the name order. */
	bool info_done = false;

	for (size_t i = 0; i <= RD_ARRAY_SIZE(sorted); i++) {
		const struct ne_family *f = i < RD_ARRAY_SIZE(sorted) ? &families[sorted[i]] : NULL;
		char name[96];
		bool any = false;

		if (!info_done && (!f || strcmp(f->name, "info") > 0)) {
			info_done = true;
			/* One sample per device (ports are sorted by device). */
			for (size_t k = 0; k < n; k++) {
				const struct rd_device *d = ports[k].dev;

				if (!d || (k > 0 && ports[k - 1].dev == d))
					continue;
				if (!any)
					head(fp, NE_PREFIX "info", "gauge",
					     "Device identity from /sys/class/infiniband/DEVICE (board_id, "
					     "fw_ver, hca_type); always 1.");
				any = true;
				fputs(NE_PREFIX "info", fp);
				put_labels(fp, (const char *const[]){ "board_id", d->board_id, "device", d->name,
								      "firmware_version", d->fw_ver, "hca_type",
								      d->hca_type, NULL });
				fputs(" 1\n", fp);
			}
			any = false;
		}
		if (!f)
			break;
		(void)snprintf(name, sizeof(name), NE_PREFIX "%s", f->name);	/* fits */
		for (size_t k = 0; k < n; k++) {
			if (!ne_value(f, &ports[k], &v))
				continue;
			if (!any)
				head(fp, name, is_counter(f) ? "counter" : "gauge", f->help);
			any = true;
			fputs(name, fp);
			put_labels(fp, (const char *const[]){ "device", ports[k].wp->dev, "port", ports[k].num,
							      NULL });
			fprintf(fp, " %llu\n", (unsigned long long)v);
		}
	}

	/* Ours: every hw counter under one name, and the port facts to join on. */
	{
		bool any = false;

		for (size_t k = 0; k < n; k++) {
			const struct rd_watch_port *wp = ports[k].wp;

			for (size_t c = 0; c < wp->ctrs.n; c++) {
				const struct rd_counter *ctr = &wp->ctrs.v[c];

				if (ctr->src != RD_SRC_HW || ctr->err)
					continue;
				if (!any)
					head(fp, "rdma_hw_stat_total", "counter",
					     "Driver statistic hw_counters/COUNTER of the port, raw "
					     "(what it counts is the driver's; see man rdma-top).");
				any = true;
				fputs("rdma_hw_stat_total", fp);
				put_labels(fp, (const char *const[]){ "counter", ctr->name, "device", wp->dev,
								      "port", ports[k].num, NULL });
				fprintf(fp, " %llu\n", (unsigned long long)ctr->value);
			}
		}
		if (n)
			head(fp, "rdma_port_info", "gauge",
			     "Port facts to join on device and port: netdev, link layer, transport, "
			     "PCI address, SR-IOV function (pf, vf, none) and its PF; always 1.");
		for (size_t k = 0; k < n; k++) {
			const struct ne_port *p = &ports[k];
			const char *function, *pf, *ll;

			link_facts(p, &function, &pf);
			ll = p->port && (p->port->known & RD_PORT_LINK_LAYER) ?
				     rd_link_layer_name(p->port->link_layer) : NULL;
			fputs("rdma_port_info", fp);
			put_labels(fp, (const char *const[]){
				"device", p->wp->dev, "function", function, "link_layer", ll ? ll : "",
				"local_guid", p->wp->guid, "netdev", p->wp->netdev, "pci_address", p->dev ? p->dev->pci : "",
				"pf_pci_address", pf, "port", p->num, "transport",
				p->wp->transport ? p->wp->transport : "", NULL });
			fputs(" 1\n", fp);
		}
	}
	free(ports);
	if (fflush(fp) || ferror(fp))
		return -EIO;
	return 0;
}
