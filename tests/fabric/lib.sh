# shellcheck shell=bash
# lib.sh -- what a fabric scenario (tests/fabric/t-*.sh) sources:
#
#   . "$(dirname "$0")/lib.sh"
#
# It sources sim.sh and oracle.sh, installs sim_trap (the simulated fabric is
# stopped on every exit), and gives the assertion helpers below. Results are
# lines "ok - NAME" and "FAIL - NAME" (details after a FAIL, indented with
# "    | "), which tests/fabric/run.sh counts. Helpers return 0/1 like the
# check they ran: run scenarios under set -u, not set -e.
#
# Environment from run.sh (defaults for a scenario run by hand):
#   RD_ROOT       the repository (default: two levels above this file)
#   FABRIC_BUILD  the build directory, absolute (default $RD_ROOT/build)
#   FABRIC_DIR    this scenario's own directory: net files, the fabric's
#                 logs, outputs (default: a new build/fabric/NAME.XXXXXX)

RD_ROOT=${RD_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)}
FABRIC_BUILD=${FABRIC_BUILD:-$RD_ROOT/build}
if [ -z "${FABRIC_DIR:-}" ]; then
	mkdir -p "$FABRIC_BUILD/fabric"
	FABRIC_DIR=$(mktemp -d "$FABRIC_BUILD/fabric/$(basename "$0" .sh).XXXXXX") || exit 2
fi
mkdir -p "$FABRIC_DIR" || exit 2
export LC_ALL=C

# The scenario's log (its stdout), for what must reach it whatever a check
# does with a command's output: sim_run's stacks of a command that timed out.
exec {FAB_LOG_FD}>&1

# shellcheck source=tests/fabric/sim.sh
. "$RD_ROOT/tests/fabric/sim.sh"
# shellcheck source=tests/fabric/oracle.sh
. "$RD_ROOT/tests/fabric/oracle.sh"
sim_trap

# shellcheck disable=SC2034 # for the scenarios
GEN_NET=$RD_ROOT/tests/fabric/gen-net.sh

fab_log() { echo "# $*"; }
fab_pass() { echo "ok - $1"; }
fab_fail() {
	local name=$1
	shift
	echo "FAIL - $name"
	[ $# -eq 0 ] || printf '    | %s\n' "$@"
	return 1
}

# _fab_detail FILE: the last 40 lines of a check's output, indented.
_fab_detail() {
	[ -s "$1" ] || return 0
	[ "$(wc -l < "$1")" -le 40 ] || echo "    | ... (last 40 of $(wc -l < "$1") lines)"
	tail -n 40 "$1" | sed 's/^/    | /'
}

_fab_n=0
# _fab_capture CMD...: run CMD (a command or function, in this shell) with
# stdout and stderr in the file $_fab_out, stdin from /dev/null; status in
# _fab_rc.
_fab_capture() {
	_fab_n=$((_fab_n + 1))
	_fab_out=$FABRIC_DIR/.check.$_fab_n
	_fab_rc=0
	"$@" > "$_fab_out" 2>&1 < /dev/null || _fab_rc=$?
}

# fab_check NAME CMD...: ok if CMD exits 0.
fab_check() {
	local name=$1
	shift
	_fab_capture "$@"
	if [ "$_fab_rc" = 0 ]; then fab_pass "$name"; return 0; fi
	fab_fail "$name" "command: $*" "exit status: $_fab_rc"
	_fab_detail "$_fab_out"
	return 1
}

# fab_check_fails NAME CMD...: ok if CMD exits non-zero.
fab_check_fails() {
	local name=$1
	shift
	_fab_capture "$@"
	if [ "$_fab_rc" != 0 ]; then fab_pass "$name"; return 0; fi
	fab_fail "$name" "command unexpectedly succeeded: $*"
	_fab_detail "$_fab_out"
	return 1
}

# fab_check_eq NAME EXPECTED ACTUAL: string comparison (a diff when they
# are several lines).
fab_check_eq() {
	if [ "$2" = "$3" ]; then fab_pass "$1"; return 0; fi
	if [ "$(printf '%s\n' "$2" | wc -l)" -gt 1 ] || [ "$(printf '%s\n' "$3" | wc -l)" -gt 1 ]; then
		fab_fail "$1" "expected (-) and actual (+):"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | grep '^[<>]' | sed 's/^</-/; s/^>/+/' |
			head -40 | sed 's/^/    | /'
		return 1
	fi
	fab_fail "$1" "expected: '$2'" "actual:   '$3'"
}

# fab_check_grep NAME ERE CMD...: ok if CMD exits 0 and a line of its output
# matches ERE.
fab_check_grep() {
	local name=$1 re=$2
	shift 2
	_fab_capture "$@"
	if [ "$_fab_rc" = 0 ] && grep -Eq -- "$re" "$_fab_out"; then fab_pass "$name"; return 0; fi
	if [ "$_fab_rc" != 0 ]; then
		fab_fail "$name" "command: $*" "exit status: $_fab_rc"
	else
		fab_fail "$name" "command: $*" "no line matches: $re"
	fi
	_fab_detail "$_fab_out"
	return 1
}

# fab_check_wait NAME SECONDS CMD...: ok as soon as CMD exits 0 (tried every
# 0.1 s), FAIL if it has not after SECONDS (with its last output).
fab_check_wait() {
	local name=$1 secs=$2 dl
	shift 2
	dl=$(_sim_deadline "$secs")
	while :; do
		_fab_capture "$@"
		if [ "$_fab_rc" = 0 ]; then fab_pass "$name"; return 0; fi
		_sim_past "$dl" && break
		sleep 0.1
	done
	fab_fail "$name" "not true after $secs s: $*" "last exit status: $_fab_rc"
	_fab_detail "$_fab_out"
	return 1
}

# fab_save FILE CMD...: CMD's stdout into FILE (for fab_check: the status is
# CMD's).
fab_save() {
	local f=$1
	shift
	"$@" > "$f"
}

# fab_links_match ERE: oracle_links has a line matching ERE (for fab_check_wait).
fab_links_match() { oracle_links > "$FABRIC_DIR/.links" && grep -Eq -- "$1" "$FABRIC_DIR/.links"; }

# fab_links_asym FILE: the links of an oracle_links output that are not
# listed from both ends alike (each cabled port's peer line must name it
# back, with the same state, physical state, width and speed); nothing when
# all are.
fab_links_asym() {
	awk '$7 != "-" { l[$1 " " $2] = $3 " " $4 " " $5 " " $6 " " $7 " " $8 }
	END {
		for (k in l) {
			split(l[k], f, " ")
			r = f[5] " " f[6]
			if (!(r in l)) { print k ": no line for its peer " r; continue }
			split(l[r], g, " ")
			if (g[5] " " g[6] != k || g[1] g[2] g[3] g[4] != f[1] f[2] f[3] f[4])
				print k " <-> " r ": " l[k] " / " l[r]
		}
	}' "$1" | sort
}
