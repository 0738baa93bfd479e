#!/bin/bash
# VM scenario: every tool on the real rxe0 under valgrind memcheck — the
# verbs, netlink and rdma_cm paths the CLI tier (tests/valgrind/run.sh) cannot
# reach.  Each run: the tool's own exit status, no memory error, no leak
# beyond tests/valgrind/rdma-diag.supp, no file descriptor open at exit that
# the tool did not inherit.  Valgrind under TCG is slow: few runs, tiny
# iteration counts, generous timeouts.  Leaves the VM as it found it.
# VMENV_BUILD=DIR (run.sh exports VMENV_*) tests another build tree.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

BUILD=${VMENV_BUILD:-$RD_ROOT/build}
case $BUILD in /*) ;; *) BUILD=$RD_ROOT/$BUILD ;; esac
DEV=${VM_RDMA_DEV:-rxe0}
NET=${VM_NETDEV:-eth0}
SYS=/sys/class/infiniband/$DEV/ports/1
# On the shared scratch directory: run.sh keeps it when a check failed, with
# the valgrind logs.
W=${VM_SCRATCH:-/tmp}/t-valgrind
rm -rf "$W"
mkdir -p "$W/logs"
epid="" tpid=""

cleanup() {
	[ -z "$epid" ] || kill -KILL "$epid" 2>/dev/null
	[ -z "$tpid" ] || kill -KILL "$tpid" 2>/dev/null
	ip link set "$NET" up
	vm_retry 30 grep -q ACTIVE "$SYS/state"
}
trap cleanup EXIT

if ! command -v valgrind >/dev/null 2>&1; then
	vm_skip "valgrind scenario" "valgrind is not installed (apt-get install valgrind)"
	exit 0
fi
# Under TCG every run costs ~15 s of valgrind start-up: no origin tracking
# (the CLI tier has it) and no inlined frames in the stacks (-25 %).
VG_TRACK_ORIGINS=${VMENV_VG_TRACK_ORIGINS:-no} VG_EXTRA_OPTS=${VMENV_VG_EXTRA_OPTS:---read-inline-info=no} \
	vm_check "valgrind wrappers for $BUILD" "$RD_ROOT/tests/valgrind/run.sh" --wrappers "$BUILD" "$W/bin" || exit 0

# vg NAME TOOL ARGS...: TOOL under valgrind, stdout in $W/NAME.out, stderr in
# $W/NAME.err, its valgrind logs in $W/logs/NAME; returns the tool's status.
vg() {
	local name=$1 tool=$2; shift 2
	mkdir -p "$W/logs/$name"
	VG_LOGDIR=$W/logs/$name timeout -k 10 600 "$W/bin/$tool" "$@" >"$W/$name.out" 2>"$W/$name.err" </dev/null
}
# vg_clean NAME: the logs of run NAME have no error, leak or fd left open
vg_clean() { vm_check "$1: valgrind clean" "$RD_ROOT/tests/valgrind/run.sh" --check-logs "$W/logs/$1"; }
# vg_run NAME ERE TOOL ARGS...: exit status 0, a line of stdout matches ERE,
# nothing on stderr, valgrind clean
vg_run() {
	local name=$1 re=$2 rc=0 t0=$SECONDS; shift 2
	vg "$name" "$@" || rc=$?
	vm_log "$name: $((SECONDS - t0)) s under valgrind"
	vm_check_eq "$name: exit status 0, empty stderr" "0:" "$rc:$(head -c 2000 "$W/$name.err")"
	vm_check_output "$name: output" "$re" cat "$W/$name.out"
	vg_clean "$name"
}

# ---- one-shot tools: verbs contexts, libnl-route, GID tables
vg_run devinfo-v "^  port 1\$" rdma-devinfo -v -d "$DEV"
vg_run devinfo-j '"dev": "'"$DEV"'"' rdma-devinfo -j
vg_run gids "^$DEV +1 " rdma-gids
vg_run gids-best "^$DEV 1 [0-9]+ \\(RoCE v2, $VM_IP on $NET\\)\$" rdma-gids --best
vg_run devmap "^$DEV port 1 ==> $NET " rdma-devmap
vg_run top-batch-j '"sample":2,"dev":"'"$DEV"'"' rdma-top -b -j -n 2 -i 0.5 -d "$DEV"
vg_run selftest "^$DEV port 1: PASS(, with a warning at counters)?\$" rdma-selftest -d "$DEV" --timeout 60 -n 5 --pings 5

# ---- rdma-events across a link down/up; one watcher ends on SIGINT, one on SIGTERM
mkdir -p "$W/logs/events-j" "$W/logs/events-text"
VG_LOGDIR=$W/logs/events-j "$W/bin/rdma-events" -j --state >"$W/events-j.out" 2>"$W/events-j.err" </dev/null &
epid=$!
VG_LOGDIR=$W/logs/events-text "$W/bin/rdma-events" >"$W/events-text.out" 2>"$W/events-text.err" </dev/null &
tpid=$!
t0=$SECONDS
vm_check "events: watcher ready (STATE)" vm_retry 240 grep -q '"event":"STATE"' "$W/events-j.out"
vm_log "events: first line after $((SECONDS - t0)) s"
# the text watcher prints nothing before an event: it is ready once it holds
# the device's uverbs node open (its async events come from there)
uverbs_open() { local f; for f in /proc/"$1"/fd/*; do [[ $(readlink "$f") == /dev/infiniband/uverbs* ]] && return 0; done; return 1; }
vm_check "events (text): watcher ready (uverbs node open)" vm_retry 240 uverbs_open "$tpid"
ip link set "$NET" down
vm_check "events: PORT_ERR" vm_retry 120 grep -q '"event":"PORT_ERR"' "$W/events-j.out"
vm_retry 30 grep -q DOWN "$SYS/state"
ip link set "$NET" up
vm_check "events: PORT_ACTIVE" vm_retry 120 grep -q '"event":"PORT_ACTIVE"' "$W/events-j.out"
vm_check "events: LINK_UP in text" vm_retry 120 grep -q " LINK_UP " "$W/events-text.out"
vm_retry 30 grep -q ACTIVE "$SYS/state"
# stop PID SIG: send SIG; the exit status once it ended (valgrind's leak check
# at exit takes a while under TCG)
stop() {
	local pid=$1 rc=0
	kill "-$2" "$pid"
	vm_retry 180 sh -c "! kill -0 $pid 2>/dev/null"
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		echo "still running 180 s after SIG$2"
	fi
	wait "$pid" || rc=$?
	echo "exit status $rc"
	return "$rc"
}
vm_check "events -j: SIGINT, exit status 0" stop "$epid" INT
epid=""
vm_check "events text: SIGTERM, exit status 0" stop "$tpid" TERM
tpid=""
vm_check_eq "events: no warnings" "" "$(cat "$W/events-j.err" "$W/events-text.err")"
vg_clean events-j
vg_clean events-text

cleanup
trap - EXIT
vm_check_eq "left as found: $DEV ACTIVE" "ACTIVE" "$(sed 's/^[0-9]*: //' "$SYS/state")"
