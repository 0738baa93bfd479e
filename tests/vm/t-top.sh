#!/bin/bash
# VM scenario: rdma-top on the real rxe0 — hw counters through RDMA netlink
# agreeing with sysfs and `rdma statistic`, rates under ibv_rc_pingpong traffic
# that add up to the counters' own deltas, a second rxe device deleted and
# re-created while it runs, no file opened after the first refresh, and the
# screen in tmux.  Leaves the VM as it found it (rxe0 on eth0 only).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

T=$RD_ROOT/build/rdma-top
DEV=${VM_RDMA_DEV:-rxe0}
HW=/sys/class/infiniband/$DEV/ports/1/hw_counters
W=$(mktemp -d)
toppid=

cleanup() {
	[ -n "$toppid" ] && kill -TERM "$toppid" 2> /dev/null
	rdma link delete rxe1 2> /dev/null
	ip link delete veth0 2> /dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# bg_top FILE ARGS...: rdma-top in the background, stdout to FILE, pid in toppid
bg_top() {
	local out=$1; shift
	"$T" "$@" > "$out" 2> "$out.err" &
	toppid=$!
}
# stop_top: SIGTERM it and return its exit status
stop_top() {
	local rc
	kill -TERM "$toppid" 2> /dev/null
	wait "$toppid"
	rc=$?
	toppid=
	return $rc
}
# lines FILE JQ: until a line of FILE satisfies JQ (20 s)
until_line() { # FILE FILTER [AFTER]: a line after the first AFTER lines matches
	local end=$((SECONDS + 20))
	while [ $SECONDS -lt $end ]; do
		tail -n "+$((${3:-0} + 1))" "$1" | jq -e "select($2)" 2> /dev/null | grep -q . && return 0
		vm_sleep 0.3
	done
	return 1
}

# ---- one sample: live sources, the same numbers as sysfs and `rdma statistic`
"$T" --once -j -d "$DEV" > "$W/once.json" 2> "$W/once.err"
vm_check_eq "--once -j exits 0, no warnings" "0:" "$?:$(cat "$W/once.err")"
vm_check_eq "hw counters via RDMA netlink" "netlink" "$(jq -r '.[0].hw_source' "$W/once.json")"
vm_check_eq "every sysfs hw counter is there" \
	"$(ls "$HW" | grep -vx lifespan | sort | tr '\n' ' ')" \
	"$(jq -r '.[0].hw_counters | keys[]' "$W/once.json" | sort | tr '\n' ' ')"
mism=
for f in "$HW"/*; do
	n=${f##*/}
	[ "$n" = lifespan ] && continue
	[ "$(cat "$f")" = "$(jq -r --arg n "$n" '.[0].hw_counters[$n].value' "$W/once.json")" ] || mism="$mism $n"
done
vm_check_eq "netlink values = sysfs values (idle)" "" "$mism"
rdma -j statistic show link "$DEV/1" > "$W/stat.json" 2>&1
mism=
for n in sent_pkts rcvd_pkts rdma_sends rdma_recvs; do
	[ "$(jq -r --arg n "$n" '.[0][$n]' "$W/stat.json")" = \
	  "$(jq -r --arg n "$n" '.[0].hw_counters[$n].value' "$W/once.json")" ] || mism="$mism $n"
done
vm_check_eq "values = rdma statistic show link" "" "$mism"
vm_check_eq "no byte counter on rxe: no tx_bytes" "false" "$(jq '.[0] | has("tx_bytes")' "$W/once.json")"
vm_check_eq "state ACTIVE, netdev eth0" "ACTIVE eth0" "$(jq -r '.[0] | "\(.state) \(.netdev)"' "$W/once.json")"
vm_check_output "OpenMetrics scrape is well-formed" "well-formed" \
	sh -c "'$T' --format openmetrics | '$RD_ROOT/tests/cli/top-check-metrics.sh' openmetrics"
vm_check_output "OpenMetrics has the rxe counters, labelled with the node GUID" \
	"^rdma_hw_sent_pkts_total\{device=\"$DEV\",port=\"1\",netdev=\"eth0\",local_guid=\"0x[0-9a-f]{16}\"\} [0-9]+$" \
	"$T" --format openmetrics

