# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034 # rounds, keep and args are the caller's
# bench/fabric-opts.sh: the command line every fabric bench takes (sourced, not
# run, before fabric-lib.sh): -n ROUNDS, -k, numeric operands, the tools to time
# and the programs a bench needs.  The caller sets top, rounds, keep and die().

# fab_opts LAST "$@": -n ROUNDS and -k; the operands in the array args.  -h or
# an unknown option prints the caller's header comment (lines 3 to LAST).
fab_opts() {
	local last=$1 opt OPTIND=1
	shift
	while getopts "n:kh" opt; do
		case $opt in
		n) rounds=$OPTARG ;;
		k) keep=1 ;;
		*) sed -n "3,${last}p" "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	args=("$@")
	fab_count -n "$rounds"
}

# fab_count WHAT VALUE: VALUE is a positive whole number, else die naming WHAT.
fab_count() { case "$2" in ''|*[!0-9]*|0) die "$1 wants a positive number" ;; esac; }

# fab_tool VAR NAME: the path of the tool to time: $VAR when set (it must be
# executable), else build/NAME, built when missing.  The bench's own programs
# (build/bench/, make bench-build) are built too.
fab_tool() {
	local path=${!1:-$top/build/$2}
	if [ ! -x "$path" ]; then
		[ -z "${!1:-}" ] || die "$path is not executable"
		make -C "$top" -s > /dev/null || die "make failed"
	fi
	make -C "$top" -s bench-build > /dev/null || die "cannot build bench/*.c (make bench-build)"
	[ -x "$top/build/bench/runtime" ] || die "$top/build/bench/runtime is missing (make bench-build)"
	printf '%s\n' "$path"
}

# fab_needs PACKAGES PROGRAM...: each program on PATH, else die naming the packages.
fab_needs() {
	local pkgs=$1 t
	shift
	for t; do
		command -v "$t" > /dev/null || die "$t is needed (apt install $pkgs)"
	done
}
