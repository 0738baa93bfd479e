#!/usr/bin/python3
"""What node_exporter's infiniband collector would report for a sysroot.

Written from the rules of node_exporter collector/infiniband_linux.go and
prometheus/procfs sysfs/class_infiniband.go, reading the fixture files
directly (not through rdma-diag), so that it checks rdma-top's
--format node-exporter independently:

  tests/cli/nodeexp-ref.py SYSROOT [DEVICE...]   print the expected samples
  tests/cli/nodeexp-ref.py --compare SYSROOT [DEVICE...] < SCRAPE
      parse SCRAPE with prometheus_client's text parser and compare every
      node_infiniband_* family (type, samples, labels, values) with the
      expectation; prints one summary line, exit 1 on a difference.
"""
import os
import sys

P = "node_infiniband_"
COUNTERS = {  # counters/FILE -> metric, collector rules
    "excessive_buffer_overrun_errors": "excessive_buffer_overrun_errors_total",
    "link_downed": "link_downed_total",
    "link_error_recovery": "link_error_recovery_total",
    "local_link_integrity_errors": "local_link_integrity_errors_total",
    "multicast_rcv_packets": "multicast_packets_received_total",
    "multicast_xmit_packets": "multicast_packets_transmitted_total",
    "port_rcv_constraint_errors": "port_constraint_errors_received_total",
    "port_rcv_data": "port_data_received_bytes_total",
    "port_rcv_discards": "port_discards_received_total",
    "port_rcv_errors": "port_errors_received_total",
    "port_rcv_packets": "port_packets_received_total",
    "port_rcv_remote_physical_errors": "port_receive_remote_physical_errors_total",
    "port_rcv_switch_relay_errors": "port_receive_switch_relay_errors_total",
    "port_xmit_constraint_errors": "port_constraint_errors_transmitted_total",
    "port_xmit_data": "port_data_transmitted_bytes_total",
    "port_xmit_discards": "port_discards_transmitted_total",
    "port_xmit_packets": "port_packets_transmitted_total",
    "port_xmit_wait": "port_transmit_wait_total",
    "symbol_error": "symbol_error_total",
    "unicast_rcv_packets": "unicast_packets_received_total",
    "unicast_xmit_packets": "unicast_packets_transmitted_total",
    "VL15_dropped": "vl15_dropped_total",
}
COUNTERS_EXT = {
    "port_multicast_rcv_packets": "legacy_multicast_packets_received_total",
    "port_multicast_xmit_packets": "legacy_multicast_packets_transmitted_total",
    "port_rcv_data_64": "legacy_data_received_bytes_total",
    "port_rcv_packets_64": "legacy_packets_received_total",
    "port_unicast_rcv_packets": "legacy_unicast_packets_received_total",
    "port_unicast_xmit_packets": "legacy_unicast_packets_transmitted_total",
    "port_xmit_data_64": "legacy_data_transmitted_bytes_total",
    "port_xmit_packets_64": "legacy_packets_transmitted_total",
}
WORDS = {"port_rcv_data", "port_xmit_data", "port_rcv_data_64", "port_xmit_data_64"}
HW = {
    "duplicate_request": "duplicate_requests_packets_total",
    "implied_nak_seq_err": "implied_nak_seq_errors_total",
    "local_ack_timeout_err": "local_ack_timeout_errors_total",
    "np_cnp_sent": "np_cnp_packets_sent_total",
    "np_ecn_marked_roce_packets": "np_ecn_marked_roce_packets_received_total",
    "out_of_buffer": "out_of_buffer_drops_total",
    "out_of_sequence": "out_of_sequence_packets_received_total",
    "packet_seq_err": "packet_sequence_errors_total",
    "req_cqe_error": "req_cqes_errors_total",
    "req_cqe_flush_error": "req_cqes_flush_errors_total",
    "req_remote_access_errors": "req_remote_access_errors_total",
    "req_remote_invalid_request": "req_remote_invalid_request_errors_total",
    "resp_cqe_error": "resp_cqes_errors_total",
    "resp_cqe_flush_error": "resp_cqes_flush_errors_total",
    "resp_local_length_error": "resp_local_length_errors_total",
    "resp_remote_access_errors": "resp_remote_access_errors_total",
    "rnr_nak_retry_err": "rnr_nak_retry_packets_received_total",
    "roce_adp_retrans": "roce_adp_retransmits_total",
    "roce_adp_retrans_to": "roce_adp_retransmits_timeout_total",
    "roce_slow_restart": "roce_slow_restart_used_total",
    "roce_slow_restart_cnps": "roce_slow_restart_cnps_total",
    "roce_slow_restart_trans": "roce_slow_restart_total",
    "rp_cnp_handled": "rp_cnp_packets_handled_total",
    "rp_cnp_ignored": "rp_cnp_ignored_packets_received_total",
    "rx_atomic_requests": "rx_atomic_requests_total",
    "rx_dct_connect": "rx_dct_connect_requests_total",
    "rx_icrc_encapsulated": "rx_icrc_encapsulated_errors_total",
    "rx_read_requests": "rx_read_requests_total",
    "rx_write_requests": "rx_write_requests_total",
}
GAUGES = {"state_id", "physical_state_id", "rate_bytes_per_second", "lifespan_seconds", "info"}


