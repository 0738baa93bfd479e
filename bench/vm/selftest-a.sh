#!/bin/bash
# Bench, VM a (server side): an rdma-selftest server for the whole run, and in
# each round an ib_send_lat then an ib_send_bw server.  Driven by
# bench/vm/selftest-b.sh through the shared scratch directory.
. "$RD_ROOT/tests/vm/lib.sh"
set -u
DEV=${VM_RDMA_DEV:-rxe0}
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5}
gid=$(vm_gid_index "$DEV" "$VM_IP")
vm_bg st timeout 3000 "$RD_ROOT/build/rdma-selftest" --server -P 18532 --timeout 60
vm_wait_listen 18532 60 && vm_signal st-ready
for round in $(seq "$ROUNDS"); do
	vm_bg lat timeout 600 ib_send_lat -d "$DEV" -x "$gid" -F -s 64 -n "$ITERS" -p 18530
	vm_wait_listen 18530 60 && vm_signal "lat-ready-$round"
	vm_bg_wait lat > /dev/null
	vm_bg bw timeout 600 ib_send_bw -d "$DEV" -x "$gid" -F -s 65536 -n "$ITERS" -p 18531
	vm_wait_listen 18531 60 && vm_signal "bw-ready-$round"
	vm_bg_wait bw > /dev/null
done
vm_wait st-done 3000
vm_bg_kill st
vm_pass "bench servers ran"
