#!/bin/bash
# Two hosts, VM a (10.10.0.1): the rdma-selftest server, killed and cut off on cue.
# Peer: p-selftest-b.sh.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
DEV=${VM_RDMA_DEV:-rxe0}

vm_bg srv1 timeout 600 "$S" --server --timeout 5
vm_wait_listen 18515 30 && vm_signal st-srv-ready
vm_wait st-kill-now 300 && pkill -KILL -f -- "--server --timeout 5"
vm_bg_wait srv1 > /tmp/srv1.log 2>&1
vm_signal st-killed

vm_bg srv2 timeout 600 "$S" --server --timeout 5
vm_wait_listen 18515 30 && vm_signal st-srv2-ready
if vm_wait st-linkdown-now 300; then
	ip link set "$VM_NETDEV" down
	vm_wait st-linkdown-done 300
	ip link set "$VM_NETDEV" up
	vm_retry 30 sh -c "grep -q ACTIVE /sys/class/infiniband/$DEV/ports/1/state"
	vm_retry 30 vm_gid_index "$DEV" "$VM_IP"
	vm_signal st-link-back
fi
vm_wait st-done 600
vm_bg_kill srv2
vm_bg_wait srv2 > /tmp/srv2.log 2>&1
# rxe (6.1) stops answering rdma_cm connection requests after that link cut
# with a connection up (verbs still work) until the device is re-created:
# leave a working rxe0 for the scenarios after this one.
renew_rxe() {
	timeout 30 rdma link delete "$DEV" && timeout 30 rdma link add "$DEV" type rxe netdev "$VM_NETDEV" &&
		vm_retry 30 grep -q ACTIVE "/sys/class/infiniband/$DEV/ports/1/state" &&
		vm_retry 30 vm_gid_index "$DEV" "$VM_IP"
}
vm_check "$DEV re-created after the link cut" renew_rxe
vm_check_output "server logged the client that died mid-test" "session failed" cat /tmp/srv1.log /tmp/srv2.log
vm_check_output "server logged completed sessions" "done, [0-9]+ messages" cat /tmp/srv1.log
vm_check_output "server served a client after the kill" "done, [0-9]+ messages" cat /tmp/srv2.log
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/srv1.log /tmp/srv2.log; fi
