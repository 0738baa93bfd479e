#!/bin/bash
# SPDX-License-Identifier: MIT
# doctor-vs-floor.sh: time rdma-doctor's whole verdict (no --selftest, --interval 0)
# on a large generated sysroot against a floor measured in the same run: list-floor
# opening, reading and closing exactly the files and directories the doctor opened
# under the tree (captured once with strace).  Reports the paired ratio and the
# absolute time against the issue's target (under 1 s on 32 devices).  It reports;
# it never fails on speed (exit 0 unless the bench itself cannot run).
#
# usage: bench/doctor-vs-floor.sh [-n RUNS] [-k] [-t TREE] [NDEV [NPORT [NSLOT]]]
#   -n RUNS   timed runs of each command, alternating, after one warm-up (default 10)
#   -k        keep the work dir and print its path
#   -t TREE   use an existing sysroot made by gen-gid-sysroot.sh
#   NDEV NPORT NSLOT   tree size (default 32 2 256; not with -t)
# Environment: RDMA_DOCTOR (default build/rdma-doctor), CC, TMPDIR.
# shellcheck disable=SC2034  # cmds_* are used through the nameref in run_one
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
runs=10 keep=0 tree=''
while getopts "n:kt:h" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) keep=1 ;;
	t) tree=$OPTARG ;;
	*) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
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

# ---- the doctor's file set: every successful open under the tree, in order
args=(--sysroot "$tree" --interval 0 --color=never)
strace -qq -f -e trace=openat,open -o "$work/doctor.strace" "$doctor" "${args[@]}" >"$work/doctor.txt" 2>"$work/doctor.err"
rc=$?
awk -v t="\"$tree" 'index($0, t) && !/= -1 /{
	s = substr($0, index($0, t) + 1); sub(/".*/, "", s); print s }' "$work/doctor.strace" >"$work/files.list"
echo "rdma-doctor: exit $rc, $(grep -c . "$work/doctor.txt") lines of verdict, $(wc -l <"$work/doctor.err") warning lines"
echo "file set:    $(wc -l <"$work/files.list") opens under the tree; list-floor: $("$top/build/bench/list-floor" "$work/files.list")"
head -n 3 "$work/doctor.txt" | sed 's/^/  | /'

names=(floor text json)
cmds_floor=("$top/build/bench/list-floor" "$work/files.list")
cmds_text=("$doctor" "${args[@]}")
cmds_json=("$doctor" "${args[@]}" -j)
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
pair_median() {
	paste "$work/$1.times" "$work/floor.times" | awk '{ print $1 / $4 }' | sort -g | awk '
		{ r[NR] = $1 } END { printf "%.2f\n", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}
read -r f_med f_min f_rss _ < <(stats floor)
read -r t_med t_min t_rss t_rc < <(stats text)
read -r j_med j_min j_rss j_rc < <(stats json)
under() { awk "BEGIN { print ($1 < 1000) ? \"met\" : \"NOT met\" }"; }

echo
echo "== $runs runs each, alternating, after one warm-up (page cache warm); $(nproc) CPUs"
row() { printf '%-24s %10s %8s %12s %13s  %s\n' "$@"; }
row command "median ms" "min ms" "peak RSS kB" "paired ratio" "target: whole verdict < 1000 ms"
row "list-floor (reference)" "$f_med" "$f_min" "$f_rss" 1.00 ""
row "rdma-doctor" "$t_med" "$t_min" "$t_rss" "$(pair_median text)" "$(under "$t_med")"
row "rdma-doctor -j" "$j_med" "$j_min" "$j_rss" "$(pair_median json)" "$(under "$j_med")"
[ "$t_rc$j_rc" = 00 ] || echo "NOTE: some timed runs exited with status other than 0/1 (text $t_rc, json $j_rc)"
