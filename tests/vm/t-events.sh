#!/bin/bash
# VM scenario: rdma-events on the real rxe0 — async events, link and GID
# changes, hot-plug of a second rxe device, clean exits, no fd leak.
# Leaves the VM as it found it: rxe0 on eth0 up, no extra links or addresses.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

E=$RD_ROOT/build/rdma-events
DEV=${VM_RDMA_DEV:-rxe0}
NET=${VM_NETDEV:-eth0}
SYS=/sys/class/infiniband/$DEV/ports/1
D=/tmp/t-events
rm -rf "$D"
mkdir -p "$D"
J=$D/events.json	# -j --utc -s watcher
T=$D/events.txt	# text watcher (local time)
jpid="" tpid="" upid="" dmode0=""
mtu0=$(cat "/sys/class/net/$NET/mtu")

cleanup() {
	[ -z "$jpid" ] || kill -KILL "$jpid" 2>/dev/null
	[ -z "$tpid" ] || kill -KILL "$tpid" 2>/dev/null
	[ -z "$upid" ] || kill -KILL "$upid" 2>/dev/null
	[ -z "$dmode0" ] || chmod "$dmode0" /dev/infiniband
	for d in rxe1 rxe9; do
		[ ! -e /sys/class/infiniband/$d ] || timeout 30 rdma link delete "$d"
	done
	[ ! -e /sys/class/net/evA ] || ip link delete evA
	ip addr del 10.10.0.9/24 dev "$NET" 2>/dev/null
	ip addr del 10.10.0.10/24 dev "$NET" 2>/dev/null
	ip link set "$NET" mtu "$mtu0"
	ip link set "$NET" up
	vm_retry 30 grep -q ACTIVE "$SYS/state"
}
trap cleanup EXIT

# ev_ts FILTER: ts_ms of the first JSON event matching the jq FILTER, or fail.
ev_ts() { jq -r "select($1) | .ts_ms" "$J" 2>/dev/null | head -1 | grep .; }
# wait_ev FILTER [SECS]: wait until the JSON watcher printed a matching event.
wait_ev() { vm_retry "${2:-20}" ev_ts "$1"; }
# The delay from T0 (date +%s.%N before the command) to the event, in seconds.
delay() { awk -v t="$2" -v t0="$1" 'BEGIN { printf "%.3f", t / 1000 - t0 }'; }
# check_delay NAME T0 FILTER: PASS when the event came within a generous
# bound (TCG is slow); the measured delay is logged either way.
check_delay() {
	local name=$1 t0=$2 filter=$3 ts d
	if ! wait_ev "$filter" 20; then
		vm_fail "$name" "no event matching $filter"
		return
	fi
	ts=$(ev_ts "$filter")
	d=$(delay "$t0" "$ts")
	vm_log "delay $name: ${d} s"
	echo "$name $d" >>"$D/delays"
	if awk -v d="$d" 'BEGIN { exit !(d >= -0.05 && d < 5) }'; then
		vm_pass "$name within 5 s (${d} s)"
	else
		vm_fail "$name within 5 s" "measured ${d} s"
	fi
}

# ---- one-shot forms
vm_check_output "--state prints the port state, then --timeout ends with 0" \
	"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} $DEV port 1 STATE  ACTIVE LinkUp Ethernet, $NET up mtu $mtu0\$" \
	timeout -k 5 60 "$E" --state --timeout 0.5
vm_check_output "--state -j state object" "^ACTIVE LinkUp $NET true$" \
	sh -c "timeout -k 5 60 '$E' --state -j --timeout 0.2 | jq -r '[.state, .phys_state, .netdev, .up] | join(\" \")'"
start=$(date +%s.%N)
vm_check "--timeout 2 exits 0" timeout -k 5 60 "$E" --timeout 2
vm_log "--timeout 2 took $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
vm_check_output "-p 2 on a one-port device fails" "no port 2" sh -c "! '$E' -d $DEV -p 2 --timeout 1 2>&1"
vm_check_output "--sysroot without --state is a usage error" "needs --state" sh -c "'$E' --sysroot / --timeout 1 2>&1; [ \$? = 2 ]"

