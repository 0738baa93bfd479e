#!/bin/bash
# Sum the per-tier results written by the tier runners ("passed failed
# seconds" a file) into a table of tiers with their times, so a slow tier is
# seen the day it becomes slow; the last line is the total.
# usage: tests/summary.sh RESULTS_DIR [TIERS...]
#   TIERS: the tiers that must have run (default: every tier of make check);
#   a missing one counts as a failure.
#   RESULTS_DIR/TIER: "passed failed seconds skipped" (tests/tier-result.sh);
#   a tier that ran no check counts as a failure.
#   RESULTS_DIR/.timeline (written by tests/tier-time.sh): "tier start end" in
#   seconds since the run began, for the table's start column and the wall time.
#   RESULTS_DIR/.log/TIER (written by tests/tier-time.sh): the tier's output;
#   the failed checks of each tier that failed are listed under the table
#   (the first 15 a tier), so the end of a run's output names them.
set -u
dir=$1
shift
expected=("$@")
[ ${#expected[@]} -gt 0 ] ||
	expected=(build unit fuzz cli tui unit-san cli-san valgrind lint man completion monitoring deb fabric fabric-san vm-single vm-pair vm-fleet)
pass=0 fail=0 skip=0
declare -A start=() span=()
if [ -f "$dir/.timeline" ]; then
	while read -r t s e; do
		start[$t]=$s span[$t]=$((e - s))
	done < "$dir/.timeline"
fi
printf '  %-11s %6s %6s %7s %8s %8s\n' tier passed failed skipped time started
# The rows in the order the tiers started (those without a start last).
rows=$(for f in "$dir"/*; do
	[ -f "$f" ] || continue
	t=$(basename "$f")
	read -r p x s k < "$f" || { p=0 x=1; }
	p=${p:-0} x=${x:-1} s=${span[$t]:-${s:-}} k=${k:-0}
	printf '%s\t%s %s %s %s %s\n' "${start[$t]:-999999}" "$t" "$p" "$x" "${s:--}" "$k"
done | sort -n -k1,1 -s | cut -f2)
empty=()
while read -r t p x s k; do
	[ -n "$t" ] || continue
	st=${start[$t]:-}
	[ "$s" = - ] && s=""
	printf '  %-11s %6s %6s %7s %8s %8s\n' "$t" "$p" "$x" "$k" "${s:+$s s}" "${st:++$st s}"
	pass=$((pass + p)) fail=$((fail + x)) skip=$((skip + k))
	# A tier that ran nothing proved nothing (its runner counts this too).
	[ $((p + x + k)) -gt 0 ] || empty+=("$t")
done <<< "$rows"
for tier in "${empty[@]}"; do
	echo "  $tier: ran no check (counted as a failure)"
	fail=$((fail + 1))
done
for tier in "${expected[@]}"; do
	if [ ! -f "$dir/$tier" ]; then
		echo "  $tier: did not run (counted as a failure)"
		fail=$((fail + 1))
	fi
done
# The failed checks: the runners print "FAIL: name" (the VM tiers
# "FAIL: [vmN] name", the fabric tier "FAIL - name"); a tool's own summary line
# ("FAIL: 3 checks on ...") that a demo prints is not a check of ours.
while read -r t p x s k; do
	[ -n "$t" ] && [ "${x:-0}" != 0 ] && [ -f "$dir/.log/$t" ] || continue
	grep -E '^FAIL(: | - )' "$dir/.log/$t" | grep -Ev '^FAIL: [0-9]+ checks? ' > "$dir/.log/$t.failed"
	n=$(wc -l < "$dir/.log/$t.failed")
	[ "$n" -gt 0 ] || continue
	echo "  $t: failed:"
	head -n 15 "$dir/.log/$t.failed" | cut -c1-200 | sed 's/^/    /'
	[ "$n" -le 15 ] || echo "    ... and $((n - 15)) more (in $dir/.log/$t)"
done <<< "$rows"
# The skipped checks, with their reasons: a skip is a check that proved
# nothing on this machine, and must be seen.
while read -r t p x s k; do
	[ -n "$t" ] && [ "${k:-0}" != 0 ] && [ -f "$dir/.log/$t" ] || continue
	echo "  $t: skipped:"
	grep -E '^SKIP: ' "$dir/.log/$t" | head -n 15 | cut -c1-200 | sed 's/^/    /'
	[ "$k" -le 15 ] || echo "    ... and $((k - 15)) more (in $dir/.log/$t)"
done <<< "$rows"
if [ -f "$dir/.wall" ]; then
	w=$(cat "$dir/.wall")
	printf '  wall time: %d min %02d s\n' $((w / 60)) $((w % 60))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
