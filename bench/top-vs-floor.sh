#!/bin/bash
# SPDX-License-Identifier: MIT
# top-vs-floor.sh: the time of one rdma-top refresh on a 32-port x 60-counter
# sysroot against the floor measured in the same run (bench/top-floor.c: one
# pread of each counter file, already open), and rdma-top's memory over
# 10 000 refreshes.  It reports; it never fails on speed (exit 0 unless the
# bench itself cannot run).
#
# usage: bench/top-vs-floor.sh [-r ROUNDS] [-n REFRESHES] [-k] [-t TREE] [NPORT [NCTR]]
#   -r ROUNDS     alternating rounds of floor / text / JSON (default 9)
#   -n REFRESHES  refreshes per timed rdma-top run (default 200)
#   -m            skip the 10 000-refresh memory runs
#   -k            keep the work dir; -t TREE: use a tree made by gen-top-sysroot.sh
# Per refresh = (wall time of `rdma-top -b -i 0 -n 1+N` - wall time of `-n 1`) / N,
# which takes start-up (device scan, opening the files) out.
# Environment: RDMA_TOP (default build/rdma-top), CC, TMPDIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rounds=9 refreshes=200 keep=0 tree='' memory=1
while getopts "r:n:kt:mh" opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	n) refreshes=$OPTARG ;;
	k) keep=1 ;;
	t) tree=$OPTARG ;;
	m) memory=0 ;;
	*) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
nport=${1:-32} nctr=${2:-60}
rdtop=${RDMA_TOP:-$top/build/rdma-top}
die() { echo "top-vs-floor: $*" >&2; exit 1; }

if [ ! -x "$rdtop" ]; then
	[ -z "${RDMA_TOP:-}" ] || die "$rdtop is not executable"
	make -C "$top" -s > /dev/null || die "make failed"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/top-bench.XXXXXX") || die "mktemp failed"
if [ $keep = 1 ]; then trap 'echo "work dir kept: $work"' EXIT; else trap 'rm -rf "$work"' EXIT; fi
make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"
if [ -z "$tree" ]; then
	tree=$work/tree
	"$here/gen-top-sysroot.sh" "$tree" "$nport" "$nctr" > /dev/null || die "cannot generate the tree"
fi
files=$("$top/build/bench/top-floor" "$tree" 1 | cut -d' ' -f1)
ports=$("$rdtop" --sysroot "$tree" --once -j | jq length) || die "rdma-top --once failed"
echo "tree: $ports ports, $files counter files; $rounds rounds; $refreshes refreshes a run"

# wall µs of one run
run_us() { "$top/build/bench/runtime" "$rdtop" --sysroot "$tree" -b -i 0 "$@" | cut -d' ' -f1; }
# per-refresh µs from one pair of runs
per_refresh() {
	local one many
	one=$(run_us -n 1 "$@") many=$(run_us -n $((refreshes + 1)) "$@")
	echo $(((many - one) / refreshes))
}
run_us -n 20 > /dev/null	# warm the page cache and dentries
floor=() text=() json=()
for ((r = 0; r < rounds; r++)); do
	floor+=("$("$top/build/bench/top-floor" "$tree" "$refreshes" | cut -d' ' -f2)")
	text+=("$(per_refresh)")
	json+=("$(per_refresh -j)")
done
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.0f %.0f", v[int((NR + 1) / 2)], v[1] }'; }
read -r fmed fmin <<< "$(stats "${floor[@]}")"
read -r tmed tmin <<< "$(stats "${text[@]}")"
read -r jmed jmin <<< "$(stats "${json[@]}")"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# The median over the rounds of (run / floor of the same round): a round's
# runs follow each other within a second, so a slow spell of the machine
# (other guests on the host) weighs on both sides of a ratio alike.
paired() {	# name of an array of per-round times
	local -n t=$1
	for ((r = 0; r < rounds; r++)); do
		awk -v a="${t[r]}" -v b="${floor[r]}" 'BEGIN { printf "%.4f\n", a / b }'
	done | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'
}
printf '%-34s %10s %10s %8s %8s %8s\n' "per refresh" "median us" "min us" "x floor" "(mins)" "(paired)"
printf '%-34s %10s %10s %8s %8s %8s\n' "floor: pread of $files files" "$fmed" "$fmin" 1.00 1.00 1.00
printf '%-34s %10s %10s %8s %8s %8s\n' "rdma-top -b (text)" "$tmed" "$tmin" "$(ratio "$tmed" "$fmed")" \
	"$(ratio "$tmin" "$fmin")" "$(paired text)"
printf '%-34s %10s %10s %8s %8s %8s\n' "rdma-top -b -j (JSON lines)" "$jmed" "$jmin" "$(ratio "$jmed" "$fmed")" \
	"$(ratio "$jmin" "$fmin")" "$(paired json)"
echo "target: within 1.5x of the floor (x floor: medians; (paired): the median of the rounds' own ratios)"

if [ $memory = 1 ]; then
	# Resident memory of one long run, read from /proc at about refresh 1 000
	# and refresh 10 000 (timed from the median above), then the run is
	# stopped; plus the peak RSS of whole runs of 100 and 10 000 refreshes.
	echo "memory (kB):"
	for mode in text json; do
		a=()
		[ $mode = json ] && a=(-j)
		per=$([ $mode = json ] && echo "$jmed" || echo "$tmed")
		"$rdtop" --sysroot "$tree" -b -i 0 -n 100000000 "${a[@]}" > /dev/null &
		pid=$!
		sleep "$(awk -v u="$per" 'BEGIN { printf "%.2f", u * 1000 / 1e6 + 0.2 }')"
		r1=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
		sleep "$(awk -v u="$per" 'BEGIN { printf "%.2f", u * 9000 / 1e6 }')"
		r2=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
		kill "$pid"
		wait "$pid" 2> /dev/null
		p100=$("$top/build/bench/runtime" "$rdtop" --sysroot "$tree" -b -i 0 -n 100 "${a[@]}" | cut -d' ' -f2)
		p10k=$("$top/build/bench/runtime" "$rdtop" --sysroot "$tree" -b -i 0 -n 10000 "${a[@]}" | cut -d' ' -f2)
		printf '  %-5s VmRSS at ~1 000 refreshes %6s, at ~10 000 %6s;  peak RSS of 100 refreshes %6s, of 10 000 %6s\n' \
			"$mode" "$r1" "$r2" "$p100" "$p10k"
	done
fi
