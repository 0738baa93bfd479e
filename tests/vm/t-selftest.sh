#!/bin/bash
# VM scenario (one host): rdma-selftest loopback on the real rxe0, JSON, thresholds,
# bad input; a local server that survives garbage on its TCP port.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
DEV=${VM_RDMA_DEV:-rxe0}
Q=(--timeout 30 -n 50 --pings 20)

vm_check_output "loopback PASS on $DEV" "^$DEV port 1: PASS(, with a warning at counters)?\$" timeout 120 "$S" "${Q[@]}"
out=$(timeout 120 "$S" "${Q[@]}" -j); rc=$?
echo "$out" > /tmp/st.json
vm_check_eq "loopback -j exits 0" 0 "$rc" @out
vm_check "loopback -j parses" vm_json /tmp/st.json
vm_check_eq "loopback -j result" "pass" "$(jq -r .result /tmp/st.json)"
vm_check "loopback -j: rxe0's counters read before and after, one counters stage" \
	jq -e '.ports[0].counters.read >= 10 and ([.ports[0].stages[] | select(.stage == "counters" and (.result == "pass" or .result == "warn"))] | length == 1) and (.ports[0].stages | last | .stage == "counters")' /tmp/st.json
vm_check "loopback -j: the counters object's fields" \
	jq -e '.ports[0].counters | (.retransmits | type == "number") and (.congestion | type == "number") and (.drops | type == "number") and .tx_packets > 0 and (.moved | type == "array")' /tmp/st.json
vm_check_eq "loopback -j every stage passed" "connect pingpong latency bandwidth" \
	"$(jq -r '[.ports[0].stages[] | select(.result == "pass" and .stage != "counters") | .stage] | join(" ")' /tmp/st.json)"
vm_check_eq "loopback -j GID index = rdma-gids --best" \
	"$("$RD_ROOT/build/rdma-gids" --best -d "$DEV" -j | jq .[0].index)" "$(jq .ports[0].gid_index /tmp/st.json)"
vm_check "latency figures are ordered (min <= median <= p99 <= max)" \
	jq -e '.ports[0].latency[0] | .min_us <= .median_us and .median_us <= .p99_us and .p99_us <= .max_us and .stdev_us >= 0' /tmp/st.json
vm_check "bandwidth counted every message" jq -e '.ports[0].bandwidth[0] | .messages == 50 and .gbps > 0' /tmp/st.json
vm_check_output "--sizes runs each size" "^ +4096 +50 " timeout 120 "$S" "${Q[@]}" --sizes 64,4096
vm_check_output "--quick stops after ping-pong" "PASS  pingpong" timeout 60 "$S" --timeout 30 --pings 10 --quick
out=$(timeout 60 "$S" --timeout 30 --pings 10 --quick -j)
vm_check_eq "--quick has only connect and ping-pong (and the counters around them)" "connect pingpong counters" "$(jq -r '[.ports[0].stages[].stage] | join(" ")' <<<"$out")"
out=$(timeout 120 "$S" "${Q[@]}" --bandwidth-only -j)
vm_check_eq "--bandwidth-only skips the latency stage" "connect pingpong bandwidth" \
	"$(jq -r '[.ports[0].stages[] | select(.result == "pass" and .stage != "counters") | .stage] | join(" ")' <<<"$out")"
echo "$out" > /tmp/bw-only.json
vm_schema rdma-selftest /tmp/st.json /tmp/bw-only.json
vm_check "--bandwidth-only JSON has no latency array" jq -e '.ports[0] | (has("latency") | not) and .bandwidth[0].messages == 50' /tmp/bw-only.json
out=$(timeout 120 "$S" "${Q[@]}" --latency-only -j)
vm_check_eq "--latency-only skips the bandwidth stage" "connect pingpong latency" \
	"$(jq -r '[.ports[0].stages[] | select(.result == "pass" and .stage != "counters") | .stage] | join(" ")' <<<"$out")"
