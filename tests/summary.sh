#!/bin/sh
# Sum the per-tier results written by the tier runners; the last line is the total.
set -u
dir=$1
pass=0 fail=0
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	read -r p x < "$f" || { p=0 x=1; }
	printf '  %-10s %4s passed, %s failed\n' "$(basename "$f")" "$p" "$x"
	pass=$((pass + p)) fail=$((fail + x))
done
for tier in build unit fuzz cli tui unit-san cli-san valgrind lint man completion deb vm-single vm; do
	if [ ! -f "$dir/$tier" ]; then
		echo "  $tier: did not run (counted as a failure)"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
