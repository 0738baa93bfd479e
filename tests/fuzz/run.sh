#!/bin/bash
# Run every libFuzzer target for SECONDS, from its checked-in seed corpus
# (tests/fuzz/corpus/<target>, never written) plus a working corpus in the build
# tree.  A crash, leak or sanitizer report fails the target; its input is kept
# in BUILD/artifacts/ for a regression seed.
# usage: tests/fuzz/run.sh BUILD SECONDS RESULT_FILE
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
build=$1 secs=$2 result=$3
pass=0 fail=0
mkdir -p "$build/artifacts" "$(dirname "$result")"
for src in tests/fuzz/fuzz_*.c; do
	[ -e "$src" ] || continue
	[ -x "$build/$(basename "$src" .c)" ] || { echo "FAIL: fuzz: $(basename "$src" .c): not built"; fail=$((fail + 1)); }
done
for bin in "$build"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	work=$build/corpus/$name
	mkdir -p "$work"
	log=$build/$name.log
	if "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$build/artifacts/$name-" "$work" "tests/fuzz/corpus/$name" > "$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz: $name: ${runs:-?} runs in ${secs}s, no finding"
		pass=$((pass + 1))
	else
		echo "FAIL: fuzz: $name (see $log and $build/artifacts/)"
		grep -E "ERROR|SUMMARY|runtime error" "$log" | head -5 | sed 's/^/  /'
		fail=$((fail + 1))
	fi
done
tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "fuzz: $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
