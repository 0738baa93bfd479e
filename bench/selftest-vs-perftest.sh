#!/bin/bash
# rdma-selftest against perftest on the same two-VM soft-RoCE link, per
# operation: --op send vs ib_send_lat/ib_send_bw, --op write vs
# ib_write_lat/ib_write_bw, --op read vs ib_read_lat/ib_read_bw, --qp ud vs
# ib_send_lat/ib_send_bw -c UD (1024 B: one packet); same sizes and
# counts, ROUNDS interleaved rounds, medians compared; then the same in
# loopback on one VM (10 x ITERS round trips).  Prints ratios; never fails on
# speed.  Under qemu TCG both are slow and noisy: the ratio, not the absolute
# figure, is the result.
# Both tools connect their QPs the same way: BENCH_CONNECT=verbs (default:
# perftest's TCP exchange against rdma-selftest --verbs) or cm (rdma_cm on
# both: perftest -R against rdma-selftest's default); see bench/vm/lib.sh.
# Odd rounds run perftest first, even rounds rdma-selftest first.  READ
# latency has a third figure, the floor (bench/read-floor.c: a bare program
# speaking perftest's exchange), between the VMs and in loopback, unless
# BENCH_FLOOR=0.  The rdma-selftest
# server on VM a serves the whole run (BENCH_ST_SERVER=session, default) or,
# like perftest's servers, is a fresh process for each run (run).
# BENCH_LOCAL=1: in the one-VM part, rdma-selftest as two processes (server
# and client through 127.0.0.1), as perftest runs there, not its loopback.
# usage: [BENCH_CONNECT=verbs|cm] [BENCH_LOOPBACK=0] [BENCH_LOCAL=1] [BENCH_FLOOR=0] [BENCH_ST_SERVER=session|run] [BENCH_BOOTS=1]
#        bench/selftest-vs-perftest.sh [ITERS=500 [ROUNDS=5 [OPS="send write read ud"]]]
set -u
cd "$(dirname "$0")/.." || exit 1
export BENCH_ITERS=${1:-500} BENCH_ROUNDS=${2:-5} BENCH_OPS=${3:-send write read ud}
export BENCH_CONNECT=${BENCH_CONNECT:-verbs}
export BENCH_ST_SERVER=${BENCH_ST_SERVER:-session}
case $BENCH_CONNECT in verbs | cm) ;; *) echo "BENCH_CONNECT: verbs or cm, not '$BENCH_CONNECT'" >&2; exit 2 ;; esac
case $BENCH_ST_SERVER in session | run) ;; *) echo "BENCH_ST_SERVER: session or run, not '$BENCH_ST_SERVER'" >&2; exit 2 ;; esac
# the tools, and the READ floor (make bench-build: bench/*.c with the kit's flags)
make -s all bench-build >/dev/null && tests/vm/prepare.sh build/vm >/dev/null || exit 1
# BENCH_BOOTS=N: the whole two-VM run N times, each in a fresh boot of the
# pair, then every ratio again over the rounds of all boots (and per boot):
# whatever one boot of the emulated VMs carries for its whole life (where
# the host put its vCPU threads, how its clock was calibrated) falls on one
# boot's rounds alone, and shows as a spread between the boots.
boots=${BENCH_BOOTS:-1}
case $boots in '' | *[!0-9]* | 0) echo "BENCH_BOOTS: a positive number, not '$boots'" >&2; exit 2 ;; esac
all=$(mktemp -d) || exit 1
trap 'rm -rf "$all"' EXIT
for boot in $(seq "$boots"); do
	name=bench-selftest
	[ "$boots" = 1 ] || { name=bench-selftest-$boot; echo "boot $boot of $boots:"; }
	tests/vm/run.sh --pair --name "$name" --timeout 7200 \
		bench/vm/selftest-a.sh bench/vm/selftest-b.sh > "/tmp/$name.out" 2>&1
	rc=$?
	grep -h "^BENCH" "build/vm/logs/$name.b.out" | sed 's/^BENCH //'
	grep -h "^BENCH round" "build/vm/logs/$name.b.out" > "$all/rounds-$boot"
	[ $rc -eq 0 ] || { echo "(the VM run failed; see build/vm/logs/$name.*)"; tail -5 "/tmp/$name.out"; }
done
if [ "$boots" -gt 1 ]; then
	RD_ROOT=$PWD
	# shellcheck source=bench/vm/lib.sh
	. bench/vm/lib.sh
	echo "all $boots boots, $(cat "$all"/rounds-* | wc -l) rounds (a round: one line per operation):"
	for boot in $(seq "$boots"); do bench_round_files "$all/b$boot" < "$all/rounds-$boot"; done
	for op in $BENCH_OPS; do
		for boot in $(seq "$boots"); do
			b=$all/b$boot
			[ -s "$b/pl-$op" ] || continue
			printf 'boot %d %s: per round, latency %.3f%s, bandwidth %.3f\n' "$boot" "$op" \
				"$(bench_round_ratio "$b/pl-$op" "$b/sl-$op")" \
				"$([ -s "$b/fl-$op" ] && printf ', floor %.3f' "$(bench_round_ratio "$b/pl-$op" "$b/fl-$op")")" \
				"$(bench_round_ratio "$b/pb-$op" "$b/sb-$op")"
		done
	done
	cat "$all"/rounds-* | bench_round_files "$all/pool"
	for op in $BENCH_OPS; do BENCH_FIGS=$all/pool bench_op_lines "all boots: " "$op" | sed 's/^BENCH //'; done
fi
# The same on one host: the emulated link's ~22 ms round trip out of the way,
# the software paths of the two tools are what differs.
[ "${BENCH_LOOPBACK:-1}" = 0 ] && exit 0
tests/vm/run.sh --name bench-selftest-loop --timeout 3600 bench/vm/selftest-loop.sh \
	> /tmp/bench-selftest-loop.out 2>&1
rc=$?
grep -h "^BENCH" build/vm/logs/bench-selftest-loop.single.out | sed 's/^BENCH //'
[ $rc -eq 0 ] || { echo "(the VM run failed; see build/vm/logs/bench-selftest-loop.*)"; tail -5 /tmp/bench-selftest-loop.out; }
exit 0
