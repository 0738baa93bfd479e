#!/bin/bash
# Bench, VM a (server side): ib_send_lat, ib_send_bw and rdma-selftest servers in
# turn.  Driven by bench/vm/selftest-b.sh through the shared scratch directory.
. "$RD_ROOT/tests/vm/lib.sh"
set -u
DEV=${VM_RDMA_DEV:-rxe0}
ITERS=${BENCH_ITERS:-2000}
gid=$(vm_gid_index "$DEV" "$VM_IP")
for round in 1 2 3; do
	vm_bg lat timeout 300 ib_send_lat -d "$DEV" -x "$gid" -F -s 64 -n "$ITERS" -p 18530
	vm_wait_listen 18530 60 && vm_signal "lat-ready-$round"
	vm_bg_wait lat > /dev/null
	vm_bg bw timeout 300 ib_send_bw -d "$DEV" -x "$gid" -F -s 65536 -n "$ITERS" -p 18531
	vm_wait_listen 18531 60 && vm_signal "bw-ready-$round"
	vm_bg_wait bw > /dev/null
done
vm_bg st timeout 600 "$RD_ROOT/build/rdma-selftest" --server -P 18532 --timeout 60
vm_wait_listen 18532 60 && vm_signal st-ready
vm_wait st-done 600
vm_bg_kill st
vm_pass "bench servers ran"
