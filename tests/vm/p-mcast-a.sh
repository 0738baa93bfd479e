#!/bin/bash
# Two hosts, VM a (10.10.0.1): multicast senders to 239.1.1.1 — 100 x 64 B,
# then 400 x 1024 B with -j, a size above the path MTU, 200 through netem's
# 10% loss — and mckey's
# sender for the reference.  Peer: p-mcast-b.sh (the receivers).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
G=239.1.1.1

vm_wait mc-ready 180 || vm_fail "the receivers on $PEER_IP never got ready"
out=$(timeout 120 "$S" --mcast "$G" --bind "$VM_IP" --timeout 10 2>&1); rc=$?
echo "$out" > /tmp/mc-send.txt
vm_check_eq "sender: exit 0" 0 "$rc" @out
vm_check_output "sender: address stage" "PASS  address .*${VM_RDMA_DEV:-rxe0} port 1, $VM_IP -> $G\$" cat /tmp/mc-send.txt
vm_check_output "sender: joined, with the MGID and the Q_Key" \
	"PASS  join .*QPN 0x[0-9a-f]+ joined $G \(MGID ::ffff:239\.1\.1\.1\), Q_Key 0x[0-9a-f]+, path MTU 1024\$" cat /tmp/mc-send.txt
vm_check_output "sender: 100 sent, then the end markers" "PASS  send .*100 datagrams of 64 B sent to $G, then 3 end markers" cat /tmp/mc-send.txt
vm_check_output "sender: verdict" "^rdma-selftest: PASS\$" cat /tmp/mc-send.txt
vm_sleep 2
out=$(timeout 120 "$S" --mcast "$G" --bind "$VM_IP" -n 400 -s 1024 --timeout 10 -j); rc=$?
vm_check_eq "sender -n 400 -s 1024 -j: exit 0, pass" "0 pass" "$rc $(jq -r .result <<<"$out")"
vm_check_eq "sender -j: mode, group, stages" "mcast-send 239.1.1.1 address join send" \
	"$(jq -r '"\(.mode) \(.group) \([.stages[].stage] | join(" "))"' <<<"$out")"
out=$(timeout 120 "$S" --mcast "$G" --bind "$VM_IP" -s 2048 --timeout 10 2>&1); rc=$?
vm_check_eq "sender -s 2048 on a 1024 port: exit 1" 1 "$rc" @out
vm_check_output "sender -s 2048: the one-packet rule" "FAIL  send .*a datagram is one packet: 2048 B is above the path MTU 1024" echo "$out"
# Loss for real: netem drops a tenth of what this VM sends; each receiver
# counts what never came (and the sender cannot know: it passes).
tc qdisc add dev "${VM_NETDEV:-eth0}" root netem loss 10% || vm_fail "no netem qdisc"
out=$(timeout 120 "$S" --mcast "$G" --bind "$VM_IP" -n 200 --timeout 10 2>&1); rc=$?
tc qdisc del dev "${VM_NETDEV:-eth0}" root
vm_check_eq "sender through 10% loss: exit 0 (it cannot see the receivers)" 0 "$rc" @out
vm_signal mc-sent
# The reference: mckey's sender to mckey's receiver on the peer.
out=$(timeout 120 mckey -m 239.1.1.3 -b "$VM_IP" -s 2>&1); rc=$?
vm_check_eq "mckey sender (the reference) between the two VMs: exit 0" 0 "$rc" @out
