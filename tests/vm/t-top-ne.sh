#!/bin/bash
# VM scenario: rdma-top --format node-exporter and --textfile on the real rxe0.
# The scrape parses (promtool, prometheus_client), its node_infiniband_* samples
# are what node_exporter's collector reads from this kernel's sysfs
# (tests/cli/nodeexp-ref.py), its hw counters equal sysfs, and the counters an
# rdma-selftest loopback run moves show up with exactly the sysfs deltas -- in
# a scrape and in the file --textfile keeps rewriting meanwhile.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

T=$RD_ROOT/build/rdma-top
DEV=${VM_RDMA_DEV:-rxe0}
HW=/sys/class/infiniband/$DEV/ports/1/hw_counters
W=$(mktemp -d)
tfpid=
cleanup() {
	[ -n "$tfpid" ] && kill -TERM "$tfpid" 2> /dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# scrape FILE: one node-exporter scrape of DEV, and the sysfs hw counters
# right after it (nothing else moves rxe0's counters between the two).
scrape() {
	"$T" --format node-exporter -d "$DEV" > "$1" 2> "$1.err" || return 1
	for f in "$HW"/*; do
		[ "${f##*/}" = lifespan ] || echo "${f##*/} $(cat "$f")"
	done > "$1.sys"
}
# hw FILE: "counter value" lines of the rdma_hw_stat_total samples
hw() {
	sed -n 's/^rdma_hw_stat_total{counter="\([^"]*\)",device="'"$DEV"'",port="1"} \([0-9]*\)$/\1 \2/p' "$1"
}
val() { awk -v c="$2" '$1 == c { print $2 }' "$1"; }
# (vm_check runs commands with stdin from /dev/null: these read their file themselves)
parses() { "$RD_ROOT/tests/cli/top-metrics-parse.sh" node-exporter < "$1"; }
same_as_node_exporter() { "$RD_ROOT/tests/cli/nodeexp-ref.py" --compare / "$DEV" < "$1"; }

vm_check "scrape before" scrape "$W/a"
vm_check_eq "no warnings" "" "$(cat "$W/a.err")"
vm_check_output "promtool and prometheus_client accept it" "^node-exporter: promtool ok" parses "$W/a"
vm_check_output "node_infiniband_* = node_exporter's rules on this sysfs" "all equal\$" \
	same_as_node_exporter "$W/a"
vm_check_eq "state_id 4, physical_state_id 5" "4 5" \
	"$(sed -n 's/^node_infiniband_state_id{device="'"$DEV"'",port="1"} //p' "$W/a") $(sed -n 's/^node_infiniband_physical_state_id{device="'"$DEV"'",port="1"} //p' "$W/a")"
vm_check_output "rdma_port_info joins rxe0 to eth0" \
	"^rdma_port_info\\{device=\"$DEV\",function=\"none\",link_layer=\"Ethernet\",local_guid=\"0x[0-9a-f]{16}\",netdev=\"$VM_NETDEV\",pci_address=\"\",pf_pci_address=\"\",port=\"1\",transport=\"RoCE\"\\} 1\$" cat "$W/a"
vm_check_eq "every sysfs hw counter, same value" "$(sort "$W/a.sys")" "$(hw "$W/a" | sort)"

# --textfile rewriting every 0.3 s while the self-test runs
"$T" --textfile "$W/rdma.prom" -i 0.3 -d "$DEV" 2> "$W/tf.err" &
tfpid=$!
vm_check "--textfile wrote the file" vm_retry 20 test -s "$W/rdma.prom"

vm_check_output "rdma-selftest loopback passes" "^$DEV port 1: PASS(, with a warning at counters)?\$" \
	timeout 180 "$RD_ROOT/build/rdma-selftest" -d "$DEV" --timeout 30 -n 200 --pings 50
vm_check "scrape after" scrape "$W/b"
vm_check_eq "after: every sysfs hw counter, same value" "$(sort "$W/b.sys")" "$(hw "$W/b" | sort)"
bad=
for c in $(awk '{ print $1 }' "$W/b.sys"); do
	want=$(( $(val "$W/b.sys" "$c") - $(val "$W/a.sys" "$c") ))
	got=$(( $(hw "$W/b" | val /dev/stdin "$c") - $(hw "$W/a" | val /dev/stdin "$c") ))
	[ "$want" = "$got" ] || bad="$bad $c:sysfs+$want,scrape+$got"
	vm_log "delta $c: $got"
done
vm_check_eq "scrape deltas = sysfs deltas for every hw counter" "" "$bad"
sent=$(( $(hw "$W/b" | val /dev/stdin sent_pkts) - $(hw "$W/a" | val /dev/stdin sent_pkts) ))
rcvd=$(( $(hw "$W/b" | val /dev/stdin rcvd_pkts) - $(hw "$W/a" | val /dev/stdin rcvd_pkts) ))
# 50 verified pings and 200 latency round trips alone are 2 x 250 sends each
# way, plus 200 bandwidth messages, plus acks.
vm_check "the self-test moved sent_pkts by at least 700 ($sent)" test "$sent" -ge 700
vm_check_eq "loopback: rcvd_pkts moved as much as sent_pkts" "$sent" "$rcvd"

# The file catches up within a few intervals, and was complete at every read.
until_file() {
	hw "$W/rdma.prom" | sort | cmp -s - <(sort "$W/b.sys")
}
vm_check "--textfile shows the new counters" vm_retry 20 until_file
vm_check "the file parses" parses "$W/rdma.prom"
vm_check_output "the file = node_exporter's rules on this sysfs" "all equal\$" \
	same_as_node_exporter "$W/rdma.prom"
kill -TERM "$tfpid"
wait "$tfpid"
vm_check_eq "--textfile ends with 0 on SIGTERM, no message" "0:" "$?:$(cat "$W/tf.err")"
# Only once it is gone: while it runs, a listing can fall between the
# temporary file's creation and its rename over rdma.prom.
vm_check_eq "--textfile left no temporary file" "rdma.prom" "$(cd "$W" && ls -A | grep -v -e '^a' -e '^b' -e '^tf.err$')"
tfpid=
