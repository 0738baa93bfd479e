#!/bin/bash
# SPDX-License-Identifier: MIT
# fleet-scale.sh: rdma-fleet on fleets of 10,000 hosts (issue #33), against a
# reference measured in the same run.  Input: one host's real documents
# (rdma-devinfo -v -j and rdma-gids --best -j on the mlx5-roce-dual fixture)
# copied under many names by bench/gen-fleet.py, a few hosts changed.
#
#   lines    10,000 hosts as compact JSON lines ("host: {...}", 20,000 lines)
#            against `jq -R 'sub("^[^:]*: ";"") | fromjson'` parsing the same
#            lines (goal: ratio <= 1.0)
#   pdsh     the same hosts as pdsh prints the pretty documents (every line
#            prefixed, hosts interleaved; ~1 M lines) against the lines
#            input (goal: <= 2.0)
#   nics     1,000 hosts of 32 NICs each, pdsh (goal: under 2 s)
#   mesh     a full mesh of 300 hosts (89,700 pairs) (goal: under 2 s)
#   hosts    -w 'node[1-1000000]' on an empty input: a million names
#            expanded, checked against the input and compressed (goal: < 1 s)
#   svg      --svg of the 300-host mesh, and of 10,000 hosts that ran
#            --pairs random:4 (40,000 pairs): time and the picture's size
# and the peak RSS of each run against its input's size (goal: <= 3.0).
# Each figure is the median of RUNS runs; ratios are of medians.  It reports;
# it never fails on speed (exit 0 unless the bench cannot run).
#
# usage: bench/fleet-scale.sh [-n RUNS] [-k] [HOSTS]
#   -n RUNS  runs of each command (default 5)
#   -k       keep the work dir
#   HOSTS    fleet size for lines and pdsh (default 10000)
# Environment: RDMA_FLEET (default build/rdma-fleet), TMPDIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
runs=5 keep=0
while getopts "n:kh" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
hosts=${1:-10000}
case "$runs$hosts" in *[!0-9]*) echo "fleet-scale: -n and HOSTS want numbers" >&2; exit 2 ;; esac

fleet=${RDMA_FLEET:-$top/build/rdma-fleet}
die() { echo "fleet-scale: $*" >&2; exit 1; }
command -v jq > /dev/null || die "jq is needed for the reference (apt install jq)"
command -v python3 > /dev/null || die "python3 is needed for the generator"
if [ ! -x "$fleet" ]; then
	[ -z "${RDMA_FLEET:-}" ] || die "$fleet is not executable"
	make -C "$top" -s > /dev/null || die "make failed"
fi
make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"
timer=$top/build/bench/runtime
[ -x "$timer" ] || die "$timer is missing (make bench-build)"

work=$(mktemp -d "${TMPDIR:-/tmp}/fleet-bench.XXXXXX") || die "mktemp failed"
if [ $keep = 1 ]; then trap 'echo "work dir kept: $work"' EXIT; else trap 'rm -rf "$work"' EXIT; fi

fx=$top/tests/fixtures/mlx5-roce-dual
"$top/build/rdma-devinfo" --sysroot "$fx" -v -j > "$work/devinfo.json" 2> /dev/null || die "rdma-devinfo failed"
"$top/build/rdma-gids" --sysroot "$fx" --best -j > "$work/gids.json" 2> /dev/null
gen=$here/gen-fleet.py
python3 "$gen" -n "$hosts" -l "$work/hosts.txt" "$work/devinfo.json" "$work/gids.json" > "$work/lines.txt" || die "generator failed"
python3 "$gen" -n "$hosts" -f pdsh "$work/devinfo.json" "$work/gids.json" > "$work/pdsh.txt"
python3 "$gen" -n 1000 -k 32 -f pdsh "$work/devinfo.json" "$work/gids.json" > "$work/nics.txt"
python3 "$gen" -n 300 -f mesh > "$work/mesh.txt"
python3 "$gen" -n 10000 -f mesh -r 4 > "$work/mesh4.txt"
: > "$work/empty.txt"

