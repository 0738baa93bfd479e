#!/bin/bash
# SPDX-License-Identifier: MIT
# gids-vs-floor.sh: time rdma-gids on a large generated sysroot against the floor
# measured in the same run (bench/gid-floor.c: open+read+close of exactly the files a
# GID listing must read, by absolute path as rdma-gids opens them, and with --all
# relative to each directory's descriptor, the cheapest way), and report the ratios.  It reports; it never fails on speed
# (exit 0 unless the bench itself cannot run).
#
# usage: bench/gids-vs-floor.sh [-n RUNS] [-k] [-S] [-t TREE] [NDEV [NPORT [NSLOT]]]
#   -n RUNS   timed runs of each command, alternating, after one warm-up (default 10)
#   -k        keep the work dir (sysroot, floor binary, outputs) and print its path
#   -t TREE   use an existing sysroot made by gen-gid-sysroot.sh instead of generating
#   -S        skip the show_gids-style shell loop estimate
#   NDEV NPORT NSLOT   tree size (default 32 2 256, half the slots used; not with -t)
# Environment: RDMA_GIDS (default build/rdma-gids; built with make if missing),
#   CC (default cc), TMPDIR (where the work dir goes).
# SC2034: cmds_* are used through the nameref in run_one; SC2012: sysfs names are plain.
# shellcheck disable=SC2034,SC2012
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
runs=10 keep=0 tree='' estimate=1
while getopts "n:kt:Sh" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	k) keep=1 ;;
	t) tree=$OPTARG ;;
	S) estimate=0 ;;
	*) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ndev=${1:-32} nport=${2:-2} nslot=${3:-256}
case "$runs" in ''|*[!0-9]*|0) echo "gids-vs-floor: -n wants a positive number" >&2; exit 2 ;; esac

gids=${RDMA_GIDS:-$top/build/rdma-gids}
target=1.2

die() { echo "gids-vs-floor: $*" >&2; exit 1; }

if [ ! -x "$gids" ]; then
	[ -z "${RDMA_GIDS:-}" ] || die "$gids is not executable"
	echo "== building rdma-gids (make)"
	make -C "$top" -s >/dev/null || die "make failed"
fi
[ -x "$gids" ] || die "no $gids"

work=$(mktemp -d "${TMPDIR:-/tmp}/gids-bench.XXXXXX") || die "mktemp failed"
if [ $keep = 1 ]; then
	trap 'echo "work dir kept: $work"' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi

# ---- tools: the floor and the timer, -O2, built fresh each run
make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"

# ---- the tree
if [ -z "$tree" ]; then
	tree=$work/sysroot
	mkdir "$tree"
	t0=$(date +%s.%N)
	"$here/gen-gid-sysroot.sh" "$tree" "$ndev" "$nport" "$nslot" >"$work/gen.log" || die "generator failed"
	t1=$(date +%s.%N)
	sed 's/^gen-gid-sysroot: [^:]*: //' "$work/gen.log" | sed "s/\$/ (generated in $(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s)/"
else
	[ -d "$tree/sys/class/infiniband" ] || die "$tree: no sys/class/infiniband"
	echo "tree: $tree"
fi

# ---- sanity: both read the same tree and agree on the number of GIDs
floor_line=$("$top/build/bench/gid-floor" "$tree") || die "gid-floor failed"
used=$(printf '%s\n' "$floor_line" | sed -n 's/.*used=\([0-9]*\).*/\1/p')
"$gids" --sysroot "$tree" --color=never >"$work/gids.txt" 2>"$work/gids.err"
rc=$?
rows=$(($(wc -l <"$work/gids.txt") - 1))
echo "floor:     $floor_line"
echo "rdma-gids: exit $rc, $rows rows, $(wc -c <"$work/gids.txt") bytes text, $(wc -l <"$work/gids.err") warning lines"
[ "$rc" = 0 ] || echo "NOTE: rdma-gids exited $rc (stderr: $(head -c 300 "$work/gids.err"))"
[ "$rows" = "$used" ] || echo "NOTE: rdma-gids listed $rows GIDs, the floor found $used non-zero ones"

