#!/bin/bash
# CLI tier: run the tools on fixture sysroots and compare stdout, stderr and the
# exit status with the checked-in expectations.
#
# usage: tests/cli/run.sh BUILD_DIR RESULT_FILE [CASE-NAME-PATTERN]
#   UPDATE=1 rewrites tests/cli/expected/ from the current output (review the diff!).
#   CLI_JOBS=N runs N cases at a time (default: the number of CPUs).
#   CLI_SCHEMA=no leaves out the JSON Schema check (tests/valgrind/run.sh, which
#     runs each case again with the output this tier checked).
#
# tests/cli/cases and tests/cli/cases.d/*.cases (one file per tool, so that
# work on different tools does not collide): one case a line,
# "name | exit-status | command"; the command
# runs under bash with $B = build dir, $F = tests/fixtures and $NVDIR = the
# folder of the NVML test double (relative, so the paths in messages are stable).  Cases whose name ends in -json must print JSON
# that jq accepts.  A case may use '{pre}' scripts: see tests/cli/cases.
#
# Every JSON document a tool prints is held to the tool's schema
# (schemas/TOOL.schema.json, tests/cli/schema-check.py): the cases run with
# $B = a folder of small scripts, one per tool, that copy the tool's stdout into
# the case's folder when the tool was asked for JSON (-j, --json, --format
# json), so that the raw output is checked even where the case pipes it through
# jq or into another tool (the scripts live in BUILD_DIR/cli-json/bin, so the
# generated bad-input tree under $B is made once per build directory).  One python process checks every copy at the end;
# each document is one check of the tier.
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
build=$1 result=$2 pattern=${3:-}
export B=$build F=tests/fixtures LC_ALL=C TZ=UTC
# $NVDIR: the test double of NVML (tests/nvml/), for LD_LIBRARY_PATH; a
# caller whose BUILD_DIR is a folder of wrappers (tests/valgrind) names it.
export NVDIR=${NVDIR:-$build/nvml}
unset NO_COLOR
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
exp=tests/cli/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
have_jq=$(command -v jq || true)
jobs=${CLI_JOBS:-$(nproc 2> /dev/null || echo 2)}
schema=${CLI_SCHEMA:-yes}

# json_wrappers BUILD DIR: DIR/rdma-* run BUILD/rdma-*; with -j, --json or
# --format json among the arguments and $RD_JSON_COPY set, the tool's stdout
# also goes to a new file in that folder (TOOL.PID).  The copy is made only
# where it cannot change what the case sees: stdout a regular file or a pipe,
# not the same file or pipe as stderr (tee could reorder the two), never a
# closed descriptor or a device (/dev/full, /dev/null: the tool meets those
# itself).  The tool's exit status is the script's.
json_wrappers() {
	local build real t
	build=$(cd "$1" && pwd -P) || return 1
	mkdir -p "$2" || return 1
	for real in "$build"/rdma-*; do
		[ -f "$real" ] && [ -x "$real" ] || continue
		t=${real##*/}
		cat > "$2/$t.tmp" <<-EOF
		#!/bin/bash
		# Written by tests/cli/run.sh: $t, its JSON copied for the schema check.
		real='$real'
		EOF
		cat >> "$2/$t.tmp" <<-'EOF'
		json=0 fmt=0
		for a; do
			if [ $fmt = 1 ]; then [ "$a" = json ] && json=1; fmt=0; continue; fi
			case $a in
			--) break ;;
			-j|--json|--format=json) json=1 ;;
			--format) fmt=1 ;;
			--*) ;;
			-*j*) [[ $a =~ ^-[A-Za-z]+$ ]] && json=1 ;;
			esac
		done
		if [ $json = 1 ] && [ -d "${RD_JSON_COPY:-}" ]; then
			o=$(readlink /proc/$$/fd/1 2> /dev/null) e=$(readlink /proc/$$/fd/2 2> /dev/null)
			if [ -n "$o" ] && [ "$o" != "$e" ] && { [ -f /proc/$$/fd/1 ] || [[ $o == pipe:* ]]; }; then
				"$real" "$@" | tee "$RD_JSON_COPY/${real##*/}.$$"
				exit "${PIPESTATUS[0]}"
			fi
		fi
		exec "$real" "$@"
		EOF
		chmod +x "$2/$t.tmp" && mv "$2/$t.tmp" "$2/$t" || return 1
	done
}
if [ "$schema" != no ]; then
	if ! json_wrappers "$build" "$build/cli-json/bin"; then
		echo "cli: could not write the JSON copying scripts into $build/cli-json/bin" >&2
		exit 1
	fi
	B=$build/cli-json/bin
fi