def sysread(path):
    """procfs util.SysReadFile: one read of at most 128 bytes, whitespace trimmed."""
    with open(path, "rb") as f:
        return f.read(128).strip().decode("utf-8", "replace")


def go_uint(s, base0=True):
    """strconv.ParseUint(s, 0 or 10, 64); None when it fails."""
    try:
        if base0 and len(s) > 1 and s[0] == "0" and s[1] in "xXoObB":
            v = int(s, 0)
        elif base0 and len(s) > 1 and s[0] == "0":
            v = int(s, 8)
        elif s.isdigit():
            v = int(s, 10)
        else:
            return None
    except ValueError:
        return None
    return v if 0 <= v < 1 << 64 else None


def state_id(s):
    parts = s.split(":")
    if len(parts) != 2:
        raise ValueError(s)
    return int(parts[0].strip())


def float32(x):
    import struct
    return struct.unpack("f", struct.pack("f", x))[0]


def rate(s):
    first = s.split(" ", 1)
    if len(first) != 2:
        raise ValueError(s)
    return int(float32(float(first[0].strip())) * 125000000)


def collect(root, only):
    cls = os.path.join(root, "sys/class/infiniband")
    out = {}  # (metric, ((label, value)...)) -> value

    def put(name, labels, value):
        out[(P + name, tuple(sorted(labels.items())))] = value

    def counters(d, table, port_labels):
        if not os.path.isdir(d):
            return
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if not os.path.isfile(path) or os.path.islink(path) or f not in table:
                continue
            try:
                v = go_uint(sysread(path))
            except OSError:
                continue
            if v is None:
                continue
            if f in WORDS:
                v = (v * 4) % (1 << 64)
            put(table[f], port_labels, v)

    for dev in sorted(os.listdir(cls)):
        if only and dev not in only:
            continue
        ddir = os.path.join(cls, dev)
        info = {"device": dev, "firmware_version": sysread(os.path.join(ddir, "fw_ver"))}
        for f, label in (("board_id", "board_id"), ("hca_type", "hca_type")):
            p = os.path.join(ddir, f)
            info[label] = sysread(p) if os.path.exists(p) else ""
        put("info", info, 1)
        for port in sorted(os.listdir(os.path.join(ddir, "ports"))):
            pdir = os.path.join(ddir, "ports", port)
            labels = {"device": dev, "port": str(int(port))}
            put("state_id", labels, state_id(open(os.path.join(pdir, "state")).read()))
            put("physical_state_id", labels, state_id(open(os.path.join(pdir, "phys_state")).read()))
            put("rate_bytes_per_second", labels, rate(open(os.path.join(pdir, "rate")).read()))
            counters(os.path.join(pdir, "counters"), COUNTERS, labels)
            counters(os.path.join(pdir, "counters_ext"), COUNTERS_EXT, labels)
            hw = os.path.join(pdir, "hw_counters")
            counters(hw, HW, labels)
            life = os.path.join(hw, "lifespan")
            if os.path.isfile(life):
                v = go_uint(sysread(life))
                if v is not None:
                    put("lifespan_seconds", labels, v // 1000)
    return out


def fmt(key, value):
    name, labels = key
    return "%s{%s} %d" % (name, ",".join('%s="%s"' % kv for kv in labels), value)


def main():
    args = sys.argv[1:]
    compare = args and args[0] == "--compare"
    if compare:
        args = args[1:]
    want = collect(args[0], set(args[1:]))
    if not compare:
        for k in sorted(want):
            print(fmt(k, want[k]))
        return 0
    from prometheus_client.parser import text_string_to_metric_families
    got, types, bad = {}, {}, []
    for fam in text_string_to_metric_families(sys.stdin.read()):
        for s in fam.samples:
            if not s.name.startswith(P):
                continue
            types[s.name] = fam.type
            got[(s.name, tuple(sorted(s.labels.items())))] = s.value
    for k in sorted(set(want) | set(got)):
        if k not in got:
            bad.append("missing: " + fmt(k, want[k]))
        elif k not in want:
            bad.append("extra: " + fmt(k, int(got[k])))
        elif float(want[k]) != got[k]:
            bad.append("value: %s (rdma-top: %r)" % (fmt(k, want[k]), got[k]))
    for name, t in sorted(types.items()):
        short = name[len(P):]
        exp = "gauge" if short in GAUGES else "counter"
        if t != exp:
            bad.append("type: %s is %s, node_exporter: %s" % (name, t, exp))
    for line in bad:
        print(line)
    if bad:
        return 1
    print("node_exporter rules: %d samples in %d families, all equal" %
          (len(want), len({k[0] for k in want})))
    return 0


sys.exit(main())
