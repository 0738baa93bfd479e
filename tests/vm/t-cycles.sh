#!/bin/bash
# VM scenario: rdma-events and rdma-top keep running through 20 cycles of
# `rdma link delete rxe1` / `rdma link add rxe1` (rxe1 on a veth): no crash,
# every removal and addition reported, no fd leak, rows for the re-added
# device, and a clean exit on SIGINT/SIGTERM.  rxe cannot disassociate a user
# context: `rdma link delete` returns only once every process closed the
# device, so a delete that returns proves the watcher let go of it in time.
# Leaves the VM as it found it (rxe0 on eth0 only).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

E=$RD_ROOT/build/rdma-events
T=$RD_ROOT/build/rdma-top
DEV=${VM_RDMA_DEV:-rxe0}
CYCLES=20
D=/tmp/t-cycles
rm -rf "$D"
mkdir -p "$D"
J=$D/events.json
TOP=$D/top.json
epid="" tpid=""

cleanup() {
	[ -z "$epid" ] || kill -KILL "$epid" 2>/dev/null
	[ -z "$tpid" ] || kill -KILL "$tpid" 2>/dev/null
	[ ! -e /sys/class/infiniband/rxe1 ] || timeout 30 rdma link delete rxe1
	[ ! -e /sys/class/net/cyA ] || ip link delete cyA
}
trap cleanup EXIT

# count FILTER: JSON lines of the events file matching the jq FILTER
count() { jq -c "select($1)" "$J" 2>/dev/null | wc -l; }
count_is() { [ "$(count "$1")" -ge "$2" ]; }
top_row() { jq -e "select($1)" "$TOP" 2>/dev/null | grep -q .; }
# top_row_after N FILTER: a row after the file's first N lines matches.
top_row_after() { tail -n "+$(($1 + 1))" "$TOP" | jq -e "select($2)" 2>/dev/null | grep -q .; }

modprobe veth
ip link add cyA type veth peer name cyB
ip link set cyA up
ip link set cyB up
vm_check "rdma link add rxe1 on a veth" timeout 30 rdma link add rxe1 type rxe netdev cyA
vm_retry 20 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state

"$E" -j --utc --state >"$J" 2>"$D/events.err" </dev/null &
epid=$!
"$T" -b -j -i 0.3 >"$TOP" 2>"$D/top.err" </dev/null &
tpid=$!
vm_check "rdma-events watches rxe1" vm_retry 30 count_is '.event == "STATE" and .dev == "rxe1"' 1
vm_check "rdma-top samples rxe1" vm_retry 30 top_row '.dev == "rxe1" and .interval'
efd0=$(vm_fds "$epid") tfd0=$(vm_fds "$tpid")
vm_log "fds before the cycles: rdma-events $efd0, rdma-top $tfd0"

# ---- the cycles: delete, wait for the removal event, add, wait for the
# addition event and the port.
slow_del=0 max_del=0 lost=
t0=$SECONDS
for ((c = 1; c <= CYCLES; c++)); do
	a=${EPOCHREALTIME/./}
	if ! timeout 30 rdma link delete rxe1; then
		vm_fail "cycle $c: rdma link delete rxe1 returns" "hung or failed"
		break
	fi
	ms=$(((${EPOCHREALTIME/./} - a) / 1000))
	[ "$ms" -le "$max_del" ] || max_del=$ms
	[ "$ms" -lt 5000 ] || slow_del=$((slow_del + 1))
	vm_retry 20 count_is '.event == "DEVICE_REMOVED" and .dev == "rxe1"' "$c" || lost+=" removed:$c"
	if ! timeout 30 rdma link add rxe1 type rxe netdev cyA; then
		vm_fail "cycle $c: rdma link add rxe1" "failed"
		break
	fi
	vm_retry 20 count_is '.event == "DEVICE_ADDED" and .dev == "rxe1"' "$c" || lost+=" added:$c"
	vm_retry 20 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state