out=$(timeout 120 "$S" "${Q[@]}" --expect-gbps 100000 2>&1); rc=$?
vm_check_eq "--expect-gbps above reality fails" 1 "$rc" @out
vm_check_output "--expect-gbps says why" "below --expect-gbps" echo "$out"
out=$(timeout 120 "$S" "${Q[@]}" --expect-lat-us 0.001 2>&1); rc=$?
vm_check_eq "--expect-lat-us below reality fails" 1 "$rc" @out
out=$("$S" -d nosuch 2>&1); rc=$?
vm_check_eq "-d nosuch exits 1" 1 "$rc" @out
vm_check_eq "-d nosuch message" "rdma-selftest: nosuch: no such device (known: $DEV)" "$out"
"$S" --sysroot /tmp >/dev/null 2>&1; vm_check_eq "--sysroot is a usage error" 2 "$?"

# A loopback test of a port whose netdev is down names the GID problem.
ip link set "$VM_NETDEV" down
out=$(timeout 60 "$S" -d "$DEV" --timeout 10 --quick 2>&1); rc=$?
vm_check_eq "down port: exit 1" 1 "$rc" @out
echo "$out" > /tmp/down.txt
vm_check_output "down port: names the cause" "netdevs of every candidate GID are down|no GID configured" cat /tmp/down.txt
ip link set "$VM_NETDEV" up
vm_retry 20 sh -c "grep -q ACTIVE /sys/class/infiniband/$DEV/ports/1/state"
vm_retry 20 vm_gid_index "$DEV" "$VM_IP"

# A local server: garbage, truncated, oversized and half-open TCP clients,
# then real clients still PASS; one log line each.
timeout 300 "$S" --server -P 18700 --timeout 3 > /tmp/srv.log 2>&1 &
srv=$!
vm_wait_listen 18700 30
send_raw() { # bytes-as-printf-format
	exec 3<>/dev/tcp/127.0.0.1/18700 && printf "$1" >&3
	exec 3>&-
}
send_raw 'GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE!!!!'
send_raw 'RDST'
head -c 100000 /dev/urandom > /tmp/big && { exec 3<>/dev/tcp/127.0.0.1/18700; cat /tmp/big >&3; exec 3>&-; }
# a well-formed HELLO with absurd sizes: magic, version 1, type 1, qpn 0x11, psn 1, lid 0, mtu 3, kind 3, gid 0..., size 1 GiB, window 100000
printf 'RDST\000\001\000\001\000\000\000\021\000\000\000\001\000\000\003\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\100\000\000\000\000\001\206\240\000\000\000\001' > /tmp/hello
head -c 64 /dev/zero >> /tmp/hello
exec 3<>/dev/tcp/127.0.0.1/18700; cat /tmp/hello >&3; timeout 5 head -c 112 <&3 > /tmp/reply; exec 3>&-
tr -d '\000' < /tmp/reply > /tmp/reply.txt
vm_check_output "absurd sizes are refused with a reason" "above the server's limit" cat /tmp/reply.txt
exec 4<>/dev/tcp/127.0.0.1/18700	# half-open: says nothing
sleep 4
exec 4>&-
vm_check_output "rdma_cm client PASS after the garbage" "PASS(, with a warning at counters)?\$" timeout 120 "$S" "$VM_IP" -P 18700 --timeout 30 -n 20 --pings 10
vm_check_output "verbs client PASS after the garbage" "PASS(, with a warning at counters)?\$" timeout 120 "$S" "$VM_IP" -P 18700 --verbs --timeout 30 -n 20 --pings 10
vm_check "server still running" kill -0 "$srv"
kill -TERM "$srv"; wait "$srv"; rc=$?
vm_check_eq "server exits 0 on SIGTERM" 0 "$rc" /tmp/srv.log
vm_check_output "server logged the bad magic" "not an rdma-selftest message" cat /tmp/srv.log
vm_check_output "server logged the truncated message" "closed before a whole exchange message|incomplete exchange" cat /tmp/srv.log
vm_check_output "server logged the half-open client" "incomplete exchange message \(timed out\)" cat /tmp/srv.log
vm_check_output "server logged the refused sizes" "rejected: message size" cat /tmp/srv.log
vm_check_eq "one log line per client (no floods)" "" "$(awk 'length > 400' /tmp/srv.log)"