# ---- a refresh opens nothing (live: sysfs for state/speed, netlink for counters)
opens() {
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=open,openat -o "$W/trace" \
		"$T" -b -j -i 0 -n "$1" -d "$DEV" > /dev/null 2>&1
	grep -c open "$W/trace"
}
if command -v strace > /dev/null; then
	vm_check_eq "live: 10 samples open what 1 opens" "$(opens 1)" "$(opens 10)"
	sockets() {
		ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=socket -o "$W/trace" \
			"$T" -b -j -i 0 -n "$1" -d "$DEV" > /dev/null 2>&1
		grep -c 'socket(AF_NETLINK' "$W/trace"
	}
	vm_check_eq "live: netlink sockets made once, not per refresh" "$(sockets 1)" "$(sockets 10)"
else
	vm_skip "live: no opens per refresh" "no strace"
fi

# ---- traffic: rates match the counters' own deltas
gid=$(vm_gid_index "$DEV") || vm_fail "RoCE v2 GID for $VM_IP"
s0=$(cat "$HW/sent_pkts") r0=$(cat "$HW/rcvd_pkts")
bg_top "$W/traffic.json" -b -j -i 0.5 -d "$DEV"
until_line "$W/traffic.json" '.sample == 1' || vm_fail "rdma-top: first sample" "$(cat "$W/traffic.json.err")"
port=18600
vm_bg server timeout 120 ibv_rc_pingpong -d "$DEV" -g "$gid" -p "$port" -n 2000 -s 1024
if vm_retry 30 _vm_listening "$port"; then
	vm_check_output "ibv_rc_pingpong loopback (2000 iters)" "2000 iters" \
		timeout 120 ibv_rc_pingpong -d "$DEV" -g "$gid" -p "$port" -n 2000 -s 1024 127.0.0.1
else
	vm_fail "ibv_rc_pingpong server never listened"
fi
vm_bg_wait server > /dev/null
s1=$(cat "$HW/sent_pkts") r1=$(cat "$HW/rcvd_pkts")
# Wait for a sample taken after the traffic, then stop it.
until_line "$W/traffic.json" ".hw_counters.sent_pkts.value == $s1" || vm_fail "a sample after the traffic"
stop_top
vm_check_eq "SIGTERM: exit 0, nothing on stderr" "0:" "$?:$(cat "$W/traffic.json.err")"
J=$W/traffic.json
vm_check_eq "first sample = sysfs before (sent_pkts)" "$s0" "$(jq -s '.[0].hw_counters.sent_pkts.value' "$J")"
vm_check_eq "sum of deltas = sysfs after - before (sent_pkts)" "$((s1 - s0))" \
	"$(jq -s '[.[].hw_counters.sent_pkts.delta // 0] | add' "$J")"
vm_check_eq "sum of deltas = sysfs after - before (rcvd_pkts)" "$((r1 - r0))" \
	"$(jq -s '[.[].hw_counters.rcvd_pkts.delta // 0] | add' "$J")"
vm_check "the traffic moved the counters" test "$((s1 - s0))" -gt 2000
vm_check_eq "tx_pps > 0 while traffic ran" "true" "$(jq -s 'any(.[]; .tx_pps > 0)' "$J")"
vm_check_eq "rx_pps > 0 while traffic ran" "true" "$(jq -s 'any(.[]; .rx_pps > 0)' "$J")"
vm_check_eq "tx_pps = sent_pkts delta / interval, every sample" "true" \
	"$(jq -s 'all(.[] | select(.interval); ((.tx_pps - .hw_counters.sent_pkts.delta / .interval) | fabs) <= 0.01 + 1e-5 * .tx_pps)' "$J")"
vm_check_eq "rx_pps = rcvd_pkts delta / interval, every sample" "true" \
	"$(jq -s 'all(.[] | select(.interval); ((.rx_pps - .hw_counters.rcvd_pkts.delta / .interval) | fabs) <= 0.01 + 1e-5 * .rx_pps)' "$J")"
vm_check_eq "no negative rate, no Gb/s without a byte counter" "true" \
	"$(jq -s 'all(.[]; ([.. | numbers] | all(. >= 0)) and (has("tx_gbps") | not))' "$J")"
