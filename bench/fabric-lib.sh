# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154 # top and keep are the caller's
# bench/fabric-lib.sh: what the fabric benches share (sourced, not run): a work
# dir and one simulated fabric at a time (tests/fabric/sim.sh), each command
# timed by build/bench/runtime under umad2sim, and the figures.  The caller sets
# top, keep and die() first; a command NAME is the array cmds_NAME.
preload=
for f in /usr/lib/*/umad2sim/libumad2sim.so /usr/lib*/umad2sim/libumad2sim.so; do
	[ -e "$f" ] && { preload=$f; break; }
done
[ -n "$preload" ] || die "libumad2sim.so not found (ibsim-utils)"

work=$(mktemp -d "${TMPDIR:-/tmp}/fabric-bench.XXXXXX") || die "mktemp failed"
FABRIC_DIR=$work FABRIC_BUILD=$top/build
export FABRIC_DIR FABRIC_BUILD
# shellcheck source=tests/fabric/sim.sh
. "$top/tests/fabric/sim.sh"
cleanup() { sim_stop > /dev/null 2>&1; if [ "$keep" = 1 ]; then echo "work dir kept: $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

run_one() {	# name -> appends "wall_us rss_kb rc" to $work/name.times
	local -n argv="cmds_$1"
	(cd "$SIM_DIR" && "$top/build/bench/runtime" env LD_PRELOAD="$preload" "${argv[@]}") \
		>> "$work/$1.times" 2>> "$work/$1.err" || die "runtime failed"
}
stats() {	# name -> "median_ms min_ms max_rss_kb worst_rc"
	sort -n "$work/$1.times" | awk '
		{ t[NR] = $1; if ($2 > rss) rss = $2; if ($3 != 0 && $3 != 1) bad = $3 }
		END { med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%.1f %.1f %d %d\n", med / 1000, t[1] / 1000, rss, bad }'
}
ratio_med() {	# paired ratios of column 1 of file $1 against the row sums of files $2...
	local f=$1
	shift
	paste "$f" "$@" | awk -v n=$# '{ s = 0; for (i = 1; i <= n; i++) s += $(1 + 3 * i); print $1 / s }' |
		sort -g | awk '{ r[NR] = $1 } END { printf "%.2f\n", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}
row() { printf '%-28s %10s %8s %12s  %s\n' "$@"; }
goal() { awk -v r="$1" -v g="$2" 'BEGIN { print (r <= g) ? "met" : "NOT met" }'; }
