#!/bin/bash
# SPDX-License-Identifier: MIT
# gpumap-vs-floor.sh: time rdma-gpumap's whole map (text and -j) on a copied GPU
# server tree against a floor measured in the same run: list-floor opening, reading
# and closing once each file and directory rdma-gpumap opened under the tree
# (captured once with strace -y, which names the file each open reached).  Prints
# rdma-gpumap's opens against the distinct files (a file opened again shows there
# and in the time), and the paired ratio against the target: at most 1.10x the
# floor, by path (list-floor) and relative to each file's directory (list-floor -a).
# It reports; it never fails on speed (exit 0 unless the bench itself cannot run).
#
# usage: bench/gpumap-vs-floor.sh [-n RUNS] [-k] [-t TREE]
#   -n RUNS   timed runs of each command, alternating, after one warm-up (default 20)
#   -k        keep the work dir and print its path
#   -t TREE   the sysroot (default tests/fixtures/gpu-dgx-faults: 8 GPUs, 10 NICs,
#             4 NVSwitches, Broadcom switches, ACS and IOMMU facts)
# Environment: RDMA_GPUMAP (default build/rdma-gpumap), TMPDIR.
# shellcheck disable=SC2034  # cmds_* are used through the nameref in run_one
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
runs=20 keep=0 tree=''
while getopts "n:kt:h" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) keep=1 ;;
	t) tree=$OPTARG ;;
	*) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case "$runs" in ''|*[!0-9]*|0) echo "gpumap-vs-floor: -n wants a positive number" >&2; exit 2 ;; esac

gpumap=${RDMA_GPUMAP:-$top/build/rdma-gpumap}
die() { echo "gpumap-vs-floor: $*" >&2; exit 1; }

if [ ! -x "$gpumap" ]; then
	[ -z "${RDMA_GPUMAP:-}" ] || die "$gpumap is not executable"
	make -C "$top" -s >/dev/null || die "make failed"
fi
command -v strace >/dev/null 2>&1 || die "strace is needed to learn rdma-gpumap's file set (apt install strace)"

work=$(mktemp -d "${TMPDIR:-/tmp}/gpumap-bench.XXXXXX") || die "mktemp failed"
if [ $keep = 1 ]; then trap 'echo "work dir kept: $work"' EXIT; else trap 'rm -rf "$work"' EXIT; fi

make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"

[ -n "$tree" ] || tree=$top/tests/fixtures/gpu-dgx-faults
[ -d "$tree/sys/bus/pci/devices" ] || die "$tree: no sys/bus/pci/devices"
echo "tree: $tree"

# ---- rdma-gpumap's file set: every successful open under the tree, in order, as
# the file it reached ('= 5</the/file>': strace -y); O_PATH opens are the sysroot
# layer's directory handles and read nothing.  The floor opens each file once.
args=(--no-env --sysroot "$tree" --color=never)
strace -qq -f -y -e trace=openat,open -o "$work/gpumap.strace" "$gpumap" "${args[@]}" >"$work/gpumap.txt" 2>"$work/gpumap.err"
rc=$?
root=$(cd "$tree" && pwd -P)
awk -v root="$root/" '!/O_PATH/ && match($0, /\) = [0-9]+<.*>$/) {
	s = substr($0, RSTART, RLENGTH); sub(/^\) = [0-9]+</, "", s); sub(/>$/, "", s)
	if (index(s, root) == 1) print s }' "$work/gpumap.strace" >"$work/opens.list"
awk '!seen[$0]++' "$work/opens.list" >"$work/files.list"
nopens=$(wc -l <"$work/opens.list") nfiles=$(wc -l <"$work/files.list")
[ "$nfiles" -gt 0 ] || die "no open under $root in rdma-gpumap's trace"
echo "rdma-gpumap: exit $rc, $(grep -c . "$work/gpumap.txt") lines of map, $(wc -l <"$work/gpumap.err") warning lines"
echo "opens:       rdma-gpumap $nopens under the tree, $nfiles distinct files, $((nopens - nfiles)) opens of a file again" \
	"($(sort "$work/opens.list" | uniq -d | wc -l) files opened more than once)"
echo "file set:    list-floor: $("$top/build/bench/list-floor" "$work/files.list")"
head -n 3 "$work/gpumap.txt" | sed 's/^/  | /'

names=(floor floor_at text json)
cmds_floor=("$top/build/bench/list-floor" "$work/files.list")
cmds_floor_at=("$top/build/bench/list-floor" -a "$work/files.list")
cmds_text=("$gpumap" "${args[@]}")
cmds_json=("$gpumap" "${args[@]}" -j)
run_one() {	# name -> appends "wall_us rss_kb rc" to $work/name.times
	local -n argv="cmds_$1"
	"$top/build/bench/runtime" "${argv[@]}" >>"$work/$1.times" || die "runtime failed"
}
for n in "${names[@]}"; do run_one "$n"; : >"$work/$n.times"; done
for ((i = 0; i < runs; i++)); do for n in "${names[@]}"; do run_one "$n"; done; done

stats() {	# name -> "median_ms min_ms max_rss_kb worst_rc"
	sort -n "$work/$1.times" | awk '
		{ t[NR] = $1; if ($2 > rss) rss = $2; if ($3 != 0 && $3 != 1) bad = $3 }
		END { med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%.1f %.1f %d %d\n", med / 1000, t[1] / 1000, rss, bad }'
}
pair_median() {	# name floor -> the median of the rounds' own ratios
	paste "$work/$1.times" "$work/$2.times" | awk '{ print $1 / $4 }' | sort -g | awk '
		{ r[NR] = $1 } END { printf "%.2f\n", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}
read -r f_med f_min f_rss _ < <(stats floor)
read -r a_med a_min a_rss _ < <(stats floor_at)
read -r t_med t_min t_rss t_rc < <(stats text)
read -r j_med j_min j_rss j_rc < <(stats json)
goal=1.10
verdict() { awk -v r="$1" -v g="$goal" 'BEGIN { print (r <= g) ? "met" : "NOT met" }'; }
both() {	# name -> "ratio|ratio_at|verdict|verdict" (a verdict has a space: "NOT met")
	local r ra
	r=$(pair_median "$1" floor) ra=$(pair_median "$1" floor_at)
	echo "$r|$ra|$(verdict "$r")|$(verdict "$ra")"
}

echo
echo "== $runs runs each, alternating, after one warm-up (page cache warm); $(nproc) CPUs"
echo "   paired ratio: the median of each round's ratio to the floor by path / to the openat floor"
row() { printf '%-24s %10s %8s %12s %13s  %s\n' "$@"; }
row command "median ms" "min ms" "peak RSS kB" "paired ratio" "target: <= ${goal}x the floor (path / openat)"
row "list-floor (reference)" "$f_med" "$f_min" "$f_rss" 1.00 ""
row "list-floor -a (openat)" "$a_med" "$a_min" "$a_rss" "$(pair_median floor_at floor)" ""
IFS='|' read -r r ra v va < <(both text)
row "rdma-gpumap" "$t_med" "$t_min" "$t_rss" "$r / $ra" "$v / $va"
IFS='|' read -r r ra v va < <(both json)
row "rdma-gpumap -j" "$j_med" "$j_min" "$j_rss" "$r / $ra" "$v / $va"
[ "$t_rc$j_rc" = 00 ] || echo "NOTE: some timed runs exited with status other than 0/1 (text $t_rc, json $j_rc)"