# Measured, not the nominal 0.5 s: a tick that comes late (a loaded host)
# makes that interval longer and the next one shorter, and the intervals
# still add up to the time between the first sample and the last.
vm_check_eq "intervals from the clock: they add up to the samples' times" "true" \
	"$(jq -s 'def secs: (.[0:19] + "Z" | fromdate) + ((.[20:23] | tonumber) / 1000);
		[.[] | .interval // empty] as $iv
		| ($iv | length) > 2 and ($iv | all(. > 0 and . < 10))
		and ((($iv | add) - ((.[-1].time | secs) - (.[0].time | secs))) | fabs) < 0.5' "$J")"

# ---- a second device deleted and re-created while it runs
modprobe veth
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
rdma link add rxe1 type rxe netdev veth0
vm_retry 15 test -d /sys/class/infiniband/rxe1/ports/1
bg_top "$W/hotplug.json" -b -j -i 0.3
until_line "$W/hotplug.json" '.dev == "rxe1" and .interval' || vm_fail "rxe1 sampled" "$(tail -3 "$W/hotplug.json")"
vm_check_eq "rxe1 sampled through netlink on veth0" "netlink veth0" \
	"$(jq -rs 'map(select(.dev == "rxe1"))[0] | "\(.hw_source) \(.netdev)"' "$W/hotplug.json")"
rdma link delete rxe1
vm_check "rxe1 deleted: reported gone" until_line "$W/hotplug.json" '.dev == "rxe1" and .gone'
n=$(wc -l < "$W/hotplug.json")
vm_check "rxe0 still sampled after the delete" until_line "$W/hotplug.json" ".dev == \"$DEV\"" "$n"
rdma link add rxe1 type rxe netdev veth0
vm_check "re-created rxe1 comes back" until_line "$W/hotplug.json" ".dev == \"rxe1\" and (.gone | not)" "$n"
rdma link delete rxe1
vm_check "deleted again: gone again" until_line "$W/hotplug.json" ".dev == \"rxe1\" and .gone" "$n"
kill -0 "$toppid" 2> /dev/null
vm_check_eq "still running after two deletes" 0 "$?"
stop_top
vm_check_eq "hot-plug run: exit 0, nothing on stderr" "0:" "$?:$(cat "$W/hotplug.json.err")"
vm_check_eq "gone reported once per delete" 2 "$(jq -s 'map(select(.dev == "rxe1" and .gone)) | length' "$W/hotplug.json")"
ip link delete veth0

# ---- the screen, in tmux inside the VM
if command -v tmux > /dev/null; then
	sock=vmtop
	tmux -L $sock -f /dev/null new-session -d -x 100 -y 10 \
		"env TERM=screen '$T' -i 0.5 --color=never; sleep 60"
	vm_bg server2 timeout 120 ibv_rc_pingpong -d "$DEV" -g "$gid" -p 18601 -n 200000 -s 4096
	vm_retry 30 _vm_listening 18601
	vm_bg client2 timeout 60 ibv_rc_pingpong -d "$DEV" -g "$gid" -p 18601 -n 200000 -s 4096 127.0.0.1
	shot=
	for ((i = 0; i < 40; i++)); do
		vm_sleep 0.5
		shot=$(tmux -L $sock capture-pane -p)
		grep -Eq "^$DEV +1 +eth0 +ACTIVE +- +- +- +[1-9]" <<< "$shot" && break
	done
	vm_check_output "screen: rxe0 row with packets/s under traffic" \
		"^$DEV +1 +eth0 +ACTIVE +- +- +- +[0-9.]+[kM]? +[0-9.]+[kM]?" printf '%s\n' "$shot"
	vm_log "screen capture:"
	printf '%s\n' "$shot" | sed 's/^/# | /'
	tmux -L $sock send-keys Enter z
	vm_sleep 1.5
	printf '%s\n' "$(tmux -L $sock capture-pane -p)" | sed 's/^/# | /'
	tmux -L $sock send-keys q
	# The same traffic in batch mode, for the record.
	vm_log "batch:"
	"$T" -b -n 2 -i 1 -d "$DEV" 2>&1 | sed 's/^/# | /'
	"$T" -b -j -n 2 -i 1 -d "$DEV" 2>&1 | tail -1 |
		jq -c '{time, dev, port, netdev, state, interval, tx_pps, rx_pps, errors_per_s, hw_source}' | sed 's/^/# | /'
	vm_sleep 0.5
	tmux -L $sock kill-server
	vm_bg_kill client2
	vm_bg_kill server2
fi

vm_schema rdma-top "$W/once.json"
vm_schema_check
vm_check "rxe0 is the only RDMA link left" test "$(rdma link show | grep -c '^link')" = 1
vm_check "dmesg: no kernel warnings" vm_dmesg_clean