# run NAME CMD...: RUNS timed runs; sets med_us and med_kb (medians), and
# prints them.  runtime prints "wall_us rss_kb status".
run() {
	local name=$1 i t=() m=()
	shift
	for ((i = 0; i < runs; i++)); do
		read -r us kb _ < <("$timer" "$@")
		t+=("$us") m+=("$kb")
	done
	med_us=$(printf '%s\n' "${t[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	med_kb=$(printf '%s\n' "${m[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	printf '  %-34s %9.3f s %9d KB\n' "$name" "$(echo "$med_us" | awk '{ print $1 / 1e6 }')" "$med_kb"
}
size_kb() { echo $(( $(stat -c %s "$1") / 1024 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "rdma-fleet at scale ($runs runs each, medians; $(nproc) CPUs)"
printf '  %-34s %11s %12s\n' "input" "wall" "peak RSS"
run "jq parses $hosts hosts' lines" jq -R 'sub("^[^:]*: ";"") | fromjson' "$work/lines.txt"
jq_us=$med_us
run "rdma-fleet, the same lines" "$fleet" --hostfile "$work/hosts.txt" "$work/lines.txt"
lines_us=$med_us lines_kb=$med_kb
run "rdma-fleet, pdsh ($(wc -l < "$work/pdsh.txt") lines)" "$fleet" "$work/pdsh.txt"
pdsh_us=$med_us pdsh_kb=$med_kb
run "rdma-fleet, 1000 hosts x 32 NICs" "$fleet" "$work/nics.txt"
nics_us=$med_us nics_kb=$med_kb
run "rdma-fleet, 300-host full mesh" "$fleet" "$work/mesh.txt"
mesh_us=$med_us mesh_kb=$med_kb
run "rdma-fleet -w 'node[1-1000000]'" "$fleet" -w 'node[1-1000000]' "$work/empty.txt"
hl_us=$med_us
run "--svg, 300-host full mesh" "$fleet" --svg "$work/mesh.svg" "$work/mesh.txt"
svg_us=$med_us
run "--svg, 10000 hosts x random:4" "$fleet" --svg "$work/mesh4.svg" "$work/mesh4.txt"
svg4_us=$med_us svg4_kb=$med_kb

echo
echo "ratios (goal in brackets)"
printf '  lines / jq parsing the same lines     %6s  [<= 1.0]\n' "$(ratio "$lines_us" "$jq_us")"
printf '  pdsh / lines                          %6s  [<= 2.0]\n' "$(ratio "$pdsh_us" "$lines_us")"
printf '  32 NICs x 1000 hosts                  %6s s [< 2]\n' "$(ratio "$nics_us" 1000000)"
printf '  300-host mesh                         %6s s [< 2]\n' "$(ratio "$mesh_us" 1000000)"
printf '  a million host names                  %6s s [< 1]\n' "$(ratio "$hl_us" 1000000)"
printf '  peak RSS / input, lines               %6s  [<= 3.0]\n' "$(ratio "$lines_kb" "$(size_kb "$work/lines.txt")")"
printf '  peak RSS / input, pdsh                %6s  [<= 3.0]\n' "$(ratio "$pdsh_kb" "$(size_kb "$work/pdsh.txt")")"
printf '  peak RSS / input, 32 NICs             %6s  [<= 3.0]\n' "$(ratio "$nics_kb" "$(size_kb "$work/nics.txt")")"
printf '  peak RSS / input, mesh                %6s  [<= 3.0]\n' "$(ratio "$mesh_kb" "$(size_kb "$work/mesh.txt")")"
printf '  --svg 300-host mesh (picture %s KB)  %6s s\n' "$(size_kb "$work/mesh.svg")" "$(ratio "$svg_us" 1000000)"
printf '  --svg 10000 x random:4 (%s KB)      %6s s\n' "$(size_kb "$work/mesh4.svg")" "$(ratio "$svg4_us" 1000000)"
printf '  peak RSS / input, 10000 x random:4    %6s  [<= 3.0]\n' "$(ratio "$svg4_kb" "$(size_kb "$work/mesh4.txt")")"
