#!/bin/bash
# Static analysis, four checks, each passing only with zero findings:
#   cppcheck    lib/ tools/ tests/fuzz/ tests/unit/ bench/*.c
#   clang-tidy  lib/ tools/ with the checks in .clang-tidy
#   gcc -fanalyzer  a -Werror build of lib/ and tools/ in build/analyzer
#   layers      the include graph against lib/README.md (tests/lint/layers.py)
# Every finding is printed; RESULT_FILE gets "passed failed" (out of 4) for
# tests/summary.sh.  The compiler flags are the Makefile's ALL_CFLAGS, so the
# analyzers see the code the way the build compiles it.
# usage: tests/lint/run.sh RESULT_FILE CFLAGS...
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
result=$1
shift
cflags=("$@")
jobs=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
work=build/lint
mkdir -p "$work" "$(dirname "$result")"
pass=0 fail=0

# One analyzer's verdict: its findings are the lines of $log.
verdict() {
	local name=$1 log=$2 secs=$3 n
	n=$(grep -c . "$log")
	if [ "$n" -eq 0 ]; then
		echo "lint: $name: no finding (${secs}s)"
		pass=$((pass + 1))
	else
		echo "FAIL: lint: $name: $n finding(s) (${secs}s)"
		sed 's/^/  /' "$log"
		fail=$((fail + 1))
	fi
}

missing() {
	echo "FAIL: lint: $1: not installed (make deps)"
	fail=$((fail + 1))
}

# cppcheck gets the -I/-D/-U part of the flags.  The system headers are not
# parsed (missingIncludeSystem); the pkg-config -I dirs give it the libnl and
# json-c types.
if command -v cppcheck > /dev/null; then
	t0=$SECONDS
	pp=()
	for f in "${cflags[@]}"; do
		case $f in -I* | -D* | -U*) pp+=("$f") ;; esac
	done
	cppcheck --quiet --std=c11 --language=c -j "$jobs" \
		--enable=warning,style,performance,portability --inline-suppr \
		--suppress=missingIncludeSystem --error-exitcode=0 \
		--template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
		"${pp[@]}" -Itests/unit \
		lib tools tests/fuzz tests/unit bench/*.c > "$work/cppcheck.log" 2>&1
	verdict cppcheck "$work/cppcheck.log" $((SECONDS - t0))
else
	missing cppcheck
fi

# clang-tidy: one process a file, $jobs at a time.  Only the diagnostic lines
# ("file:line:col: warning: ... [check]") count; the notes that follow them
# are kept in the full log.
if command -v clang-tidy > /dev/null; then
	t0=$SECONDS
	rm -f "$work"/tidy.*.log
	printf '%s\n' lib/*/*.c tools/*/*.c |
		LINT_WORK=$work xargs -P "$jobs" -I{} bash -c \
			'f=$1; shift; clang-tidy --quiet "$f" -- "$@" > "$LINT_WORK/tidy.${f//\//_}.log" 2>&1' \
			tidy {} "${cflags[@]}"
	cat "$work"/tidy.*.log > "$work/clang-tidy.full.log"
	grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error): .*\]$' "$work/clang-tidy.full.log" |
		sort -u > "$work/clang-tidy.log"
	verdict clang-tidy "$work/clang-tidy.log" $((SECONDS - t0))
	grep -q . "$work/clang-tidy.log" && echo "  (notes: $work/clang-tidy.full.log)"
else
	missing clang-tidy
fi

# gcc -fanalyzer: the ordinary build with -fanalyzer added to its -Werror
# flags, from scratch, in its own tree.
if command -v gcc > /dev/null; then
	t0=$SECONDS
	rm -rf build/analyzer
	${MAKE:-make} --no-print-directory -s -k -j "$jobs" -Otarget CC=gcc BUILD=build/analyzer \
		CFLAGS="-O2 -g -fanalyzer" all > "$work/analyzer.full.log" 2>&1
	rc=$?
	grep -E ': (warning|error): ' "$work/analyzer.full.log" | sort -u > "$work/analyzer.log"
	# A build that failed without a diagnostic line (a link error, say) still fails.
	if [ "$rc" -ne 0 ] && ! grep -q . "$work/analyzer.log"; then
		tail -5 "$work/analyzer.full.log" > "$work/analyzer.log"
	fi
	verdict "gcc -fanalyzer" "$work/analyzer.log" $((SECONDS - t0))
	grep -q . "$work/analyzer.log" && echo "  (paths: $work/analyzer.full.log)"
else
	missing gcc
fi

# The layer rule of lib/README.md: no include of a higher layer, no circle.
if command -v python3 > /dev/null; then
	t0=$SECONDS
	python3 tests/lint/layers.py > "$work/layers.full.log" 2>&1
	grep -v '^layers: ' "$work/layers.full.log" > "$work/layers.log"
	[ -s "$work/layers.full.log" ] || echo "layers.py printed nothing" > "$work/layers.log"
	# The check must be able to fail: a tree where base includes model, and two
	# model units include each other, gives both findings.
	bad=$(mktemp -d)
	mkdir -p "$bad/lib/base" "$bad/lib/model" "$bad/tools"
	cp lib/README.md "$bad/lib/"
	printf '#include "model/model.h"\n' > "$bad/lib/base/util.c"
	printf '#include "b.h"\n' > "$bad/lib/model/a.h"
	printf '#include "a.h"\n' > "$bad/lib/model/b.h"
	printf '#include "a.h"\n' > "$bad/lib/model/model.h"
	if python3 tests/lint/layers.py "$bad" > "$work/layers.neg.log" 2>&1 ||
		! grep -q 'layer base may not include layer model' "$work/layers.neg.log" ||
		! grep -q '^circle: ' "$work/layers.neg.log"; then
		echo "layers.py did not catch a planted violation (see $work/layers.neg.log)" >> "$work/layers.log"
	fi
	rm -rf "$bad"
	verdict layers "$work/layers.log" $((SECONDS - t0))
else
	missing python3
fi

# The same rule for calls (tests/lint/calls.py): no two files of lib/ that call
# each other, directly or round a circle.  On the objects the analyzer build just
# made from scratch (no stale object of a removed file).
if command -v python3 > /dev/null && command -v nm > /dev/null && [ -d build/analyzer/obj/lib ]; then
	t0=$SECONDS
	python3 tests/lint/calls.py build/analyzer/obj > "$work/calls.full.log" 2>&1
	grep -v '^calls: ' "$work/calls.full.log" > "$work/calls.log"
	grep -q '^calls: ' "$work/calls.full.log" || cat "$work/calls.full.log" >> "$work/calls.log"
	# It must be able to fail: two units that call each other are a circle.
	bad=$(mktemp -d)
	mkdir -p "$bad/lib/x"
	printf 'int b(int);\nint a(int n) { return n ? b(n - 1) : 0; }\n' > "$bad/a.c"
	printf 'int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\n' > "$bad/b.c"
	if ! { ${CC:-cc} -c -o "$bad/lib/x/a.o" "$bad/a.c" && ${CC:-cc} -c -o "$bad/lib/x/b.o" "$bad/b.c"; } ||
		python3 tests/lint/calls.py "$bad" > "$work/calls.neg.log" 2>&1 ||
		! grep -q '^circle: lib/x/a.c <-> lib/x/b.c' "$work/calls.neg.log"; then
		echo "calls.py did not catch a planted circle (see $work/calls.neg.log)" >> "$work/calls.log"
	fi
	rm -rf "$bad"
	verdict calls "$work/calls.log" $((SECONDS - t0))
else
	missing "python3, nm or the analyzer's objects"
fi

tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "lint: $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
