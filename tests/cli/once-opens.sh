#!/bin/bash
# A run reads each fact once: no file under the sysroot is opened twice by one
# run of a tool.  The tool runs under strace -y, which names the file each
# open reached (or, for an open that failed, the directory it was tried in),
# so a file is one file however the tool spelled its path (/sys/class/net/X
# or the /sys/devices path the link leads to, by path or relative to a cached
# directory).  O_PATH opens are the sysroot layer's handles on directories and
# read nothing; they are not counted.  Prints the files opened more than
# once, with their counts, when there are any.
# usage: tests/cli/once-opens.sh BUILD_DIR FIXTURE TOOL [ARG...]
#   FIXTURE: a name under tests/fixtures, or a path to a sysroot (one with a '/')
set -u
cd "$(dirname "$0")/../.." || exit 2
B=$1 fx=$2 tool=$3
shift 3
if ! command -v strace > /dev/null; then
	echo "not ok - strace is not installed (apt-get install strace)"
	exit 1
fi
case $fx in */*) tree=$fx ;; *) tree=tests/fixtures/$fx ;; esac
root=$(cd "$tree" && pwd -P) || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# LeakSanitizer cannot run under ptrace; the CLI cases check leaks elsewhere.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
strace -f -qq -y -e trace=open,openat,openat2 -o "$tmp/trace" \
	"$B/$tool" --sysroot "$tree" "$@" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" -gt 2 ]; then
	echo "not ok - $tool exited $rc"
	cat "$tmp/err"
	exit 1
fi
# 'openat(3</dir>, "name", FLAGS) = 4</dir/name>' or '... = -1 ENOENT (...)'
awk -v root="$root" '
	/O_PATH/ || !/open/ { next }
	{
		path = ""
		if (match($0, /\) = [0-9]+<.*>$/)) {
			path = substr($0, RSTART, RLENGTH)
			sub(/^\) = [0-9]+</, "", path); sub(/>$/, "", path)
		} else if (match($0, /\("[^"]*"/)) {	# open("path", ...)
			path = substr($0, RSTART + 2, RLENGTH - 3)
		} else if (match($0, /\([0-9]+<[^>]*>, "[^"]*"/)) {
			s = substr($0, RSTART + 1, RLENGTH - 1)
			dir = s; sub(/^[0-9]+</, "", dir); sub(/>, ".*/, "", dir)
			name = s; sub(/^.*, "/, "", name); sub(/"$/, "", name)
			path = name ~ /^\// ? name : dir "/" name
		} else if (match($0, /\(AT_FDCWD(<[^>]*>)?, "[^"]*"/)) {
			s = substr($0, RSTART, RLENGTH)
			dir = s; sub(/^\(AT_FDCWD</, "", dir); sub(/>, ".*/, "", dir)
			name = s; sub(/^.*, "/, "", name); sub(/"$/, "", name)
			path = name ~ /^\// ? name : dir "/" name
		}
		if (index(path, root "/") == 1)
			n[substr(path, length(root) + 1)]++
	}
	END {
		for (p in n) if (n[p] > 1) printf "%6d %s\n", n[p], p > again
		printf "%d\n", length(n) > seen
	}
' again="$tmp/again.u" seen="$tmp/seen" "$tmp/trace" || { echo "not ok - cannot read the trace"; exit 1; }
# A run that opened nothing there proves nothing (a path that did not match).
if [ "$(cat "$tmp/seen")" -lt 1 ]; then
	echo "not ok - no open under $root in the trace"
	exit 1
fi
touch "$tmp/again.u"
sort -k2 "$tmp/again.u" > "$tmp/again"
if [ -s "$tmp/again" ]; then
	echo "not ok - $tool opened $(wc -l < "$tmp/again") files more than once:"
	cat "$tmp/again"
	exit 1
fi
echo "ok - $tool opened each file under the tree once"
