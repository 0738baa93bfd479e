#!/bin/bash
# Hostile paths for the CLI tier: make one hostile object, run a tool on it,
# then show what became of the object (DESIGN.md 4: a tool refuses it with
# the reason and leaves it as it was).
#
# usage: tests/cli/hostile.sh KIND COMMAND...   ({} in COMMAND is the path)
#   symlink    a symlink to a regular file holding "keep"
#   dangling   a symlink to a name that does not exist
#   fifo       a FIFO with no writer
#   silent     a FIFO whose writer holds it open and writes nothing
#   chardev    a character device node (1,3: the null device's numbers)
#   dir        a directory
#   zero       /dev/zero itself (read-only uses only)
#   binary     a file with a NUL byte on its second line
#   big        a sparse regular file of 2 GiB
#   longline   one line of 2 MiB (no newline)
#   full       a file on a full file system (a 64 KiB tmpfs in a private mount
#              namespace; needs root and unshare, else says so and exits 77)
# Prints the command's stdout and stderr (the scratch directory as DIR), its
# exit status, then the object's state; exits with the command's status.
set -u
kind=$1
shift
d=$(mktemp -d "${TMPDIR:-/tmp}/rd-hostile.XXXXXX")
trap 'rm -rf "$d"' EXIT
p=$d/target
writer=
case $kind in
symlink) echo keep > "$d/real"; ln -s real "$p" ;;
dangling) ln -s absent "$p" ;;
fifo) mkfifo "$p" ;;
silent)
	mkfifo "$p"
	sleep 60 > "$p" &
	writer=$! ;;
chardev) mknod "$p" c 1 3 || exit 77 ;;
dir) mkdir "$p" ;;
zero) p=/dev/zero ;;
binary) printf 'node1\nnode\0002\n' > "$p" ;;
big) truncate -s 2G "$p" ;;
longline) head -c 2097152 /dev/zero | tr '\0' a > "$p" ;;
full)
	if [ "$(id -u)" != 0 ] || ! unshare -m true 2> /dev/null; then
		echo "hostile.sh: a full file system needs root and unshare -m" >&2
		exit 77
	fi ;;
*) echo "hostile.sh: unknown kind '$kind'" >&2; exit 2 ;;
esac

args=()
for a in "$@"; do args+=("${a//\{\}/$p}"); done
if [ "$kind" = full ]; then
	# The tool runs in a mount namespace of its own, over a tmpfs filled up.
	unshare -m bash -c 'mount -t tmpfs -o size=64k rd-full "$1" &&
		head -c 1M /dev/zero > "$1/filler" 2> /dev/null; shift; exec "$@"' \
		full "$d" "${args[@]}" > "$d.out" 2> "$d.err"
else
	"${args[@]}" > "$d.out" 2> "$d.err"
fi
rc=$?
[ -z "$writer" ] || kill "$writer" 2> /dev/null
sed "s|$d|DIR|g" "$d.out"
sed "s|$d|DIR|g" "$d.err" >&2
rm -f "$d.out" "$d.err"
echo "exit $rc"
case $kind in
symlink) [ -L "$p" ] && echo "still a symlink to $(readlink "$p"), holding: $(cat "$d/real")" ;;
dangling) [ -L "$p" ] && [ ! -e "$d/absent" ] && echo "still a dangling symlink" ;;
fifo | silent) [ -p "$p" ] && echo "still a FIFO" ;;
chardev) [ -c "$p" ] && echo "still a character device" ;;
dir) [ -d "$p" ] && echo "still a directory" ;;
esac
left=$(cd "$d" && ls -A | grep -v -x -e target -e real)
[ -z "$left" ] || echo "left in the directory: $left"
exit $rc
