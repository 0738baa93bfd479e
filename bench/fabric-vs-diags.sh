#!/bin/bash
# SPDX-License-Identifier: MIT
# fabric-vs-diags.sh: one run of rdma-fabric (discovery, every port's counters,
# every SM: its default verdict) against the runs a user makes today to learn
# the same (iblinkinfo + ibqueryerrors + sminfo), on a simulated fat tree
# (ibsim + a real OpenSM, tests/fabric/), in interleaved rounds; then peak
# memory of a discovery (rdma-fabric --links, ibnetdiscover) on a larger tree.
# Prints medians and the paired ratios against the issue's goals (#34: <= 0.5x
# the three tools' sum, <= 1.2x ibqueryerrors alone; memory within 2x of
# ibnetdiscover's).  It reports; it never fails on speed.
#
# usage: bench/fabric-vs-diags.sh [-n ROUNDS] [-k] [HCAS [BIG_HCAS]]
#   -n ROUNDS  timed rounds, each command once a round, after one warm-up (default 7)
#   -k         keep the work dir (net files, logs) and print its path
#   HCAS       fat tree for the time rounds (default 648)
#   BIG_HCAS   fat tree for the memory runs (default 1792; 0 skips them)
# Environment: RDMA_FABRIC (default build/rdma-fabric), TMPDIR.
# shellcheck disable=SC2034,SC2119 # cmds_* are read through run_one's nameref; OpenSM with its defaults
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rounds=7 keep=0
die() { echo "fabric-vs-diags: $*" >&2; exit 1; }
# shellcheck source=bench/fabric-opts.sh
. "$here/fabric-opts.sh"
fab_opts 17 "$@"
hcas=${args[0]:-648} big=${args[1]:-1792}
fab_count HCAS "$hcas"
fabric=$(fab_tool RDMA_FABRIC rdma-fabric) || exit 1
fab_needs "ibsim-utils opensm infiniband-diags" ibsim opensm iblinkinfo ibqueryerrors sminfo ibnetdiscover
# shellcheck source=bench/fabric-lib.sh
. "$here/fabric-lib.sh"

names=(fabric iblinkinfo ibqueryerrors sminfo)
cmds_fabric=("$fabric" --color=never)
cmds_iblinkinfo=(iblinkinfo)
cmds_ibqueryerrors=(ibqueryerrors)
cmds_sminfo=(sminfo)
"$top/tests/fabric/gen-net.sh" fattree "$hcas" > "$work/fattree.net" || die "gen-net.sh failed"
sim_start "$work/sim" "$work/fattree.net" > /dev/null || die "ibsim did not start"
sim_sm_start > /dev/null || die "OpenSM did not reach SUBNET UP"
nodes=$(grep -c '^\(Switch\|Hca\)' "$work/fattree.net")
echo "fabric: a two-level fat tree of $nodes nodes ($hcas HCAs), ibsim + OpenSM; $(nproc) CPUs"
for n in "${names[@]}"; do run_one "$n"; : > "$work/$n.times"; done
for ((i = 0; i < rounds; i++)); do for n in "${names[@]}"; do run_one "$n"; done; done
summary=$(cd "$SIM_DIR" && env LD_PRELOAD="$preload" "$fabric" --color=never 2> /dev/null | tail -1)
echo "rdma-fabric: $summary"

echo
echo "== $rounds rounds, each command once a round (after one warm-up)"
row command "median ms" "min ms" "peak RSS kB" ""
for n in "${names[@]}"; do
	read -r med mn rss rc < <(stats "$n")
	row "$n" "$med" "$mn" "$rss" "$([ "$rc" = 0 ] || echo "(an exit status $rc)")"
done
sum=$(ratio_med "$work/fabric.times" "$work/iblinkinfo.times" "$work/ibqueryerrors.times" "$work/sminfo.times")
alone=$(ratio_med "$work/fabric.times" "$work/ibqueryerrors.times")
echo
printf 'rdma-fabric / (iblinkinfo + ibqueryerrors + sminfo), paired median: %s  (goal <= 0.5: %s)\n' "$sum" "$(goal "$sum" 0.5)"
printf 'rdma-fabric / ibqueryerrors, paired median:                          %s  (goal <= 1.2: %s)\n' "$alone" "$(goal "$alone" 1.2)"
sim_stop > /dev/null 2>&1

[ "$big" = 0 ] && exit 0
"$top/tests/fabric/gen-net.sh" fattree "$big" > "$work/big.net" || die "gen-net.sh failed"
sim_start "$work/big" "$work/big.net" -N 4096 -S 512 -P 20000 > /dev/null || die "ibsim did not start (big)"
sim_sm_start > /dev/null || die "OpenSM did not reach SUBNET UP (big)"
names=(fabric_links ibnetdiscover)
cmds_fabric_links=("$fabric" --links --color=never)
cmds_ibnetdiscover=(ibnetdiscover)
for n in "${names[@]}"; do : > "$work/$n.times"; done
for ((i = 0; i < 3; i++)); do for n in "${names[@]}"; do run_one "$n"; done; done
read -r _ _ f_rss _ < <(stats fabric_links)
read -r _ _ d_rss _ < <(stats ibnetdiscover)
echo
echo "== peak memory of a discovery, fat tree of $big HCAs (3 runs each)"
row "rdma-fabric --links" "" "" "$f_rss" ""
row "ibnetdiscover" "" "" "$d_rss" ""
r=$(awk -v a="$f_rss" -v b="$d_rss" 'BEGIN { printf "%.2f", a / b }')
printf 'rdma-fabric / ibnetdiscover peak RSS: %s  (goal <= 2: %s)\n' "$r" "$(goal "$r" 2)"