# ---- two watchers for the rest: JSON (UTC, with -s) and text (local time)
"$E" -j --utc --state >"$J" 2>"$D/json.err" </dev/null &
jpid=$!
"$E" --state >"$T" 2>"$D/text.err" </dev/null &
tpid=$!
vm_check "JSON watcher ready" wait_ev '.event == "STATE" and .dev == "'"$DEV"'"' 30
vm_check "text watcher ready" vm_retry 30 grep -q " STATE " "$T"

# ---- link down / up: the async event and the netdev's line, with their delays
t0=$(date +%s.%N)
ip link set "$NET" down
check_delay "$NET down -> PORT_ERR" "$t0" '.event == "PORT_ERR" and .dev == "'"$DEV"'" and .port == 1'
check_delay "$NET down -> LINK_DOWN" "$t0" '.event == "LINK_DOWN" and .netdev == "'"$NET"'" and .port == 1'
vm_retry 20 sh -c "grep -q DOWN $SYS/state"
t0=$(date +%s.%N)
ip link set "$NET" up
check_delay "$NET up -> PORT_ACTIVE" "$t0" '.event == "PORT_ACTIVE" and .dev == "'"$DEV"'" and .port == 1'
check_delay "$NET up -> LINK_UP" "$t0" '.event == "LINK_UP" and .netdev == "'"$NET"'"'
vm_retry 30 grep -q ACTIVE "$SYS/state"
vm_check_eq "LINK_DOWN says why" "$NET down (administratively down) admin_up=false" \
	"$(jq -r 'select(.event == "LINK_DOWN" and .dev == "'"$DEV"'") | "\(.message) admin_up=\(.admin_up)"' "$J" | head -1)"

# ---- GID table: the entries added and removed, re-read on GID_CHANGE
ip addr add 10.10.0.9/24 dev "$NET"
vm_check "GID_CHANGE on $DEV" wait_ev '.event == "GID_CHANGE" and .dev == "'"$DEV"'"'
vm_check "GID_ADD ::ffff:10.10.0.9" wait_ev '.event == "GID_ADD" and .ipv4 == "10.10.0.9" and .ver == "v2" and .netdev == "'"$NET"'"'
idx=$(jq -r 'select(.event == "GID_ADD" and .ipv4 == "10.10.0.9") | .index' "$J" | head -1)
vm_check_eq "GID_ADD index = sysfs" "0000:0000:0000:0000:0000:ffff:0a0a:0009" "$(cat "$SYS/gids/$idx" 2>&1)"
ip addr del 10.10.0.9/24 dev "$NET"
vm_check "GID_DEL ::ffff:10.10.0.9" wait_ev '.event == "GID_DEL" and .ipv4 == "10.10.0.9" and .index == '"${idx:-0}"

# ---- a GID back at another index (nccl#2157): 10.10.0.11 then .12, both
# removed, .12 first then .11: each takes the other's old index.
ip addr add 10.10.0.11/24 dev "$NET"
vm_check "GID_ADD 10.10.0.11" wait_ev '.event == "GID_ADD" and .ipv4 == "10.10.0.11"'
ip addr add 10.10.0.12/24 dev "$NET"
vm_check "GID_ADD 10.10.0.12" wait_ev '.event == "GID_ADD" and .ipv4 == "10.10.0.12"'
i11=$(jq -r 'select(.event == "GID_ADD" and .ipv4 == "10.10.0.11") | .index' "$J" | head -1)
i12=$(jq -r 'select(.event == "GID_ADD" and .ipv4 == "10.10.0.12") | .index' "$J" | head -1)
ip addr del 10.10.0.12/24 dev "$NET"
ip addr del 10.10.0.11/24 dev "$NET"
vm_check "GID_DEL 10.10.0.11" wait_ev '.event == "GID_DEL" and .ipv4 == "10.10.0.11"'
ip addr add 10.10.0.12/24 dev "$NET"
vm_check "GID_ADD 10.10.0.12 again" wait_ev '.event == "GID_ADD" and .ipv4 == "10.10.0.12" and .index != '"${i12:-0}"
ip addr add 10.10.0.11/24 dev "$NET"
vm_check "GID_MOVED 10.10.0.12, from its old index" \
	wait_ev '.event == "GID_MOVED" and .ipv4 == "10.10.0.12" and (.message | test("was index '"${i12:-x}"':"))'
