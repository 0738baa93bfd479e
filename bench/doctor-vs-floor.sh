#!/bin/bash
# SPDX-License-Identifier: MIT
# doctor-vs-floor.sh: time rdma-doctor's whole verdict (no --selftest, --interval 0)
# on a large generated sysroot against a floor measured in the same run: list-floor
# opening, reading and closing once each file and directory the doctor opened
# under the tree (captured once with strace -y, which names the file each open
# reached, by path or relative to a cached directory).  Prints the doctor's opens
# against the distinct files (a file opened again shows there and in the time), and
# the paired ratio against the target: at most 1.10x the floor, by path (list-floor)
# and relative to each file's directory (list-floor -a, how the doctor opens them).
# It reports; it never fails on speed (exit 0 unless the bench itself cannot run).
#
# usage: bench/doctor-vs-floor.sh [-n RUNS] [-k] [-t TREE] [NDEV [NPORT [NSLOT]]]
#   -n RUNS   timed runs of each command, alternating, after one warm-up (default 10)
#   -k        keep the work dir and print its path
#   -t TREE   use an existing sysroot made by gen-gid-sysroot.sh
#   NDEV NPORT NSLOT   tree size (default 32 2 256; not with -t)
# Environment: RDMA_DOCTOR (default build/rdma-doctor), CC, TMPDIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
runs=10 keep=0 tree=''
while getopts "n:kt:h" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) keep=1 ;;
	t) tree=$OPTARG ;;
	*) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ndev=${1:-32} nport=${2:-2} nslot=${3:-256}
case "$runs" in ''|*[!0-9]*|0) echo "doctor-vs-floor: -n wants a positive number" >&2; exit 2 ;; esac

doctor=${RDMA_DOCTOR:-$top/build/rdma-doctor}
die() { echo "doctor-vs-floor: $*" >&2; exit 1; }

if [ ! -x "$doctor" ]; then
	[ -z "${RDMA_DOCTOR:-}" ] || die "$doctor is not executable"
	make -C "$top" -s >/dev/null || die "make failed"
fi
command -v strace >/dev/null 2>&1 || die "strace is needed to learn the doctor's file set (apt install strace)"

work=$(mktemp -d "${TMPDIR:-/tmp}/doctor-bench.XXXXXX") || die "mktemp failed"
if [ $keep = 1 ]; then trap 'echo "work dir kept: $work"' EXIT; else trap 'rm -rf "$work"' EXIT; fi

make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"

if [ -z "$tree" ]; then
	tree=$work/sysroot
	mkdir "$tree"
	"$here/gen-gid-sysroot.sh" "$tree" "$ndev" "$nport" "$nslot" >"$work/gen.log" || die "generator failed"
	sed 's/^gen-gid-sysroot: [^:]*: //' "$work/gen.log"
else
	[ -d "$tree/sys/class/infiniband" ] || die "$tree: no sys/class/infiniband"
	echo "tree: $tree"
fi

# ---- rdma-doctor's file set, then the timing against the floor (bench/floor-lib.sh).
# shellcheck source=bench/floor-lib.sh
. "$here/floor-lib.sh"
args=(--sysroot "$tree" --interval 0 --color=never)
floor_learn rdma-doctor verdict "$doctor" "${args[@]}"
floor_time rdma-doctor "$doctor" "${args[@]}"
