#!/bin/bash
# Fabric scenario: which cable explains a mesh's failures (rdma-fleet
# --fabric), on the routes OpenSM really set in the 648-HCA fat tree.
#
# The fabric document is rdma-fabric --routes -j's, taken once; the trials
# then run offline (tomo.py): each draws a mesh plan (random:4 over the 648
# hosts, or a full mesh of 64 of them), chooses one or two links crossed by
# at least 5 tested pairs, fails every pair whose route crosses them either
# way, and adds 5% unrelated failures and 2% slow pairs at random (fixed
# seeds).  The goals: the chosen link ranked first in >= 95% of 200 trials,
# the two chosen links ranked first and second in >= 90%, on both plans; with
# only random failures, no link named (and the run says so) in >= 95% of 50.
# Under the sanitizer build the trials are 20 (and 5): the counts are the
# plain build's, the sanitizer looks for memory errors.
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
FLEET=$B/rdma-fleet
TOMO="$RD_ROOT/tests/fabric/tomo.py"
N=200
case $B in */sanbin) N=20 ;; esac

net=$D/fattree.net
"$GEN_NET" fattree 648 > "$net"
fab_check "sim_start: the 648-HCA fat tree" sim_start "$D/sim" "$net" || exit 1
fab_check "sim_sm_start: OpenSM (minhop)" sim_sm_start || exit 1
sim_run "$B/rdma-fabric" --routes -j > "$D/fabric.json" 2> "$D/fabric.err"
fab_check_eq "rdma-fabric --routes -j: 648 CAs' ports and 54 switches' tables" "648 54" \
	"$(jq -r '[([.ports[] | select(.type == "CA")] | length), (.lfts | length)] | join(" ")' "$D/fabric.json")"
fab_check "sim_stop" sim_stop

# trial NAME PLAN LINKS NOISE SEED GOAL% [COUNT]: COUNT trials (default N), rdma-fleet -j on each, scored.
trial() {
	local name=$1 plan=$2 links=$3 noise=$4 seed=$5 goal=$6 N=${7:-$N} dir=$D/$1 i hits t0 t1
	mkdir -p "$dir"
	python3 "$TOMO" trials "$D/fabric.json" "$dir" "$N" "$plan" "$links" "$noise" 0.02 "$seed" ||
		{ fab_fail "$name: tomo.py trials"; return 1; }
	t0=$EPOCHREALTIME
	for ((i = 0; i < N; i++)); do
		"$FLEET" -j --fabric "$D/fabric.json" "$dir/$(printf %03d $i).jsonl" > "$dir/$(printf %03d $i).json" 2> "$dir/err"
		case $? in 0 | 1) ;; *) fab_fail "$name: rdma-fleet exit $? on trial $i" "$(cat "$dir/err")"; return 1 ;; esac
	done
	t1=$EPOCHREALTIME
	python3 "$TOMO" score "$dir" "$N" "$links" > "$dir/score"
	hits=$(awk '/^hits/ { print $2 }' "$dir/score")
	fab_log "$name: $(head -1 "$dir/score") ($(grep -c . "$dir"/000.jsonl) pairs a trial; rdma-fleet" \
		"$(awk -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN { printf "%.0f", (b - a) * 1000 / n }') ms a run)"
	sed -n 's/^miss /#   miss /p' "$dir/score" | head -5
	fab_check_eq "$name: $(case $links in 0) echo "no link named" ;; 1) echo "the link ranked first" ;;
		*) echo "the two links ranked first and second" ;; esac) in >= $goal% of $N trials" 1 \
		"$(awk -v h="${hits:-0}" -v n="$N" -v g="$goal" 'BEGIN { print (h * 100 >= g * n) ? 1 : 0 }')"
}

trial "random:4, one link" random:4 1 0.05 101 95
trial "full mesh of 64, one link" full:64 1 0.05 102 95
trial "random:4, two links" random:4 2 0.05 103 90
trial "full mesh of 64, two links" full:64 2 0.05 104 90
trial "random:4, failures at random only" random:4 0 0.05 105 95 $((N / 4))
trial "full mesh of 64, failures at random only" full:64 0 0.05 106 95 $((N / 4))

# What the text says in both cases (the first trial of each kind).
"$FLEET" --fabric "$D/fabric.json" "$D/random:4, one link/000.jsonl" > "$D/one.txt" 2>&1
want=$(head -1 "$D/random:4, one link/000.want" | sed 's/ [0-9]*$//')
fab_check_grep "text: suspect 1 is the chosen link, with its evidence" \
	"^suspect 1: $want: [0-9,]+ of [0-9,]+ pairs through it failed, [0-9,]+ of [0-9,]+ others$" cat "$D/one.txt"
fab_check_grep "text: the table's first row" "^ +1  $want +[0-9,]+ of [0-9,]+ +[0-9,]+ of [0-9,]+ +[0-9,]+ of [0-9,]+$" \
	cat "$D/one.txt"
"$FLEET" --fabric "$D/fabric.json" "$D/random:4, failures at random only/000.jsonl" > "$D/none.txt" 2>&1
fab_check_grep "text: failures at random name no link, and say so" \
	'^no link explains the bad pairs: the [0-9,]+ failed or slow pairs are spread over the fabric' cat "$D/none.txt"

# Every document of the trials holds to rdma-fleet's schema.
for f in "$D"/*/00[0-4].json; do printf 'tomo\trdma-fleet\t%s\n' "$f"; done > "$D/schema.list"
fab_check "rdma-fleet -j --fabric documents are valid against schemas/rdma-fleet.schema.json" \
	python3 "$RD_ROOT/tests/cli/schema-check.py" "$RD_ROOT/schemas" "$D/schema.list"
