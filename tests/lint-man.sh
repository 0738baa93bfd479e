#!/bin/sh
# Lint man pages with mandoc (warnings and worse) and groff -ww.
# usage: tests/lint-man.sh [--results FILE] PAGE...
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
result=
if [ "${1:-}" = --results ]; then result=$2; shift 2; fi
pass=0 fail=0
for page in "$@"; do
	out=$( { mandoc -T lint -W warning "$page" 2>&1; groff -ww -z -man "$page" 2>&1; } )
	if [ -z "$out" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $page"
		printf '%s\n' "$out" | sed 's/^/  /'
	fi
done
tier_secs=$(( $(date +%s) - tier_t0 ))
if [ -n "$result" ]; then
	. tests/tier-result.sh
	tier_result "$result" "$pass" "$fail" "$tier_secs"
	fail=$tier_failed
fi
echo "man: $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
