# shellcheck shell=bash
# demo-lib.sh -- helpers for the `make demo` scripts (tests/vm/demo*.sh).
#
#   . "$RD_ROOT/tests/vm/demo-lib.sh"
#
# The demo is a list of sections, one per tool: a heading saying what the
# tool shows, then commands printed as "$ CMD" with their output as it
# comes (run.sh --show streams it to the user's terminal), then checks on
# that output. A command that exits with another status than the one
# expected is a FAIL result, so the demo cannot pass silently; the checks
# (vm_check_* from lib.sh) are results too. `make check` runs the same
# scripts in its pair boot.

# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
PATH=$RD_ROOT/build:$PATH
DEMO_OUT=/tmp/demo	# the output of every shown command, for the checks
DEMO_TIMEOUT=${DEMO_TIMEOUT:-60}	# longest a shown command may take
rm -rf "$DEMO_OUT"
mkdir -p "$DEMO_OUT"

# demo_section TOOL WHAT... -- the heading of one tool's section.
demo_section() {
	local tool=$1
	shift
	printf '\n======== %s -- %s\n' "$tool" "$*"
}

# demo_note TEXT... -- one line of explanation between commands.
demo_note() { printf '# %s\n' "$*"; }

# demo_run [-e STATUS] [-o NAME] CMD [ARG...] -- print "$ CMD ARG...", run it
# (at most DEMO_TIMEOUT s) with stdout and stderr shown as they come and kept
# in $DEMO_OUT/NAME (default: last). FAIL when it exits with another status
# than STATUS (default 0). Returns the command's status.
demo_run() {
	local want=0 name=last rc
	while :; do
		case $1 in
		-e) want=$2; shift 2 ;;
		-o) name=$2; shift 2 ;;
		*) break ;;
		esac
	done
	# A pipeline run as sh -c 'A | B' is shown as typed, quoting and all.
	if [ "$1" = sh ] && [ "${2:-}" = -c ] && [ $# = 3 ]; then
		printf '\n$ %s\n' "$3"
	else
		printf '\n$ %s\n' "$*"
	fi
	timeout -k 5 "$DEMO_TIMEOUT" "$@" </dev/null 2>&1 | tee "$DEMO_OUT/$name"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || [ "$rc" != "$want" ] || echo "(exit status $rc)"
	# Silence is an answer too (rdma-doctor --nhc on a healthy node): say so.
	[ "$rc" != 0 ] || [ -s "$DEMO_OUT/$name" ] || echo "(no output, exit status 0: nothing to report)"
	if [ "$rc" != "$want" ]; then
		case $rc in
		124|137) vm_fail "demo: $*" "killed after ${DEMO_TIMEOUT}s" ;;
		*) vm_fail "demo: $*" "exit status $rc, expected $want" ;;
		esac
	fi
	return "$rc"
}

# demo_do CMD [ARG...] -- print "$ CMD ARG..." and run a setup command
# (ip, rdma, ...) quietly; FAIL with its output when it fails.
demo_do() {
	printf '$ %s\n' "$*"
	_demo_quiet "$@" && return 0
	vm_fail "demo: $*" "exit status $_vm_rc: $(cat "$_vm_out")"
}
_demo_quiet() {
	_vm_capture timeout -k 5 "$DEMO_TIMEOUT" "$@"
	[ "$_vm_rc" = 0 ]
}

# demo_check NAME ERE [NAME] -- PASS when a line of the output kept under
# NAME (default: last) matches the extended regular expression ERE.
demo_check() {
	local out=$DEMO_OUT/${3:-last}
	if grep -Eq -- "$2" "$out"; then
		vm_pass "$1"
		return 0
	fi
	vm_fail "$1" "no line of the output above matches: $2"
}