# one I NAME STATUS CMD: run case NAME into $tmp/I; res holds 1 (passed) or
# 0, report what differs.  Cases run $jobs at a time and are reported in
# order; each has its own directory, so they never share a file.
one() {
	local d=$tmp/$1 name=$2 status=$3 cmd=$4 rc ok=1 why=""
	mkdir -p "$d/json"
	RD_JSON_COPY=$d/json bash -o pipefail -c "$cmd" > "$d/out" 2> "$d/err" < /dev/null
	rc=$?
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$d/out" "$exp/$name.out"
		if [ -s "$d/err" ]; then cp "$d/err" "$exp/$name.err"; else rm -f "$exp/$name.err"; fi
	fi
	: > "$d/diff"
	if [ "$rc" != "$status" ]; then ok=0 why="exit status $rc, expected $status"; fi
	if [ ! -f "$exp/$name.out" ]; then
		ok=0 why="$why; no $exp/$name.out"
	elif ! diff -u "$exp/$name.out" "$d/out" > "$d/diff"; then
		ok=0 why="$why; stdout differs"
	fi
	if [ -f "$exp/$name.err" ]; then
		if ! diff -u "$exp/$name.err" "$d/err" >> "$d/diff"; then ok=0 why="$why; stderr differs"; fi
	elif [ -s "$d/err" ]; then
		ok=0 why="$why; unexpected stderr"
		sed 's/^/  stderr: /' "$d/err" | head -20 >> "$d/diff"
	fi
	case $name in
	*-json)
		if [ -n "$have_jq" ] && ! jq -e . < "$d/out" > /dev/null 2>&1; then
			ok=0 why="$why; invalid JSON"
		fi ;;
	esac
	if [ $ok = 0 ]; then
		{
			echo "FAIL: $name: ${why#; }"
			echo "  \$ $cmd"
			head -40 "$d/diff" | sed 's/^/  /'
		} > "$d/report"
	fi
	# what the schema check reads: each copy of a tool's JSON, or the case's
	# stdout when no tool was asked for JSON (JSON there has no schema)
	local f any=0
	for f in "$d"/json/*; do
		[ -f "$f" ] || continue
		any=1
		printf '%s\t%s\t%s\n' "$name" "$(basename "${f%.*}")" "$f"
	done > "$d/json.list"
	[ $any = 1 ] || printf '%s\t-\t%s\n' "$name" "$d/out" > "$d/json.list"
	echo $ok > "$d/res"
}

# The generated bad-input tree is made once, before cases race for it (a
# caller running one case at a time, as tests/valgrind/run.sh, does it itself).
if [ -z "$pattern" ] && [ -x tests/cli/badinput-gen.sh ]; then
	tests/cli/badinput-gen.sh "$B" rdma-devinfo --help > /dev/null 2>&1
fi
n=0 running=0
while IFS='|' read -r name status cmd; do
	name=${name//[[:space:]]/} status=${status//[[:space:]]/}
	case $name in ''|'#'*) continue ;; esac
	[ -n "$pattern" ] && case $name in $pattern) ;; *) continue ;; esac
	n=$((n + 1))
	one "$n" "$name" "$status" "${cmd# }" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done < <(cat tests/cli/cases tests/cli/cases.d/*.cases 2>/dev/null)
wait
# A whole run also holds the case list to its expectations: two cases of one
# name would share (and overwrite) one expected output, and an expected
# output no case owns is a case that was lost.
if [ -z "$pattern" ]; then
	names=$(cat tests/cli/cases tests/cli/cases.d/*.cases 2> /dev/null |
		awk -F'|' '{ gsub(/[[:space:]]/, "", $1) } $1 != "" && $1 !~ /^#/ { print $1 }' | sort)
	for dup in $(uniq -d <<< "$names"); do
		echo "FAIL: case name $dup is used twice"
		fail=$((fail + 1))
	done
	for orphan in $(comm -23 <(ls "$exp" | sed -E 's/\.(out|err)$//' | sort -u) <(uniq <<< "$names")); do
		echo "FAIL: $exp/$orphan.*: no case of that name (a lost case?)"
		fail=$((fail + 1))
	done
fi
for ((i = 1; i <= n; i++)); do
	if [ "$(cat "$tmp/$i/res" 2> /dev/null)" = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		if [ -f "$tmp/$i/report" ]; then cat "$tmp/$i/report"; else echo "FAIL: case $i: no result"; fi
	fi
done

# The schema check: every tool's JSON of every case run, in one process.
# Without its validator the tier fails (it never skips).
if [ "$schema" != no ]; then
	for ((i = 1; i <= n; i++)); do cat "$tmp/$i/json.list" 2> /dev/null; done > "$tmp/json.list"
	schema_t0=$(date +%s%N)
	if [ -x /usr/bin/python3 ]; then
		/usr/bin/python3 tests/cli/schema-check.py schemas "$tmp/json.list" > "$tmp/schema.out" 2>&1
	else
		echo "FAIL: schema: no /usr/bin/python3 (apt-get install python3 python3-jsonschema)" > "$tmp/schema.out"
	fi
	grep -v '^schema: ' "$tmp/schema.out"
	counts=$(sed -n 's/^schema: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/schema.out")
	if [ -z "$counts" ]; then
		echo "FAIL: schema: tests/cli/schema-check.py gave no count"
		counts="0 1"
	fi
	read -r sp sf <<< "$counts"
	echo "schema: $sp JSON documents valid, $sf failed ($(( ($(date +%s%N) - schema_t0) / 1000000 )) ms)"
	pass=$((pass + sp)) fail=$((fail + sf))
fi

mkdir -p "$(dirname "$result")"
tier_secs=$(( $(date +%s) - tier_t0 ))
[ -z "$pattern" ] || FLOOR_EXEMPT=1
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "cli$(case $build in *san*) echo "(asan+ubsan)";; esac): $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