# ---- timing: one warm-up each, then RUNS rounds alternating floor / text / -j
names=(floor floorat text json)
cmds_floor=("$top/build/bench/gid-floor" "$tree")
cmds_floorat=("$top/build/bench/gid-floor" -a "$tree")
cmds_text=("$gids" --sysroot "$tree" --color=never)
cmds_json=("$gids" --sysroot "$tree" -j)

# Paired runs: each round runs the floor and then each rdma-gids form back to back, so
# that both see the same machine load; the ratio of each pair is kept and the median of
# those per-pair ratios is the figure reported (robust to load that drifts between rounds).
run_one() {	# name -> appends "wall_us rss_kb rc" to $work/name.times
	local -n argv="cmds_$1"
	"$top/build/bench/runtime" "${argv[@]}" >>"$work/$1.times" || die "runtime failed"
}
for n in "${names[@]}"; do
	run_one "$n"
	: >"$work/$n.times"	# discard the warm-up
done
for ((i = 0; i < runs; i++)); do
	for n in "${names[@]}"; do
		run_one "$n"
	done
done

# median and min in ms, max RSS in kB, worst exit status
stats() {
	sort -n "$work/$1.times" | awk '
		{ t[NR] = $1; if ($2 > rss) rss = $2; if ($3 != 0) bad = $3 }
		END {
			med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
			printf "%.1f %.1f %d %d\n", med / 1000, t[1] / 1000, rss, bad
		}'
}
read -r f_med f_min f_rss f_rc < <(stats floor)
read -r a_med a_min a_rss a_rc < <(stats floorat)
read -r t_med t_min t_rss t_rc < <(stats text)
read -r j_med j_min j_rss j_rc < <(stats json)
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
verdict() { awk "BEGIN { print ($1 <= $target) ? \"met\" : \"NOT met\" }"; }
pair_median() {	# name [floor] -> median of (name time / floor time) over the paired rounds
	paste "$work/$1.times" "$work/${2:-floor}.times" | awk '{ print $1 / $4 }' | sort -g | awk '
		{ r[NR] = $1 }
		END { printf "%.2f\n", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}
r_text=$(pair_median text) r_json=$(pair_median json)
r_at=$(pair_median floorat)
ra_text=$(pair_median text floorat) ra_json=$(pair_median json floorat)
m_text=$(ratio "$t_min" "$f_min") m_json=$(ratio "$j_min" "$f_min")

echo
echo "== $runs runs each, alternating, after one warm-up (page cache warm); $(nproc) CPUs"
row() { printf '%-22s %10s %8s %12s %14s %11s  %s\n' "$@"; }
row command "median ms" "min ms" "peak RSS kB" "paired ratio" "ratio(min)" "target: median paired ratio <= $target"
row "gid-floor (reference)" "$f_med" "$f_min" "$f_rss" 1.00 1.00 ""
row "gid-floor -a (openat)" "$a_med" "$a_min" "$a_rss" "$r_at" "$(ratio "$a_min" "$f_min")" ""
row "rdma-gids" "$t_med" "$t_min" "$t_rss" "$r_text" "$m_text" "$(verdict "$r_text")"
row "rdma-gids -j" "$j_med" "$j_min" "$j_rss" "$r_json" "$m_json" "$(verdict "$r_json")"
[ "$f_rc$a_rc$t_rc$j_rc" = 0000 ] ||
	echo "NOTE: some timed runs exited non-zero (floor $f_rc, floor -a $a_rc, text $t_rc, json $j_rc)"
echo "against the openat floor (gid-floor -a), median paired ratio: rdma-gids $ra_text" \
	"($(verdict "$ra_text")), rdma-gids -j $ra_json ($(verdict "$ra_json")); target <= $target"

# ---- where the difference comes from: files opened under the tree (needs strace)
if command -v strace >/dev/null 2>&1; then
	opens() {	# name cmd... -> "pattern count" lines, numbers and names folded
		local name=$1
		shift
		strace -qq -e trace=openat,open -o "$work/$name.strace" "$@" >/dev/null 2>&1
		awk -v t="\"$tree" 'index($0, t) && !/ENOENT/ {
			s = substr($0, index($0, t) + length(t)); sub(/".*/, "", s); print s }' \
			"$work/$name.strace" |
			sed -E 's#/[0-9]+$#/N#; s#mlx5_[0-9]+#mlx5_*#g; s#ports/[0-9]+#ports/*#;
				s#uverbs[0-9]+#uverbs*#g; s#device/net/[^/]+#device/net/*#' |
			sort | uniq -c | awk '{ print $2, $1 }' | sort
	}
	opens floor "$top/build/bench/gid-floor" "$tree" >"$work/floor.opens"
	opens text "$gids" --sysroot "$tree" --color=never >"$work/text.opens"
	echo
	echo "== files and directories opened under the tree (strace, successful opens; numbers folded to N/*)"
	printf '   floor %d, rdma-gids %d; where rdma-gids opens more:\n' \
		"$(awk '{ s += $2 } END { print s + 0 }' "$work/floor.opens")" \
		"$(awk '{ s += $2 } END { print s + 0 }' "$work/text.opens")"
	join -a 2 -e 0 -o 0,1.2,2.2 "$work/floor.opens" "$work/text.opens" |
		awk '$3 > $2 { printf "%8d  %-62s (floor %d, rdma-gids %d)\n", $3 - $2, $1, $2, $3 }' |
		sort -rn | head -n 12
fi

# ---- optional cross-check with hyperfine (not required)
if command -v hyperfine >/dev/null 2>&1; then
	echo
	echo "== hyperfine cross-check"
	hyperfine -N -w 1 -r "$runs" --style basic \
		-n floor "$work/gid-floor $tree" \
		-n rdma-gids "$gids --sysroot $tree --color=never" \
		-n "rdma-gids -j" "$gids --sysroot $tree -j" 2>&1 | grep -v '^ *$'
fi

# ---- optional: what a per-slot shell script costs (an estimate, not show_gids itself)
# The loop below does what a show_gids-style shell script does per slot: a `cat` of the
# GID, and for a used slot `cat` of its ndev and type plus the small pipes that derive
# the version and test for IPv4.  One port is timed and the figure multiplied by the
# number of ports.  It is an estimate of that style of tool, clearly not show_gids.
if [ $estimate = 1 ]; then
	dev0=$(ls "$tree/sys/class/infiniband" | head -n 1)
	port0=$(ls "$tree/sys/class/infiniband/$dev0/ports" | head -n 1)
	nports_all=$(ls -d "$tree"/sys/class/infiniband/*/ports/* | wc -l)
	slot_loop() {
		local base=$1 d=$2 p=$3 n=0 g gid ndev type ver ipv4
		# shellcheck disable=SC2045  # the style being estimated
		for g in $(ls "$base/$d/ports/$p/gids/"); do
			gid=$(cat "$base/$d/ports/$p/gids/$g")
			[ "$gid" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
			[ "$gid" = fe80:0000:0000:0000:0000:0000:0000:0000 ] && continue
			ndev=$(cat "$base/$d/ports/$p/gid_attrs/ndevs/$g" 2>/dev/null)
			type=$(cat "$base/$d/ports/$p/gid_attrs/types/$g" 2>/dev/null)
			ver=$(echo "$type" | grep -o "[Vv].*")
			if [ "$(echo "$gid" | cut -d ":" -f -1)" = "0000" ]; then
				ipv4=$(printf "%d.%d.%d.%d" "0x${gid:30:2}" "0x${gid:32:2}" "0x${gid:35:2}" "0x${gid:37:2}")
				echo -e "$d\t$p\t$g\t$gid\t$ipv4  \t$ver\t$ndev"
			else
				echo -e "$d\t$p\t$g\t$gid\t\t\t$ver\t$ndev"
			fi
			n=$((n + 1))
		done
	}
	s0=$(date +%s%N)
	slot_loop "$tree/sys/class/infiniband" "$dev0" "$port0" >/dev/null
	s1=$(date +%s%N)
	one=$(awk "BEGIN { printf \"%.0f\", ($s1 - $s0) / 1e6 }")
	est=$(awk "BEGIN { printf \"%.1f\", $one * $nports_all / 1000 }")
	echo
	echo "== ESTIMATE, per-slot shell loop in the show_gids style (not show_gids itself):"
	echo "   one port ($dev0 port $port0) took $one ms; x $nports_all ports = ~$est s for the tree" \
		"(~$(awk "BEGIN { printf \"%.0f\", $one * $nports_all / $t_med }")x rdma-gids)"
fi
exit 0