vm_check "GID_MOVED 10.10.0.11, from its old index" \
	wait_ev '.event == "GID_MOVED" and .ipv4 == "10.10.0.11" and (.message | test("was index '"${i11:-x}"':"))'
vm_check_eq "GID_MOVED index = sysfs" "0000:0000:0000:0000:0000:ffff:0a0a:000c" \
	"$(cat "$SYS/gids/$(jq -r 'select(.event == "GID_MOVED" and .ipv4 == "10.10.0.12") | .index' "$J" | head -1)" 2>&1)"
ip addr del 10.10.0.11/24 dev "$NET"
ip addr del 10.10.0.12/24 dev "$NET"
vm_check "GID table back without 10.10.0.11/.12" vm_retry 20 sh -c "! grep -qs ':0a0a:000[bc]\$' $SYS/gids/*"

# ---- hot-plug: a second rxe device on a veth, while watching
modprobe veth
ip link add evA type veth peer name evB
ip link set evA up
ip link set evB up
fd_before=$(vm_fds "$jpid")
vm_check "rdma link add rxe1" timeout 30 rdma link add rxe1 type rxe netdev evA
vm_check "DEVICE_ADDED rxe1" wait_ev '.event == "DEVICE_ADDED" and .dev == "rxe1" and (has("port") | not)'
vm_check "rxe1 state with -s" wait_ev '.event == "STATE" and .dev == "rxe1" and .netdev == "evA"'
vm_retry 20 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state
ip link set evA down
vm_check "rxe1 PORT_ERR" wait_ev '.event == "PORT_ERR" and .dev == "rxe1"'
vm_check "rxe1 LINK_DOWN evA" wait_ev '.event == "LINK_DOWN" and .dev == "rxe1" and .netdev == "evA"'
ip link set evA up
vm_check "rxe1 PORT_ACTIVE" wait_ev '.event == "PORT_ACTIVE" and .dev == "rxe1"'
fd_mid=$(vm_fds "$jpid")
# rxe cannot disassociate: the delete waits in the kernel until every context
# is closed, so a prompt return proves the watcher released rxe1.
t0=$(date +%s.%N)
vm_check "rdma link delete rxe1 returns" timeout 30 rdma link delete rxe1
vm_log "rdma link delete rxe1 took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
check_delay "rdma link delete -> DEVICE_REMOVED" "$t0" '.event == "DEVICE_REMOVED" and .dev == "rxe1"'
vm_check_eq "DEVICE_REMOVED reason" "uevent" \
	"$(jq -r 'select(.event == "DEVICE_REMOVED" and .dev == "rxe1") | .reason' "$J" | head -1)"
vm_check_eq "fds: one more context while rxe1 was watched" "$((fd_before + 2))" "$fd_mid"
vm_check_eq "no fd leak after add/delete" "$fd_before" "$(vm_fds "$jpid")"
vm_check "JSON watcher still running" kill -0 "$jpid"
vm_schema rdma-events "$J"
vm_check "text watcher still running" kill -0 "$tpid"

# ---- still watching rxe0: a later async event on it
ip addr add 10.10.0.10/24 dev "$NET"
vm_check "rxe0 still watched (GID_ADD 10.10.0.10)" wait_ev '.event == "GID_ADD" and .dev == "'"$DEV"'" and .ipv4 == "10.10.0.10"'
ip addr del 10.10.0.10/24 dev "$NET"
vm_check "GID_DEL 10.10.0.10" wait_ev '.event == "GID_DEL" and .ipv4 == "10.10.0.10"'

