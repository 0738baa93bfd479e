#!/bin/bash
# An output that is also an input, for the CLI tier (DESIGN.md 4: a tool
# refuses to write over what it reads, by any name, and leaves it as it was).
#
# usage: tests/cli/samefile.sh MODE INPUT COMMAND
#   Copies INPUT (a file, a directory tree, a pipe) to "in" in a scratch directory,
#   makes the names MODE asks for, and runs COMMAND (one bash command line,
#   with $B and $F) there, {in} and {out} replaced by the names:
#   same      {in} in,   {out} in
#   symlink   {in} link (a symlink to in), {out} in
#   hardlink  {in} in,   {out} hard (a hard link to in)
#   dirlink   {in} in,   {out} here/in (here: a symlink to ".")
#   none      {in} in,   {out} out (no clash)
# Prints the command's stdout and stderr ($F for the fixtures' path), its
# exit status, whether the input is unchanged, and any other file the
# command left; exits with the command's status.
set -u
mode=$1 input=$2 cmd=$3
B=$(realpath "$B") F=$(realpath "$F")
export B F
d=$(mktemp -d "${TMPDIR:-/tmp}/rd-samefile.XXXXXX")
trap 'rm -rf "$d"' EXIT
if [ -d "$input" ]; then cp -r "$input" "$d/in"; else cat "$input" > "$d/in"; fi
# What "in" holds: its names, kinds, link targets and contents.
snapshot() {
	(cd "$d" && find in -printf '%y %p %l\n' | sort && find in -type f -print0 | sort -z |
		xargs -0 -r sha256sum)
}
before=$(snapshot)
in=in out=in
case $mode in
same) ;;
symlink) ln -s in "$d/link"; in=link ;;
hardlink) ln "$d/in" "$d/hard"; out=hard ;;
dirlink) ln -s . "$d/here"; out=here/in ;;
none) out=out ;;
*) echo "samefile.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
cmd=${cmd//\{in\}/$in}
cmd=${cmd//\{out\}/$out}
(cd "$d" && bash -c "$cmd") > "$d.out" 2> "$d.err"
rc=$?
sed "s|$F|\$F|g" "$d.out"
sed "s|$F|\$F|g" "$d.err" >&2
rm -f "$d.out" "$d.err"
echo "exit $rc"
if [ "$(snapshot)" = "$before" ]; then
	echo "input unchanged"
else
	echo "input CHANGED"
fi
left=$(cd "$d" && ls -A | grep -v -x -e in -e link -e hard -e here)
[ -z "$left" ] || echo "left in the directory: $left"
exit $rc
