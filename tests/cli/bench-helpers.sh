#!/bin/bash
# The bench's figure-keeping helpers (bench/vm/lib.sh), run on this host on
# canned figures: they are plain shell and awk, no VM needed.  One scenario
# an argument; each prints what the helpers made of its figures, and the CLI
# tier compares that with tests/cli/expected/bench-*.out.
#
# usage: tests/cli/bench-helpers.sh put|missing|med|ratio|spread|files|lines|missed
set -u
cd "$(dirname "$0")/../.." || exit 1
RD_ROOT=$PWD
# shellcheck source=bench/vm/lib.sh
. bench/vm/lib.sh
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# Two runs of three rounds: B's second round gave no output.
paired() {
	local v
	for v in 100 200 300; do echo "$v" | bench_put "$d/A"; done
	printf '110\n' | bench_put "$d/B"
	: | bench_put "$d/B"
	printf '330\n' | bench_put "$d/B"
}
# Round lines as the scenarios print them, read back into figures files.
rounds() {
	printf '%s\n' "BENCH round 1 read: lat ib_read_lat 250 rdma-selftest 260; bw ib_read_bw 0.12 rdma-selftest 0.14; floor 255" \
		"BENCH round 1 ud: lat ib_send_lat 200 rdma-selftest 210; bw ib_send_bw 0.08 rdma-selftest 0.13" \
		"BENCH round 2 read: lat ib_read_lat 240 rdma-selftest NA; bw ib_read_bw 0.11 rdma-selftest 0.15; floor 250" |
		bench_round_files "$d/pool"
}
show() {
	local f

	for f in "$@"; do
		if [ -e "$d/pool/$f" ]; then
			printf '%-8s %s\n' "$f" "$(paste -sd' ' "$d/pool/$f")"
		else
			printf '%-8s (none)\n' "$f"
		fi
	done
}

case ${1:-} in
put)
	# a figure above 0 is kept; no output, 0, null, 0.000000, a negative, text are NA
	paired
	echo "B: $(paste -sd' ' "$d/B")"
	for v in 0.000000 null 0 -3 12.5 '' 7 abc; do printf '%s\n' "$v" | bench_put "$d/C"; done
	echo "C: $(paste -sd' ' "$d/C")"
	;;
missing)
	paired
	echo "missing in A and B: $(bench_missing "$d/A" "$d/B")"
	echo "missing in A: $(bench_missing "$d/A")"
	;;
med)
	paired
	echo "median of A: $(bench_med < "$d/A")"
	echo "median of B (NA left out): $(bench_med < "$d/B")"
	echo "median of 4, 1, 3, 2: $(printf '4\n1\n3\n2\n' | bench_med)"
	echo "median of no figure: [$(printf 'NA\nNA\n' | bench_med)]"
	;;
ratio)
	paired
	echo "B against A, per round: $(bench_round_ratio "$d/A" "$d/B")"
	;;
spread)
	paired
	echo "B against A: $(bench_round_spread "$d/A" "$d/B")"
	;;
files)
	rounds
	show pl-read sl-read pb-read sb-read fl-read pl-ud sl-ud pb-ud sb-ud fl-ud
	;;
lines)
	rounds
	BENCH_FIGS=$d/pool bench_op_lines "" read
	echo "BENCH_MISSED=$BENCH_MISSED"
	;;
missed)
	# only the floor's run of round 2 gave nothing
	printf '%s\n' "BENCH round 1 read: lat ib_read_lat 250 rdma-selftest 260; bw ib_read_bw 0.12 rdma-selftest 0.14; floor 255" \
		"BENCH round 2 read: lat ib_read_lat 245 rdma-selftest 250; bw ib_read_bw 0.12 rdma-selftest 0.14; floor NA" |
		bench_round_files "$d/pool"
	BENCH_FIGS=$d/pool bench_op_lines "" read > "$d/lines"
	grep 'gave no figure' "$d/lines"
	echo "BENCH_MISSED=$BENCH_MISSED"
	;;
*)
	echo "usage: $0 put|missing|med|ratio|spread|files|lines|missed" >&2
	exit 2
	;;
esac
