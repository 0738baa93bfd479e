#!/bin/bash
# SPDX-License-Identifier: MIT
# fabric-routes.sh: the cost of routes in rdma-fabric (issue #44), on a
# simulated fat tree (ibsim + a real OpenSM, tests/fabric/), in interleaved
# rounds: today's sweep (every check but the route ones: discovery, SMInfo,
# every port's counters) against the same sweep that also reads every
# switch's forwarding table and judges the routes (goal: <= 1.5x, paired);
# then, on the fabric saved with its tables, all CA-to-CA routes and the
# credit-loop check alone (--load FILE --only route: goal < 2 s), and the
# peak memory of each.  Prints medians and the goals; it never fails on speed.
#
# usage: bench/fabric-routes.sh [-n ROUNDS] [-k] [HCAS]
#   -n ROUNDS  timed rounds, each command once a round, after one warm-up (default 5)
#   -k         keep the work dir (net file, logs, the saved fabric) and print its path
#   HCAS       fat tree of 36-port switches, 18 HCAs a leaf (default 2000)
# Environment: RDMA_FABRIC (default build/rdma-fabric), TMPDIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rounds=5 keep=0
while getopts "n:kh" opt; do
	case $opt in
	n) rounds=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
hcas=${1:-2000}
die() { echo "fabric-routes: $*" >&2; exit 1; }
case "$rounds" in ''|*[!0-9]*|0) die "-n wants a positive number" ;; esac
case "$hcas" in ''|*[!0-9]*|0) die "HCAS wants a positive number" ;; esac
fabric=${RDMA_FABRIC:-$top/build/rdma-fabric}
if [ ! -x "$fabric" ]; then
	[ -z "${RDMA_FABRIC:-}" ] || die "$fabric is not executable"
	make -C "$top" -s > /dev/null || die "make failed"
fi
make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"
for t in ibsim opensm; do
	command -v "$t" > /dev/null || die "$t is needed (apt install ibsim-utils opensm)"
done
# shellcheck source=bench/fabric-lib.sh
. "$here/fabric-lib.sh"

"$top/tests/fabric/gen-net.sh" fattree "$hcas" > "$work/fattree.net" || die "gen-net.sh failed"
nodes=$(grep -c '^\(Switch\|Hca\)' "$work/fattree.net")
sim_start "$work/sim" "$work/fattree.net" -N 4096 -S 512 -P 40000 > /dev/null || die "ibsim did not start"
sim_sm_start > /dev/null || die "OpenSM did not reach SUBNET UP"
echo "fabric: a two-level fat tree of $nodes nodes ($hcas HCAs), ibsim + OpenSM (minhop); $(nproc) CPUs"

saved=$work/routes.cache
(cd "$SIM_DIR" && env LD_PRELOAD="$preload" "$fabric" --save "$saved" --only route > "$work/save.out" 2>&1)
[ -s "$saved" ] || die "rdma-fabric --save did not write the fabric (see $work/save.out)"

names=(sweep sweep_routes routes_only)
cmds_sweep=("$fabric" --skip route --color=never)
cmds_sweep_routes=("$fabric" --color=never)
cmds_routes_only=("$fabric" --load "$saved" --only route --color=never)
for n in "${names[@]}"; do run_one "$n"; : > "$work/$n.times"; done
for ((i = 0; i < rounds; i++)); do for n in "${names[@]}"; do run_one "$n"; done; done
echo "rdma-fabric: $(cd "$SIM_DIR" && env LD_PRELOAD="$preload" "$fabric" --color=never 2> /dev/null | tail -1)"
echo "routes: $(cd "$SIM_DIR" && "$fabric" --load "$saved" --only route -v --color=never 2> /dev/null |
	awk '$1 == "route.loops" { sub(/^route\.loops +[^ ]+ +[A-Z]+ +/, ""); print; exit }')"

echo
echo "== $rounds rounds, each command once a round (after one warm-up)"
row command "median ms" "min ms" "peak RSS kB" ""
row "sweep (--skip route)" $(stats sweep | cut -d' ' -f1-3) ""
row "sweep + tables + routes" $(stats sweep_routes | cut -d' ' -f1-3) ""
row "--load F --only route" $(stats routes_only | cut -d' ' -f1-3) ""
read -r rmed _ _ _ < <(stats routes_only)
r=$(ratio_med "$work/sweep_routes.times" "$work/sweep.times")
echo
printf 'sweep with tables and routes / sweep alone, paired median: %s  (goal <= 1.5: %s)\n' "$r" "$(goal "$r" 1.5)"
printf 'all CA-to-CA routes and the credit-loop check (--load, --only route): %s ms  (goal < 2000: %s)\n' \
	"$rmed" "$(goal "$rmed" 1999.9)"
