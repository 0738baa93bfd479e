#!/bin/bash
# rdma-top keeps every file it samples open and re-reads it with pread(): a
# refresh opens nothing.  Count the open calls (strace) of one sample and of
# twenty on the same sysroot: they must be the same.
# usage: tests/cli/top-opens.sh BUILD_DIR FIXTURE
set -u
cd "$(dirname "$0")/../.." || exit 2
B=$1 fx=$2
if ! command -v strace > /dev/null; then
	echo "not ok - strace is not installed (apt-get install strace)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# LeakSanitizer cannot run under ptrace; the CLI cases check leaks elsewhere.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
opens() { # samples
	strace -f -qq -e trace=open,openat,openat2 -o "$tmp/trace" \
		"$B/rdma-top" --sysroot "tests/fixtures/$fx" -b -j -i 0 -n "$1" > /dev/null 2> "$tmp/err" || return 1
	grep -c 'open' "$tmp/trace"
}
one=$(opens 1) || { echo "not ok - rdma-top failed"; cat "$tmp/err"; exit 1; }
twenty=$(opens 20) || { echo "not ok - rdma-top failed"; cat "$tmp/err"; exit 1; }
strace -f -qq -e trace=pread64 -o "$tmp/trace" "$B/rdma-top" --sysroot "tests/fixtures/$fx" -b -j -i 0 -n 20 > /dev/null 2>&1
reads=$(grep -c 'pread64' "$tmp/trace")
if [ "$one" = "$twenty" ] && [ "$one" -gt 0 ]; then
	echo "ok - 19 more samples open no file"
else
	echo "not ok - opens: $one for one sample, $twenty for twenty"
	exit 1
fi
if [ "$reads" -ge 20 ]; then
	echo "ok - the kept files are re-read with pread"
else
	echo "not ok - only $reads pread calls in 20 samples"
	exit 1
fi
