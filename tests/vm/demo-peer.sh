#!/bin/bash
# make demo, VM b (10.10.0.2, not shown): the rdma-selftest server for the
# demo's clients on VM a (demo.sh), until that script is done, and a
# multicast receiver of 239.1.1.1 for its sender.
# shellcheck source=tests/vm/demo-lib.sh
. "$RD_ROOT/tests/vm/demo-lib.sh"
set -u

vm_bg srv timeout 300 rdma-selftest --server --timeout 10
vm_bg mc timeout 280 rdma-selftest --mcast 239.1.1.1 --server --once --bind "$VM_IP" --timeout 250
vm_wait_listen 18515 30 && vm_signal demo-srv-ready
# Joined (its log line) before the sender on VM a may send.
vm_retry 60 grep -q "joined 239.1.1.1" /tmp/vm-bg/mc.out
vm_signal demo-mc-ready
vm_bg_wait mc >/tmp/demo-mc.txt 2>&1
vm_check_output "demo multicast receiver: 100 of 100 from $PEER_IP, none lost" \
	"PASS  receive .*100 of 100 datagrams of 64 B from $PEER_IP \(QPN 0x[0-9a-f]+\): 0 lost" cat /tmp/demo-mc.txt
vm_wait demo-done 280
vm_bg_kill srv
vm_bg_wait srv >/tmp/demo-srv.log 2>&1
vm_check_output "demo server: the clients of VM a completed" "done, [0-9]+ messages" cat /tmp/demo-srv.log
