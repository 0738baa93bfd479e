#!/bin/bash
# CLI tier: run the tools on fixture sysroots and compare stdout, stderr and the
# exit status with the checked-in expectations.
#
# usage: tests/cli/run.sh BUILD_DIR RESULT_FILE [CASE-NAME-PATTERN]
#   UPDATE=1 rewrites tests/cli/expected/ from the current output (review the diff!).
#
# tests/cli/cases and tests/cli/cases.d/*.cases (one file per tool, so that
# work on different tools does not collide): one case a line,
# "name | exit-status | command"; the command
# runs under bash with $B = build dir and $F = tests/fixtures (relative, so the
# paths in messages are stable).  Cases whose name ends in -json must print JSON
# that jq accepts.  A case may use '{pre}' scripts: see tests/cli/cases.
set -u
cd "$(dirname "$0")/../.." || exit 1
build=$1 result=$2 pattern=${3:-}
export B=$build F=tests/fixtures LC_ALL=C TZ=UTC
unset NO_COLOR
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
exp=tests/cli/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
have_jq=$(command -v jq || true)

while IFS='|' read -r name status cmd; do
	name=${name//[[:space:]]/} status=${status//[[:space:]]/}
	case $name in ''|'#'*) continue ;; esac
	[ -n "$pattern" ] && case $name in $pattern) ;; *) continue ;; esac
	cmd=${cmd# }
	bash -c "$cmd" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	ok=1 why=""
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$tmp/out" "$exp/$name.out"
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$exp/$name.err"; else rm -f "$exp/$name.err"; fi
	fi
	if [ "$rc" != "$status" ]; then ok=0 why="exit status $rc, expected $status"; fi
	if [ ! -f "$exp/$name.out" ]; then
		ok=0 why="$why; no $exp/$name.out"
	elif ! diff -u "$exp/$name.out" "$tmp/out" > "$tmp/diff"; then
		ok=0 why="$why; stdout differs"
	fi
	if [ -f "$exp/$name.err" ]; then
		if ! diff -u "$exp/$name.err" "$tmp/err" >> "$tmp/diff"; then ok=0 why="$why; stderr differs"; fi
	elif [ -s "$tmp/err" ]; then
		ok=0 why="$why; unexpected stderr"
		sed 's/^/  stderr: /' "$tmp/err" | head -20 >> "$tmp/diff"
	fi
	case $name in
	*-json)
		if [ -n "$have_jq" ] && ! jq -e . < "$tmp/out" > /dev/null 2>&1; then
			ok=0 why="$why; invalid JSON"
		fi ;;
	esac
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name: ${why#; }"
		echo "  \$ $cmd"
		head -40 "$tmp/diff" | sed 's/^/  /'
	fi
done < <(cat tests/cli/cases tests/cli/cases.d/*.cases 2>/dev/null)

mkdir -p "$(dirname "$result")"
echo "$pass $fail" > "$result"
echo "cli$(case $build in *san*) echo "(asan+ubsan)";; esac): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