# ---- a second cycle, with a rename on the way (rdma dev set ... name)
vm_check "rdma link add rxe1 again" timeout 30 rdma link add rxe1 type rxe netdev evA
vm_check "DEVICE_ADDED rxe1 again" vm_retry 20 sh -c "[ \$(jq -c 'select(.event == \"DEVICE_ADDED\" and .dev == \"rxe1\")' '$J' | wc -l) = 2 ]"
vm_check "rdma dev set rxe1 name rxe9" timeout 30 rdma dev set rxe1 name rxe9
vm_check "DEVICE_RENAMED rxe9 from rxe1" wait_ev '.event == "DEVICE_RENAMED" and .dev == "rxe9" and .old_dev == "rxe1"'
ip link set evA mtu 1400
vm_check "events follow the new name" wait_ev '.event == "LINK_MTU" and .dev == "rxe9" and .netdev_mtu == 1400 and .old_netdev_mtu == 1500'
vm_check "rdma link delete rxe9 returns" timeout 30 rdma link delete rxe9
vm_check "DEVICE_REMOVED rxe9" wait_ev '.event == "DEVICE_REMOVED" and .dev == "rxe9"'
vm_check_eq "no fd leak after a second cycle" "$fd_before" "$(vm_fds "$jpid")"
# ---- not root, and a device node that cannot be reached at first (as when
# udev has not set it up yet: its uevent reaches the watcher as early as
# udev): the device is retried for a while instead of given up on.
# uverbs nodes are created 0666; /dev/infiniband made unsearchable for a
# moment stands for the node that is not usable yet.
dmode0=$(stat -c %a /dev/infiniband)
U=$D/user.json
setpriv --reuid=65534 --regid=65534 --clear-groups "$E" -j --state >"$U" 2>"$D/user.err" </dev/null &
upid=$!
J=$U vm_check "unprivileged watcher ready" wait_ev '.event == "STATE" and .dev == "'"$DEV"'"' 30
# "Not opened" is only evidence once the watcher has tried: strace shows its
# look at the device nodes refused (EACCES) after the new device appeared.
strace -f -e trace=%file -p "$upid" -o "$D/user.strace" 2> "$D/strace.err" &
spid=$!
vm_check "strace attached to the unprivileged watcher" vm_retry 20 grep -q attached "$D/strace.err"
chmod 0700 /dev/infiniband
vm_check "rdma link add rxe1 (its node out of reach)" timeout 30 rdma link add rxe1 type rxe netdev evA
refused() { vm_retry 20 grep -q 'infiniband.*= -1 EACCES' "$D/user.strace" || { tail -n 20 "$D/user.strace"; return 1; }; }
vm_check "the watcher tried the device nodes and was refused" refused
kill -INT "$spid" 2> /dev/null; wait "$spid" 2> /dev/null
J=$U vm_check_fails "not opened while out of reach" ev_ts '.dev == "rxe1"'
chmod "$dmode0" /dev/infiniband
J=$U vm_check "opened once reachable (retried)" wait_ev '.event == "DEVICE_ADDED" and .dev == "rxe1"' 20
vm_check "rdma link delete rxe1 returns (unprivileged watcher released it)" timeout 30 rdma link delete rxe1
J=$U vm_check "unprivileged DEVICE_REMOVED rxe1" wait_ev '.event == "DEVICE_REMOVED" and .dev == "rxe1"'
vm_check_eq "unprivileged watcher: no warnings so far" "" "$(cat "$D/user.err")"
# Out of reach for longer than the retries last (10, backing off from 0.3 s
# to 3 s: about 22 s): one warning, and the watch goes on for the others.
chmod 0700 /dev/infiniband
vm_check "rdma link add rxe1 (out of reach for good)" timeout 30 rdma link add rxe1 type rxe netdev evA
warned() { vm_retry 45 grep -q rxe1 "$D/user.err"; cat "$D/user.err"; }
vm_check_output "given up with one warning" "^rdma-events: warning: rxe1: libibverbs does not list it" warned
chmod "$dmode0" /dev/infiniband
vm_check "rdma link delete rxe1 returns (never opened)" timeout 30 rdma link delete rxe1
ip link set "$NET" mtu 1400
J=$U vm_check "unprivileged watcher still watches $DEV" wait_ev '.event == "LINK_MTU" and .dev == "'"$DEV"'" and .netdev_mtu == 1400'
ip link set "$NET" mtu "$mtu0"
vm_check "unprivileged watcher: SIGTERM, exit status 0" vm_stop_ok "$upid" TERM
upid=""
vm_check_eq "unprivileged watcher: that one warning only" 1 "$(wc -l <"$D/user.err")"
J=$U vm_check_fails "unprivileged watcher: rxe1 never added the second time" \
	sh -c "[ \$(jq -c 'select(.event == \"DEVICE_ADDED\")' '$U' | wc -l) -gt 1 ]"

ip link delete evA
vm_check "the veth is gone" sh -c "! ip link show evB 2>/dev/null"

