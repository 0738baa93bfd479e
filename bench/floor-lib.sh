# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154  # top, work, tree, runs and die come from the caller
# floor-lib.sh: what the benches that time a tool against the file-open floor share
# (doctor-vs-floor.sh, gpumap-vs-floor.sh).  Sourced, not run.  The caller sets
# top (the project root), work (a scratch dir), tree (the sysroot), runs, and die().
#
# floor_learn TOOL NOUN CMD...
#   Runs CMD once under strace -y and keeps every successful open under the tree,
#   as the file it reached (O_PATH opens are the sysroot layer's directory handles
#   and read nothing): $work/opens.list in order, $work/files.list each file once.
#   Prints TOOL's exit status, its lines of NOUN, the opens against the distinct
#   files, list-floor's view of the file set and TOOL's first three lines.
# floor_time TOOL CMD...
#   Times list-floor, list-floor -a (openat), CMD and CMD -j, alternating, $runs
#   rounds after one warm-up, and prints each one's median, minimum, peak RSS and
#   paired ratio (the median of the rounds' own ratios) against the target: at
#   most 1.10x the floor, by path and by openat.

floor_learn() {
	local tool=$1 noun=$2 root rc nopens nfiles
	shift 2
	strace -qq -f -y -e trace=openat,open -o "$work/tool.strace" "$@" >"$work/tool.txt" 2>"$work/tool.err"
	rc=$?
	root=$(cd "$tree" && pwd -P)
	awk -v root="$root/" '!/O_PATH/ && match($0, /\) = [0-9]+<.*>$/) {
		s = substr($0, RSTART, RLENGTH); sub(/^\) = [0-9]+</, "", s); sub(/>$/, "", s)
		if (index(s, root) == 1) print s }' "$work/tool.strace" >"$work/opens.list"
	awk '!seen[$0]++' "$work/opens.list" >"$work/files.list"
	nopens=$(wc -l <"$work/opens.list") nfiles=$(wc -l <"$work/files.list")
	[ "$nfiles" -gt 0 ] || die "no open under $root in $tool's trace"
	echo "$tool: exit $rc, $(grep -c . "$work/tool.txt") lines of $noun, $(wc -l <"$work/tool.err") warning lines"
	echo "opens:       $tool $nopens under the tree, $nfiles distinct files, $((nopens - nfiles)) opens of a file again" \
		"($(sort "$work/opens.list" | uniq -d | wc -l) files opened more than once)"
	echo "file set:    list-floor: $("$top/build/bench/list-floor" "$work/files.list")"
	head -n 3 "$work/tool.txt" | sed 's/^/  | /'
}

# One timed run of command set $1 (floor, floor_at, text, json): "wall_us rss_kb rc" appended.
floor_run_one() {
	local -n argv="floor_cmd_$1"
	"$top/build/bench/runtime" "${argv[@]}" >>"$work/$1.times" || die "runtime failed"
}

# name -> "median_ms min_ms max_rss_kb worst_rc"
floor_stats() {
	sort -n "$work/$1.times" | awk '
		{ t[NR] = $1; if ($2 > rss) rss = $2; if ($3 != 0 && $3 != 1) bad = $3 }
		END { med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%.1f %.1f %d %d\n", med / 1000, t[1] / 1000, rss, bad }'
}

# name floor -> the median of the rounds' own ratios
floor_pair_median() {
	paste "$work/$1.times" "$work/$2.times" | awk '{ print $1 / $4 }' | sort -g | awk '
		{ r[NR] = $1 } END { printf "%.2f\n", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}

floor_time() {
	local tool=$1 goal=1.10 n i med min rss rc t_rc j_rc r ra
	shift
	# shellcheck disable=SC2034  # read through the nameref in floor_run_one
	local floor_cmd_floor=("$top/build/bench/list-floor" "$work/files.list")
	# shellcheck disable=SC2034
	local floor_cmd_floor_at=("$top/build/bench/list-floor" -a "$work/files.list")
	# shellcheck disable=SC2034
	local floor_cmd_text=("$@")
	# shellcheck disable=SC2034
	local floor_cmd_json=("$@" -j)
	local names=(floor floor_at text json)

	for n in "${names[@]}"; do floor_run_one "$n"; : >"$work/$n.times"; done
	for ((i = 0; i < runs; i++)); do for n in "${names[@]}"; do floor_run_one "$n"; done; done

	verdict() { awk -v r="$1" -v g="$goal" 'BEGIN { print (r <= g) ? "met" : "NOT met" }'; }
	row() { printf '%-24s %10s %8s %12s %13s  %s\n' "$@"; }
	echo
	echo "== $runs runs each, alternating, after one warm-up (page cache warm); $(nproc) CPUs"
	echo "   paired ratio: the median of each round's ratio to the floor by path / to the openat floor"
	row command "median ms" "min ms" "peak RSS kB" "paired ratio" "target: <= ${goal}x the floor (path / openat)"
	read -r med min rss _ < <(floor_stats floor)
	row "list-floor (reference)" "$med" "$min" "$rss" 1.00 ""
	read -r med min rss _ < <(floor_stats floor_at)
	row "list-floor -a (openat)" "$med" "$min" "$rss" "$(floor_pair_median floor_at floor)" ""
	for n in text json; do
		read -r med min rss rc < <(floor_stats "$n")
		if [ "$n" = text ]; then t_rc=$rc; else j_rc=$rc; fi
		r=$(floor_pair_median "$n" floor) ra=$(floor_pair_median "$n" floor_at)
		row "$tool$([ "$n" = json ] && echo ' -j')" "$med" "$min" "$rss" "$r / $ra" \
			"$(verdict "$r") / $(verdict "$ra")"
	done
	[ "$t_rc$j_rc" = 00 ] || echo "NOTE: some timed runs exited with status other than 0/1 (text $t_rc, json $j_rc)"
}
