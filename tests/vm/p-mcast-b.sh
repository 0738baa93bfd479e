#!/bin/bash
# Two hosts, VM b (10.10.0.2): multicast receivers of 239.1.1.1 — a server
# printing a line per sender, one printing JSON lines, one --once test — and
# one bound to a second rxe on a dummy netdev (the wrong interface: it
# joins, nothing arrives); mckey's receiver for the reference.  Peer:
# p-mcast-a.sh (the senders).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
G=239.1.1.1

# The wrong interface: rxe1 on dummy0, in a subnet of its own.
if ! { ip link add dummy0 type dummy && ip addr add 10.20.0.2/24 dev dummy0 &&
	ip link set dummy0 up && rdma link add rxe1 type rxe netdev dummy0; }; then
	vm_fail "no second rxe on dummy0"
fi
vm_bg text timeout 300 "$S" --mcast "$G" --server --bind "$VM_IP" --timeout 10
# With -j the joined line is on stderr (stdout is the JSON's alone).
vm_bg lines bash -c 'exec "$@" 2> /tmp/mc-lines.err' - \
	timeout 300 "$S" --mcast "$G" --server --bind "$VM_IP" --timeout 10 -j
vm_bg once bash -c 'exec "$@" 2> /tmp/mc-once.err' - \
	timeout 300 "$S" --mcast "$G" --server --once --bind "$VM_IP" --timeout 60 -j
vm_bg wrong timeout 300 "$S" --mcast "$G" --server --once --bind 10.20.0.2 --timeout 20
vm_bg mckey timeout 120 mckey -m 239.1.1.3 -b "$VM_IP"
# Ready when every receiver that counts what arrives has joined: the three of
# 239.1.1.1 say so (after the join event, their QPs attached), and mckey's
# RoCE v2 join is in eth0's multicast list (rdma_cm joins the IP group too).
# The receiver on the wrong interface waits for nothing to arrive anyway.
joined() { grep -q "joined $G on ${VM_RDMA_DEV:-rxe0} port 1" "$1"; }
vm_check "receivers ready: the server's joined line" vm_retry 120 joined /tmp/vm-bg/text.out
vm_check "receivers ready: the JSON-lines server's joined line (stderr)" vm_retry 120 joined /tmp/mc-lines.err
vm_check "receivers ready: the --once -j receiver's joined line (stderr)" vm_retry 120 joined /tmp/mc-once.err
vm_check "receivers ready: mckey's group 239.1.1.3 on ${VM_NETDEV:-eth0}" \
	vm_retry 120 bash -c "ip maddr show dev ${VM_NETDEV:-eth0} | grep -q 239\.1\.1\.3"
vm_signal mc-ready
vm_bg_wait once > /tmp/mc-once.json; rc=$?
vm_check_eq "--once receiver: exit 0" 0 "$rc" "/tmp/mc-once.json"
vm_check_eq "--once receiver: address, join and receive passed" "address:pass join:pass receive:pass pass" \
	"$(jq -r '"\([.stages[] | "\(.stage):\(.result)"] | join(" ")) \(.result)"' /tmp/mc-once.json)"
vm_check "--once receiver: 100 of 100 from 10.10.0.1, nothing lost, duplicated, corrupted or reordered" \
	jq -e '.tally | .sender == "10.10.0.1" and .ended and .expected == 100 and .received == 100 and .lost == 0 and .duplicates == 0 and .corrupted == 0 and .out_of_order == 0 and .bytes == 64' /tmp/mc-once.json
vm_check_output "--once receiver: the group's MGID" '^::ffff:239\.1\.1\.1$' jq -r .mgid /tmp/mc-once.json
vm_bg_wait wrong > /tmp/mc-wrong.txt; rc=$?
vm_check_eq "receiver on the wrong interface: exit 1" 1 "$rc" "/tmp/mc-wrong.txt"
vm_check_output "receiver on the wrong interface: it joined (rxe1)" "PASS  join .*QPN 0x[0-9a-f]+ joined $G" cat /tmp/mc-wrong.txt
vm_check_output "receiver on the wrong interface: the diagnosis" \
	"FAIL  receive .*joined, but nothing arrived within 20000 ms: no sender yet, a sender on another interface or subnet" cat /tmp/mc-wrong.txt
vm_bg_wait mckey > /tmp/mckey.txt; rc=$?
vm_check_eq "mckey receiver (the reference) between the two VMs: exit 0" 0 "$rc" "/tmp/mckey.txt"
vm_wait mc-sent 300 || vm_fail "the senders never finished"
vm_sleep 3
vm_bg_kill text
vm_bg_kill lines
vm_bg_wait text > /tmp/mc-text.txt
vm_bg_wait lines > /tmp/mc-lines.json
vm_check_output "server: its joined line" "joined $G on ${VM_RDMA_DEV:-rxe0} port 1 \(MGID ::ffff:239\.1\.1\.1\); waiting for senders; Ctrl-C to stop" cat /tmp/mc-text.txt
vm_check_output "server: the first sender's line" \
	"sender 10\.10\.0\.1 QPN 0x[0-9a-f]+: 100 of 100 received, 0 lost, 0 duplicates, 0 corrupted, 0 out of order \(64 B, [0-9.]+ s\)\$" cat /tmp/mc-text.txt
vm_check_output "server: the second sender's line (400 x 1024 B)" \
	"sender 10\.10\.0\.1 QPN 0x[0-9a-f]+: 400 of 400 received, 0 lost, 0 duplicates, 0 corrupted, 0 out of order \(1024 B," cat /tmp/mc-text.txt
vm_check_output "server: the lossy sender's line counts what never came" \
	"sender 10\.10\.0\.1 QPN 0x[0-9a-f]+: [0-9]+ of 200 received, [1-9][0-9]* lost, 0 duplicates, 0 corrupted" cat /tmp/mc-text.txt
vm_check_eq "server -j: one JSON line per sender" "100/100 400/400" \
	"$(jq -r '"\(.received)/\(.expected)"' /tmp/mc-lines.json | head -2 | paste -sd ' ')"
vm_check "server -j: each line names the group and the device; the lossy run's losses add up" \
	jq -se 'length == 3 and all(.[]; .mode == "mcast-receive" and .group == "239.1.1.1" and .port == 1) and .[0].lost == 0 and .[1].lost == 0 and .[2].lost > 0 and .[2].received + .[2].lost == 200 and .[2].expected == 200' /tmp/mc-lines.json
out=$(timeout 60 "$S" --mcast "$G" --server --once --bind 127.0.0.1 --timeout 5 2>&1); rc=$?
vm_check_eq "bound to 127.0.0.1: exit 1" 1 "$rc" @out
vm_check_output "bound to 127.0.0.1: no RDMA device reaches the group, and the fix" \
	"FAIL  address .*no RDMA device reaches $G from 127\.0\.0\.1: give --bind the address of an RDMA netdev" echo "$out"
out=$(timeout 60 "$S" --mcast 10.1.1.1 --timeout 5 2>&1); rc=$?
vm_check_eq "not a multicast group: a usage error" 2 "$rc" @out
vm_check_output "not a multicast group: said before any stage, naming the option" \
	"^rdma-selftest: --mcast: 10\.1\.1\.1 is not a multicast group" echo "$out"
rdma link delete rxe1
ip link del dummy0
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/mc-text.txt /tmp/mc-wrong.txt; jq . /tmp/mc-once.json; fi
