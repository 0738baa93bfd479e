#!/bin/bash
# The generated part of the bad-input corpus (tests/fixtures/gen-bad-input.sh:
# 4096 GID slots, odd device names, empty directories, a FIFO) is made once per
# build directory, into BUILD_DIR/fixtures/bad-input-gen, and remade when the
# generator changes; then the tool runs on it.  Used by cases.d/badinput.cases.
#
# usage: tests/cli/badinput-gen.sh BUILD_DIR TOOL [ARGS...]
#   runs BUILD_DIR/TOOL --sysroot <generated tree> ARGS...
set -u
cd "$(dirname "$0")/../.." || exit 2
B=$1 tool=$2
shift 2
gen=$B/fixtures/bad-input-gen
script=tests/fixtures/gen-bad-input.sh
# Cases may run in parallel (tests/valgrind/run.sh): one generates under a
# lock, into a temporary tree renamed into place, and the others wait for it.
mkdir -p "$B/fixtures"
exec 9>"$gen.lock"
flock -w 120 9 || { echo "badinput-gen: $gen.lock: still locked after 120 s" >&2; exit 97; }
if [ ! -f "$gen.stamp" ] || [ "$script" -nt "$gen.stamp" ]; then
	rm -rf "$gen" "$gen.stamp" "$gen.tmp"
	mkdir -p "$gen.tmp"
	"$script" "$gen.tmp" >&2 || { echo "badinput-gen: $script failed" >&2; exit 97; }
	mv "$gen.tmp" "$gen" && touch "$gen.stamp"
fi
exec 9>&-
# Run from beside the tree with a relative --sysroot: warnings name the
# files read, and must read the same in every build directory.
bin=$(cd "$B" && pwd)/$tool
cd "$B/fixtures" || exit 2
exec "$bin" --sysroot bad-input-gen "$@"
