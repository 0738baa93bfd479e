#!/bin/bash
# Bench, VM a (server side): an rdma-selftest server for the whole run, and in
# each round, for each operation, an ib_<op>_lat then an ib_<op>_bw server.
# Driven by bench/vm/selftest-b.sh through the shared scratch directory.
# Each perftest server starts only once b's rdma-selftest run before it is
# over: starting a process under TCG takes this VM's one vCPU for a while,
# and rdma-selftest (which b runs right after each perftest client) would be
# measured against a busy peer while perftest never is.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
DEV=${VM_RDMA_DEV:-rxe0}
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5} OPS=${BENCH_OPS:-send write read ud}
gid=$(vm_gid_index "$DEV" "$VM_IP")
vm_bg st timeout 6000 "$RD_ROOT/build/rdma-selftest" --server -P 18532 --timeout 60 --no-counters
vm_wait_listen 18532 60 && vm_signal st-ready
for round in $(seq "$ROUNDS"); do
	for op in $OPS; do
		pt=$(bench_pt "$op") bs=$(bench_bw_size "$op")
		read -ra px <<<"$(bench_pt_args "$op")"
		vm_bg lat timeout 600 "ib_${pt}_lat" "${px[@]}" -d "$DEV" -x "$gid" -F -s 64 -n "$ITERS" -p 18530
		vm_wait_listen 18530 60 && vm_signal "lat-ready-$op-$round"
		vm_bg_wait lat > /dev/null
		vm_wait "st-lat-done-$op-$round" 600
		vm_bg bw timeout 600 "ib_${pt}_bw" "${px[@]}" -d "$DEV" -x "$gid" -F -s "$bs" -n "$ITERS" -p 18531
		vm_wait_listen 18531 60 && vm_signal "bw-ready-$op-$round"
		vm_bg_wait bw > /dev/null
		vm_wait "st-bw-done-$op-$round" 600
	done
done
vm_wait st-done 6000
vm_bg_kill st
vm_pass "bench servers ran"
