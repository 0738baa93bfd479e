#!/bin/sh
# Run every cmocka unit test binary; record "passed failed" for the summary.
# usage: tests/run-unit.sh BUILD_DIR RESULT_FILE
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
build=$1 result=$2
mkdir -p "$(dirname "$result")"
pass=0 fail=0
# Every test source has its binary: one that was not built is a failure,
# not a test that quietly did not run.
for src in tests/unit/test_*.c; do
	[ -e "$src" ] || continue
	bin=$build/tests/$(basename "$src" .c)
	[ -x "$bin" ] || { echo "FAIL: $(basename "$bin"): not built"; fail=$((fail + 1)); }
done
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	p=${p:-0} f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or sanitizer abort before cmocka could count
	fi
	if [ "$f" -ne 0 ]; then
		printf '%s\n' "$out"
		echo "FAIL: $(basename "$t")"
	fi
	pass=$((pass + p)) fail=$((fail + f))
done
tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "unit$(case $build in *san*) echo "(asan+ubsan)";; esac): $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