done
vm_log "$((c - 1)) cycles in $((SECONDS - t0)) s; slowest rdma link delete ${max_del} ms"
vm_check_eq "$CYCLES delete/add cycles done" "$CYCLES" "$((c - 1))"
vm_check_eq "every delete returned within 5 s" 0 "$slow_del"
vm_check_eq "every removal and addition seen as it happened" "" "$lost"
removed=$(count '.event == "DEVICE_REMOVED" and .dev == "rxe1"')
added=$(count '.event == "DEVICE_ADDED" and .dev == "rxe1"')
vm_log "rdma-events: $removed DEVICE_REMOVED and $added DEVICE_ADDED for rxe1 in $CYCLES cycles"
vm_check_eq "rdma-events: one DEVICE_REMOVED per cycle" "$CYCLES" "$removed"
vm_check_eq "rdma-events: one DEVICE_ADDED per cycle" "$CYCLES" "$added"
vm_check_eq "rdma-events: removed and added alternate" \
	"$(for ((c = 0; c < CYCLES; c++)); do printf 'DEVICE_REMOVED DEVICE_ADDED '; done)" \
	"$(jq -r 'select(.dev == "rxe1" and (.event | startswith("DEVICE_"))) | .event' "$J" | tr '\n' ' ')"

# The watcher must still see events of the re-added rxe1 (its context is new).
ip link set cyA down
vm_check "rdma-events: events of the re-added rxe1 (PORT_ERR)" \
	vm_retry 20 count_is '.event == "PORT_ERR" and .dev == "rxe1"' 1
ip link set cyA up
vm_retry 20 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state

n=$(wc -l <"$TOP")
vm_check "rdma-top: rows for the re-added rxe1" \
	vm_retry 20 top_row_after "$n" ".dev == \"rxe1\" and .interval and (.gone | not)"
vm_check "rdma-top: still samples $DEV" vm_retry 20 top_row_after "$n" ".dev == \"$DEV\""
gone=$(jq -s 'map(select(.dev == "rxe1" and .gone)) | length' "$TOP")
vm_log "rdma-top: rxe1 reported gone $gone times in $CYCLES cycles"
vm_check "rdma-top: rxe1 reported gone (at most once per cycle)" test "$gone" -ge 1 -a "$gone" -le "$CYCLES"

vm_check "rdma-events still running" kill -0 "$epid"
vm_check "rdma-top still running" kill -0 "$tpid"
# rdma-top holds its sysfs directories open from a sample's reads until it has
# written the row (then forgets them all before it waits): a count taken just
# after a row appears can fall in that window.  So each count is waited for,
# up to 10 s: one that comes back to the baseline is no leak; a leak never does.
fds_back() { [ "$(vm_fds "$1")" = "$2" ]; }
vm_retry 10 fds_back "$epid" "$efd0"
vm_retry 10 fds_back "$tpid" "$tfd0"
efd1=$(vm_fds "$epid") tfd1=$(vm_fds "$tpid")
vm_log "fds after the cycles: rdma-events $efd1 (before $efd0), rdma-top $tfd1 (before $tfd0)"
vm_check_eq "rdma-events: fd count as before the cycles" "$efd0" "$efd1"
vm_check_eq "rdma-top: fd count as before the cycles" "$tfd0" "$tfd1"

vm_check "rdma-events: SIGINT, exit status 0" vm_stop_ok "$epid" INT
epid=""
vm_check "rdma-top: SIGTERM, exit status 0" vm_stop_ok "$tpid" TERM
tpid=""
vm_check_eq "rdma-events: nothing on stderr" "" "$(cat "$D/events.err")"
vm_check_eq "rdma-top: nothing on stderr" "" "$(cat "$D/top.err")"
vm_check "rdma-events: every line is a JSON object" sh -c "jq -e -s 'length > 0 and all(type == \"object\")' '$J' >/dev/null"
vm_check "rdma-top: every line is a JSON object" sh -c "jq -e -s 'length > 0 and all(type == \"object\")' '$TOP' >/dev/null"

vm_check "no kernel warnings" vm_dmesg_clean
cleanup
trap - EXIT
vm_check_eq "left as found: only $DEV" "$DEV" "$(ls /sys/class/infiniband | tr '\n' ' ' | sed 's/ $//')"
vm_check "left as found: no veth" test ! -e /sys/class/net/cyB
vm_log "t-cycles: ${SECONDS} s"
if [ "${VM_SHOW:-0}" = 1 ]; then cat "$J"; fi
