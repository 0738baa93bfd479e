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
# shellcheck disable=SC2034,SC2119 # cmds_* are read through run_one's nameref; OpenSM with its defaults
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rounds=5 keep=0
die() { echo "fabric-routes: $*" >&2; exit 1; }
# shellcheck source=bench/fabric-opts.sh
. "$here/fabric-opts.sh"
fab_opts 17 "$@"
hcas=${args[0]:-2000}
fab_count HCAS "$hcas"
fabric=$(fab_tool RDMA_FABRIC rdma-fabric) || exit 1
fab_needs "ibsim-utils opensm" ibsim opensm
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
stat_row() {	# label name: the row of its median, min and peak RSS
	local med min rss
	read -r med min rss _ < <(stats "$2")
	row "$1" "$med" "$min" "$rss" ""
}
stat_row "sweep (--skip route)" sweep
stat_row "sweep + tables + routes" sweep_routes
stat_row "--load F --only route" routes_only
read -r rmed _ _ _ < <(stats routes_only)
r=$(ratio_med "$work/sweep_routes.times" "$work/sweep.times")
echo
printf 'sweep with tables and routes / sweep alone, paired median: %s  (goal <= 1.5: %s)\n' "$r" "$(goal "$r" 1.5)"
printf 'all CA-to-CA routes and the credit-loop check (--load, --only route): %s ms  (goal < 2000: %s)\n' \
	"$rmed" "$(goal "$rmed" 1999.9)"
