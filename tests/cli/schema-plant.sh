#!/bin/bash
# The schema check can fail: a tool's real JSON passes its schema, and the
# same JSON with one planted fault (an upper-case verdict, a GUID in the colon
# form, a required key taken out, a number as a string, a key no schema
# names) fails it, with the path of the fault.  Used by cases.d/schema.cases.
#
# usage: tests/cli/schema-plant.sh TOOL JQ-FILTER COMMAND...
#   runs COMMAND (which prints TOOL's JSON), checks it as printed, then as
#   JQ-FILTER changed it (for JSON lines: each line); prints both results.
#   Exit status: that of the planted check (1: it was caught).  COMMAND may
#   exit 0 or 1 (a tool's verdict).  JQ-FILTER "-": only COMMAND's output is
#   checked (a tool with no schema, output that is not JSON).
# usage: tests/cli/schema-plant.sh --no-validator
#   the check without python3-jsonschema: it must fail, not pass or skip.
set -u
cd "$(dirname "$0")/../.." || exit 2
check=tests/cli/schema-check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --no-validator ]; then
	printf 'x\trdma-devinfo\t%s\n' "$tmp/doc" > "$tmp/list"
	echo '[]' > "$tmp/doc"
	/usr/bin/python3 -c 'import runpy, sys; sys.modules["jsonschema"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
		"$check" schemas "$tmp/list"
	exit
fi
tool=$1 filter=$2
shift 2
"$@" > "$tmp/doc"
rc=$?
[ $rc -le 1 ] || { echo "schema-plant: the command failed ($rc)"; exit 2; }
if [ "$filter" = - ]; then	# the output itself is the fault
	printf 'as-printed\t%s\t%s\n' "$tool" "$tmp/doc" > "$tmp/list"
	/usr/bin/python3 "$check" schemas "$tmp/list"
	exit
fi
jq -c "$filter" "$tmp/doc" > "$tmp/planted" || { echo "schema-plant: jq failed"; exit 2; }
printf 'as-printed\t%s\t%s\n' "$tool" "$tmp/doc" > "$tmp/list1"
printf 'planted\t%s\t%s\n' "$tool" "$tmp/planted" > "$tmp/list2"
/usr/bin/python3 "$check" schemas "$tmp/list1"
/usr/bin/python3 "$check" schemas "$tmp/list2"