# ---- SIGTERM and SIGINT end the watchers with status 0
vm_check "SIGTERM: exit status 0" vm_stop_ok "$jpid" TERM
jpid=""
vm_check "SIGINT (background job of a script): exit status 0" vm_stop_ok "$tpid" INT
tpid=""
vm_check_eq "no warnings from the JSON watcher" "" "$(cat "$D/json.err")"
vm_check_eq "no warnings from the text watcher" "" "$(cat "$D/text.err")"

# ---- the JSON lines: every one parses, with the common keys; port only on port events
vm_check "every line is a JSON object" sh -c "jq -e -s 'length > 0 and all(type == \"object\")' '$J' >/dev/null"
vm_check_eq "common keys and sources" "true" \
	"$(jq -s 'all(.[]; (.time | test("^[0-9-]+T[0-9:.]+Z$")) and (.ts_ms | type == "number") and .dev and .event and .message and (.source | IN("async", "link", "gid", "device", "state")))' "$J")"
vm_check_eq "device events carry no port" "true" \
	"$(jq -s 'all(.[] | select(.source == "device" or .scope == "device"); has("port") | not)' "$J")"
vm_check_eq "port events carry their port" "true" \
	"$(jq -s 'all(.[] | select(.scope == "port" or .source == "link" or .source == "gid"); .port >= 1)' "$J")"

# ---- the text lines
ts='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} '
vm_check_output "text: PORT_ERR line" "${ts}$DEV port 1 PORT_ERR  port went down\$" cat "$T"
vm_check_output "text: PORT_ACTIVE line" "${ts}$DEV port 1 PORT_ACTIVE  port became active\$" cat "$T"
vm_check_output "text: link down line" "${ts}$DEV port 1 LINK_DOWN  $NET down \(administratively down\)\$" cat "$T"
vm_check_output "text: link up line" "${ts}$DEV port 1 LINK_UP  $NET up\$" cat "$T"
vm_check_output "text: GID_ADD line" "${ts}$DEV port 1 GID_ADD  index [0-9]+ ::ffff:10\.10\.0\.9 v2 $NET\$" cat "$T"
vm_check_output "text: GID_DEL line" "${ts}$DEV port 1 GID_DEL  index [0-9]+ ::ffff:10\.10\.0\.9 v2 $NET\$" cat "$T"
vm_check_output "text: DEVICE_ADDED line" "${ts}rxe1 DEVICE_ADDED  1 port, uverbs[0-9]+, netdev evA; watching\$" cat "$T"
vm_check_output "text: DEVICE_REMOVED line" "${ts}rxe1 DEVICE_REMOVED  uverbs[0-9]+ removed; context released\$" cat "$T"
vm_check_output "text: local time (no Z)" "${ts}$DEV port 1 STATE " cat "$T"

# ---- --count: exits after N events (-s lines do not count)
"$E" --state -j --count 2 >"$D/count.json" 2>&1 </dev/null &
cpid=$!
vm_retry 30 grep -q STATE "$D/count.json"
ip link set "$NET" mtu 1400
ip link set "$NET" mtu "$mtu0"
vm_retry 20 sh -c "! kill -0 $cpid 2>/dev/null"
if kill -0 "$cpid" 2>/dev/null; then
	kill -KILL "$cpid"
	vm_fail "--count 2 exits" "still running"
else
	rc=0
	wait "$cpid" || rc=$?
	vm_check_eq "--count 2: exit status 0" 0 "$rc" "$D/count.json"
fi
vm_check_eq "--count 2: two events after the state" "LINK_MTU LINK_MTU" \
	"$(jq -r 'select(.source != "state") | .event' "$D/count.json" | tr '\n' ' ' | sed 's/ $//')"

vm_check "no kernel warnings" vm_dmesg_clean

cleanup
trap - EXIT
vm_check_eq "left as found: $DEV ACTIVE on $NET" "ACTIVE $NET" \
	"$(sed 's/^[0-9]*: //' "$SYS/state") $(rdma link show "$DEV/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')"
vm_check_eq "left as found: only $DEV" "$DEV" "$(ls /sys/class/infiniband | tr '\n' ' ' | sed 's/ $//')"
if [ -s "$D/delays" ]; then
	vm_log "measured delays (s):"
	while read -r name d; do vm_log "  $name $d"; done <"$D/delays"
fi
vm_schema_check
if [ "${VM_SHOW:-0}" = 1 ]; then cat "$T"; cat "$J"; fi
