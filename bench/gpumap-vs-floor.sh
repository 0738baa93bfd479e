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

# ---- rdma-gpumap's file set, then the timing against the floor (bench/floor-lib.sh).
# shellcheck source=bench/floor-lib.sh
. "$here/floor-lib.sh"
args=(--no-env --sysroot "$tree" --color=never)
floor_learn rdma-gpumap map "$gpumap" "${args[@]}"
floor_time rdma-gpumap "$gpumap" "${args[@]}"
