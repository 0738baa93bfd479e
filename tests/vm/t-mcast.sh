#!/bin/bash
# VM scenario: rdma-selftest --mcast without --bind (issue #32).  With no route
# for the group, the one address of the host's one RDMA netdev is the source,
# and the address stage says so; with two RDMA netdevs carrying addresses it
# fails naming both, for --bind; a receiver that cannot join prints its FAIL
# line once.  The address stage is the same code for senders and receivers;
# these run receivers (--once, a short --timeout: nothing is sent, so each ends
# FAIL at receive after joining), because a sender alone does not work in this
# one VM: rxe's datagrams never leave eth0 (its tx_packets stays 0), so they
# are never freed, the QP stops after 80 in flight, and destroying it waits
# ~50 s and warns in __rxe_cleanup -- measured 2026-11-28, the same with a
# send-only join (the pair tier's senders have their receivers on the peer).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

S=$RD_ROOT/build/rdma-selftest
DEV=${VM_RDMA_DEV:-rxe0}
NET=${VM_NETDEV:-eth0}
G=239.1.1.9

# No route for the group: take a default route (and a multicast one) away for a while.
saved_default=$(ip route show default | head -1)
if [ -n "$saved_default" ]; then ip route del default; fi
ip route del 224.0.0.0/4 2>/dev/null
vm_check "no route for $G (the case without --bind is about)" sh -c "! ip route get $G > /dev/null 2>&1"

recv() { timeout 60 "$S" --mcast "$G" --server --once --timeout 2 "$@" 2>&1; }

out=$(recv); rc=$?
echo "$out" > /tmp/mc-nobind.txt
vm_check_output "no --bind, one RDMA netdev: the address stage names the one RDMA address it took" \
	"PASS  address .*$DEV port 1, $VM_IP -> $G \(no --bind: $VM_IP on $NET, the only RDMA address\)\$" cat /tmp/mc-nobind.txt
vm_check_output "no --bind: joined" "PASS  join .*joined $G" cat /tmp/mc-nobind.txt
vm_check_eq "no --bind: nothing was sent, so FAIL at receive (exit 1), not at address" \
	"1 FAIL at receive" "$rc $(grep -o 'FAIL at [a-z]*' /tmp/mc-nobind.txt)"
out=$(timeout 60 "$S" --mcast "$G" --server --once --timeout 2 -j); rc=$?
vm_check_eq "no --bind -j: the address stage passed and says which source" "true true" \
	"$(jq -r --arg w "(no --bind: $VM_IP on $NET" '"\(.stages[0].stage == "address" and .stages[0].result == "pass") \(.stages[0].detail | contains($w))"' <<<"$out" 2>&1)"

# Two RDMA netdevs with addresses: no guess; the message lists both for --bind.
modprobe dummy 2>/dev/null
ip link add dummc type dummy
ip link set dummc up
ip addr add 10.77.0.1/24 dev dummc
rdma link add rxe8 type rxe netdev dummc
two() { "$RD_ROOT/build/rdma-devinfo" -l 2>/dev/null | grep -q rxe8; }
vm_retry 20 two
out=$(recv); rc=$?
echo "$out" > /tmp/mc-two.txt
vm_check_eq "no --bind, two RDMA addresses: exit 1 at address" "1 FAIL at address" \
	"$rc $(grep -o 'FAIL at [a-z]*' /tmp/mc-two.txt)"
vm_check_output "two RDMA addresses: the message names both for --bind" \
	"FAIL  address .*no route for $G and 2 RDMA addresses to send from: give --bind one of ($VM_IP \($NET\), 10\.77\.0\.1 \(dummc\)|10\.77\.0\.1 \(dummc\), $VM_IP \($NET\))" cat /tmp/mc-two.txt
out=$(recv --bind 10.77.0.1)
vm_check_output "--bind picks one of the two: joined on rxe8" "PASS  address .*rxe8 port 1, 10\.77\.0\.1 -> $G\$" echo "$out"
rdma link del rxe8
ip link del dummc

# A receiver that cannot join (--bind an address of no interface here) says so once.
out=$(timeout 60 "$S" --mcast "$G" --server --bind 10.99.99.99 --timeout 5 2>&1); rc=$?
echo "$out" > /tmp/mc-recv-fail.txt
vm_check_eq "receiver that cannot join: exit 1" 1 "$rc" @out
vm_check_eq "receiver that cannot join: one FAIL address line" 1 "$(grep -c 'FAIL  address' /tmp/mc-recv-fail.txt)"

if [ -n "$saved_default" ]; then ip route add $saved_default; fi
vm_check "multicast scenarios: no kernel warnings" vm_dmesg_clean