# The end of a session, seen from the other side at once.  A server drops a
# client silent for its --timeout (here the client is stopped for 2.5 s);
# the client, resumed, learns that from the closed connection (rdma_cm's
# DISCONNECTED, the --verbs exchange's socket) instead of waiting out its
# own --timeout of 30 s and blaming the network.
for mode in cm verbs; do
	V=(); [ "$mode" = verbs ] && V=(--verbs)
	timeout 120 "$S" --server --once -P 18705 --timeout 1 > "/tmp/end-srv-$mode.log" 2>&1 &
	srv=$!
	vm_wait_listen 18705 30
	timeout 120 "$S" "$VM_IP" -P 18705 "${V[@]}" --timeout 30 --latency-only -n 1000000 -j \
		> "/tmp/end-cli-$mode.json" 2>/dev/null &
	cli=$!
	vm_sleep 3
	pid=$(pgrep -P "$cli" -x rdma-selftest)	# not timeout(1): SIGSTOP stops only its target
	kill -STOP "$pid"; vm_sleep 2.5; kill -CONT "$pid"; t0=$EPOCHREALTIME
	wait "$cli"; rc=$?; t1=$EPOCHREALTIME
	wait "$srv"
	vm_check_eq "server ends a stopped client's session ($mode): the client exits 1" 1 "$rc" "/tmp/end-srv-$mode.log" "/tmp/end-cli-$mode.json"
	vm_check_output "the server's log: the client's silence" \
		"client [^ ]+: session failed after [0-9]+ messages: no message from the client within 1000 ms" \
		cat "/tmp/end-srv-$mode.log"
	vm_check_output "the client's failed stage says the peer ended the session ($mode)" \
		"the peer (ended|had ended) the session" \
		jq -r '.stages[] | select(.result == "fail") | .diagnosis' "/tmp/end-cli-$mode.json"
	vm_check "the client ended within 10 s of resuming, not at its --timeout of 30 s ($mode)" \
		awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 10) }'
done
# The other way: a client killed in a stage.  The server hears its rdma_cm
# connection end (the kernel disconnects it) and closes the session at once,
# not after its --timeout of 30 s of silence.
for mode in cm verbs; do
	V=(); [ "$mode" = verbs ] && V=(--verbs)
	timeout 120 "$S" --server --once -P 18706 --timeout 30 > "/tmp/kill-srv-$mode.log" 2>&1 &
	srv=$!
	vm_wait_listen 18706 30
	timeout 120 "$S" "$VM_IP" -P 18706 "${V[@]}" --timeout 30 --latency-only -n 1000000 \
		> /dev/null 2>&1 &
	cli=$!
	vm_sleep 3
	kill -KILL "$(pgrep -P "$cli" -x rdma-selftest)"; t0=$EPOCHREALTIME
	wait "$cli"
	wait "$srv"; t1=$EPOCHREALTIME
	vm_check_output "a killed client: the server's log says it went ($mode)" \
		"client [^ ]+: session failed after [0-9]+ messages: the client (disconnected|closed its exchange connection)" \
		cat "/tmp/kill-srv-$mode.log"
	vm_check "a killed client: the server ended the session within 10 s, not at its --timeout of 30 s ($mode)" \
		awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 10) }'
done
vm_schema_check
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/srv.log; fi
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/end-srv-*.log /tmp/kill-srv-*.log /tmp/end-cli-*.json; fi
