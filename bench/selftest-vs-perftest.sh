#!/bin/bash
# rdma-selftest against perftest (ib_send_lat, ib_send_bw) on the same two-VM
# soft-RoCE link, same sizes and counts, ROUNDS interleaved rounds, medians
# compared.
# Prints ratios; never fails on speed.  Under qemu TCG both are slow and noisy:
# the ratio, not the absolute figure, is the result.
# usage: bench/selftest-vs-perftest.sh [ITERS=500 [ROUNDS=5]]
set -u
cd "$(dirname "$0")/.." || exit 1
export BENCH_ITERS=${1:-500} BENCH_ROUNDS=${2:-5}
make -s all >/dev/null && tests/vm/prepare.sh build/vm >/dev/null || exit 1
tests/vm/run.sh --pair --name bench-selftest --timeout 3600 \
	bench/vm/selftest-a.sh bench/vm/selftest-b.sh > /tmp/bench-selftest.out 2>&1
rc=$?
grep -h "^BENCH" build/vm/logs/bench-selftest.b.out | sed 's/^BENCH //'
[ $rc -eq 0 ] || { echo "(the VM run failed; see build/vm/logs/bench-selftest.*)"; tail -5 /tmp/bench-selftest.out; }
exit 0
