#!/bin/bash
# VM scenario (one host): rdma-selftest --op in loopback on the real rxe0:
# every transfer type passes and verifies its data, --op all on one
# connection, the JSON fields, and a serving MR that denies an access (the
# hidden test flag --deny) failing with that access's diagnosis; the exchange
# versions (1, 2 and 3 served; a version 2 server meets a UD client); UD
# (--qp ud) in loopback, its sizes and the one-packet rule; keep-alives in
# one-sided stages longer than the server's --timeout; a client and its
# server on this one-CPU host yielding the CPU to each other.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
DEV=${VM_RDMA_DEV:-rxe0}
Q=(--timeout 30 -n 50 --pings 20)

for op in send write read atomic; do
	out=$(timeout 180 "$S" "${Q[@]}" --op "$op" 2>&1); rc=$?
	echo "$out" > "/tmp/ops-$op.txt"
	vm_check_eq "loopback --op $op exits 0" 0 "$rc" @out
	vm_check_output "loopback --op $op PASS on $DEV" "^$DEV port 1: PASS(, with a warning at counters)?\$" cat "/tmp/ops-$op.txt"
done
vm_check_output "write: verified in the peer's memory by the peer" \
	"PASS  write +[0-9.]+ ms  20 x 64 B verified in the peer's memory by the peer" cat /tmp/ops-write.txt
vm_check_output "write with immediate: verified too" \
	"PASS  write-imm +[0-9.]+ ms  20 x 64 B verified in the peer's memory" cat /tmp/ops-write.txt
vm_check_output "read: verified as read" "PASS  read +[0-9.]+ ms  20 x 64 B verified as read" cat /tmp/ops-read.txt
vm_check_output "fetch-and-add: every returned value checked" \
	"PASS  fetch-add .*20 adds on the peer's word, every returned value as expected, the sum checked" \
	cat /tmp/ops-atomic.txt
vm_check_output "compare-and-swap: misses included" \
	"PASS  cmp-swap .*20 compares \(1 in 4 meant to miss\)" cat /tmp/ops-atomic.txt
vm_check_output "the figures table has an op column" "^ read +64 +50 " cat /tmp/ops-read.txt

out=$(timeout 300 "$S" "${Q[@]}" --op all -j); rc=$?
echo "$out" > /tmp/ops-all.json
vm_check_eq "--op all -j exits 0" 0 "$rc" @out
vm_check_eq "--op all: ops field" "send,write,write-imm,read,fetch-add,cmp-swap" "$(jq -r .ops /tmp/ops-all.json)"
vm_check_eq "--op all: every stage, in order, on one connection" \
	"connect pingpong write write-imm read fetch-add cmp-swap latency bandwidth write-lat write-bw write-imm-lat write-imm-bw read-lat read-bw fetch-add-lat fetch-add-bw cmp-swap-lat cmp-swap-bw" \
	"$(jq -r '[.ports[0].stages[] | select(.result == "pass" and .stage != "counters") | .stage] | join(" ")' /tmp/ops-all.json)"
vm_check_eq "--op all: latency per op" "send write write-imm read fetch-add cmp-swap" \
	"$(jq -r '[.ports[0].latency[].op] | join(" ")' /tmp/ops-all.json)"
vm_check "--op all: ordered latency figures" \
	jq -e '[.ports[0].latency[] | .min_us > 0 and .min_us <= .median_us and .median_us <= .max_us] | all' /tmp/ops-all.json
vm_check "--op all: bandwidth of 50 per op, atomics 8 B" \
	jq -e '[.ports[0].bandwidth[] | .messages == 50 and .gbps > 0 and ((.op | test("fetch|cmp")) == (.bytes == 8))] | all' /tmp/ops-all.json

out=$(timeout 120 "$S" "${Q[@]}" --op write --sizes 1,4096,65536 -j); rc=$?
vm_check_eq "--op write with sizes exits 0" 0 "$rc" @out
vm_check_eq "--op write: a latency and a bandwidth stage per size and per write kind" \
	"write:1 write:4096 write:65536 write-imm:1 write-imm:4096 write-imm:65536" \
	"$(jq -r '[.ports[0].bandwidth[] | "\(.op):\(.bytes)"] | join(" ")' <<<"$out")"
out=$(timeout 120 "$S" --timeout 30 --pings 10 --op read,atomic --quick -j)
vm_check_eq "--quick: only the verified stages (and the counters around them)" "connect read fetch-add cmp-swap counters" \
	"$(jq -r '[.ports[0].stages[].stage] | join(" ")' <<<"$out")"

# The serving QP's MR without remote read: READ fails with that diagnosis.
out=$(timeout 120 "$S" "${Q[@]}" --op read --deny read -j); rc=$?
echo "$out" > /tmp/deny-read.json
vm_check_eq "--deny read: --op read exits 1" 1 "$rc" @out
vm_check_eq "--deny read: fails at the read stage" "read" "$(jq -r .ports[0].failed_stage /tmp/deny-read.json)"
vm_check_eq "--deny read: the completion status" "remote access error" \
	"$(jq -r '.ports[0].stages[] | select(.stage == "read") | .wc_status' /tmp/deny-read.json)"
vm_check_output "--deny read: the diagnosis names remote read" \
	"RDMA READ failed .*memory region lacks remote read access" \
	jq -r '.ports[0].stages[] | select(.stage == "read") | .diagnosis' /tmp/deny-read.json
out=$(timeout 120 "$S" "${Q[@]}" --op write --deny write 2>&1); rc=$?
vm_check_eq "--deny write: --op write exits 1" 1 "$rc" @out
vm_check_output "--deny write: the diagnosis names remote write" \
	"FAIL  write .*RDMA WRITE failed \(remote access error.*lacks remote write access" echo "$out"
out=$(timeout 120 "$S" "${Q[@]}" --op atomic --deny atomic 2>&1); rc=$?
vm_check_eq "--deny atomic: --op atomic exits 1" 1 "$rc" @out
vm_check_output "--deny atomic: the diagnosis names remote atomic" \
	"FAIL  fetch-add .*fetch-and-add failed .*lacks remote atomic access" echo "$out"
out=$(timeout 120 "$S" "${Q[@]}" --op write,atomic --deny read 2>&1); rc=$?
vm_check_eq "--deny read does not hinder write and atomics" 0 "$rc" @out
vm_check_output "--deny read: a send-only run still passes" "^$DEV port 1: PASS(, with a warning at counters)?\$" \
	timeout 120 "$S" "${Q[@]}" --deny read,write,atomic

# The exchange is versioned (2 carries the server's rkey and address).
# An old (version 1) --verbs client is still served, in its own layout: a
# HELLO as rdma-selftest 1 wrote it (112 bytes) gets a 112-byte ACCEPT.
timeout 300 "$S" --server -P 18700 --timeout 3 > /tmp/srv.log 2>&1 &
srv=$!
vm_wait_listen 18700 30
# A HELLO as rdma-selftest VERSION writes it: QPN 0x11, PSN 1, MTU 1024, RoCE v2 GID of
# our address, 64 B, window 8, 10 iterations (112 bytes; 128 past version 1).
hello() {
	python3 -c 'import ipaddress, struct, sys
v = int(sys.argv[1]); gid = ipaddress.IPv6Address("::ffff:" + sys.argv[2]).packed
m = b"RDST" + struct.pack(">HHIIHBB", v, 1, 0x11, 1, 0, 3, 3) + gid + struct.pack(">III", 64, 8, 10) + bytes(64)
sys.stdout.buffer.write(m + (bytes(16) if v > 1 else b""))' "$1" "$VM_IP"
}
hello 1 > /tmp/hello1
exec 3<>"/dev/tcp/$VM_IP/18700"; cat /tmp/hello1 >&3; timeout 10 cat <&3 > /tmp/reply1; exec 3>&-
vm_check_eq "version 1 HELLO: a 112-byte answer" 112 "$(stat -c %s /tmp/reply1)"
vm_check_eq "version 1 HELLO: answered as version 1 ACCEPT" "5244535400010002" "$(head -c 8 /tmp/reply1 | od -An -tx1 | tr -d ' \n')"
# A version 2 HELLO (what an RC client sends) is answered in version 2: 128 bytes.
hello 2 > /tmp/hello2
exec 3<>"/dev/tcp/$VM_IP/18700"; cat /tmp/hello2 >&3; timeout 10 cat <&3 > /tmp/reply2; exec 3>&-
vm_check_eq "version 2 HELLO: a 128-byte version 2 ACCEPT" "128 5244535400020002" \
	"$(stat -c %s /tmp/reply2) $(head -c 8 /tmp/reply2 | od -An -tx1 | tr -d ' \n')"
# A newer client than we know: refused, saying which version each side speaks.
hello 5 > /tmp/hello5
exec 3<>"/dev/tcp/$VM_IP/18700"; cat /tmp/hello5 >&3; timeout 10 cat <&3 > /tmp/reply5; exec 3>&-
tr -d '\000' < /tmp/reply5 > /tmp/reply5.txt
vm_check_output "version 5 HELLO: a REJECT naming both versions" "server speaks exchange version 4, client 5" cat /tmp/reply5.txt
# Version 4 names the server's device (a mesh rail): ours, and one it lacks.
vm_check_output "--peer-dev rxe0: the server's rxe0, by name, PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
	timeout 200 "$S" "$VM_IP" -P 18700 --peer-dev rxe0:1 "${Q[@]}"
out=$(timeout 60 "$S" "$VM_IP" -P 18700 --peer-dev mlx5_3 --timeout 10 2>&1); rc=$?
vm_check_eq "--peer-dev mlx5_3: exit 1" 1 "$rc" @out
vm_check_output "... the server refused, naming its devices" \
	"FAIL  exchange .*the server refused: no device mlx5_3 here \(it has rxe0\)" echo "$out"
vm_check_output "a current --verbs client still PASSes --op all" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
	timeout 200 "$S" "$VM_IP" -P 18700 --verbs "${Q[@]}" --op all
kill -TERM "$srv"; wait "$srv"
vm_check_output "server logged the version 1 client on its accept line" "verbs client .*: [^ ]+ port [0-9]+ GID [0-9]+ .*\(exchange version 1, an older rdma-selftest: send only; answered in its version\)" cat /tmp/srv.log
vm_check_output "server logged the version 5 client" "rejected: peer speaks exchange version 5, this side speaks 4" cat /tmp/srv.log
vm_check_output "server logged the refused device" "rejected: no device mlx5_3 here \(it has rxe0\)" cat /tmp/srv.log

# old_server PORT READ VERSION REASON -- an older rdma-selftest's TCP
# exchange, in the background: it reads READ bytes of our HELLO (112: all of
# a version 1 message; 8: the header, where a version 2 server stops at a
# version it does not know), prints the client's version, and answers a
# REJECT with REASON in its own layout (112 bytes for 1, 128 for 2, 136 for 3).
old_server() {
	python3 - "$@" <<'PY' &
import socket, struct, sys
port, need, ver, reason = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].encode()
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", port)); s.listen(1); s.settimeout(60)
c, _ = s.accept(); c.settimeout(30)
got = b""
while len(got) < need:
    got += c.recv(need - len(got))
print("client version", struct.unpack(">H", got[4:6])[0])
c.sendall(b"RDST" + struct.pack(">HH", ver, 3) + bytes(40) + reason.ljust(64, b"\0") + (bytes(16) if ver > 1 else b"") + (bytes(8) if ver > 2 else b""))
c.shutdown(socket.SHUT_WR)
c.settimeout(2)
try:
    while c.recv(1024):
        pass
except OSError:
    pass
c.close()
PY
}

# An old (version 1) server: it read 112 bytes of our HELLO and rejected the
# version in its own layout, as rdma-selftest 1 did.
old_server 18701 112 1 "protocol version mismatch" > /tmp/oldsrv.log 2>&1
old=$!
vm_wait_listen 18701 30
out=$(timeout 60 "$S" "$VM_IP" -P 18701 --verbs --timeout 10 --op read 2>&1); rc=$?
wait "$old"
vm_check_eq "against a version 1 server: exit 1" 1 "$rc" @out
vm_check_output "against a version 1 server: the diagnosis" \
	"FAIL  exchange .*the server speaks exchange version 1 \(an older rdma-selftest\), this side speaks 2: run the same version on both sides; it said: protocol version mismatch" \
	echo "$out"
vm_check_output "the old server saw our version" "client version 2" cat /tmp/oldsrv.log

# A version 2 server (before UD) meets a UD client: it stops at the version 3
# header and rejects in its own layout, as rdma-selftest with exchange 2 did.
old_server 18702 8 2 "server speaks exchange version 2, client 3" > /tmp/v2srv.log 2>&1
v2=$!
vm_wait_listen 18702 30
out=$(timeout 60 "$S" "$VM_IP" -P 18702 --qp ud --timeout 10 2>&1); rc=$?
wait "$v2"
vm_check_eq "--qp ud against a version 2 server: exit 1" 1 "$rc" @out
vm_check_output "--qp ud against a version 2 server: it has no UD, said plainly" \
	"FAIL  exchange .*the server speaks exchange version 2 \(an older rdma-selftest\), this side speaks 3: it has no UD test \(--qp ud needs a newer rdma-selftest --server on the peer\); it said: server speaks exchange version 2, client 3" \
	echo "$out"
vm_check_output "the version 2 server saw version 3" "client version 3" cat /tmp/v2srv.log

# A version 3 server (before rails) asked for a device by name: it stops at
# the version 4 header and rejects in its own layout.
old_server 18703 8 3 "server speaks exchange version 3, client 4" > /tmp/v3srv.log 2>&1
v3=$!
vm_wait_listen 18703 30
out=$(timeout 60 "$S" "$VM_IP" -P 18703 --peer-dev rxe0 --timeout 10 2>&1); rc=$?
wait "$v3"
vm_check_eq "--peer-dev against a version 3 server: exit 1" 1 "$rc" @out
vm_check_output "--peer-dev against a version 3 server: it cannot serve a device by name, said plainly" \
	"FAIL  exchange .*the server speaks exchange version 3 \(an older rdma-selftest\), this side speaks 4: it cannot serve a device by name \(a mesh rail, --peer-dev: needs a newer rdma-selftest on the peer\); it said: server speaks exchange version 3, client 4" \
	echo "$out"
vm_check_output "the version 3 server saw version 4" "client version 4" cat /tmp/v3srv.log

# UD in loopback: two UD QPs of rxe0, the address handle to its own GID.
out=$(timeout 120 "$S" --qp ud "${Q[@]}" -j); rc=$?
echo "$out" > /tmp/ud-loop.json
vm_check_eq "loopback --qp ud: exit 0, pass" "0 pass" "$rc $(jq -r .result /tmp/ud-loop.json)"
vm_check_eq "loopback --qp ud: qp_type, every stage" "ud connect pingpong latency bandwidth" \
	"$(jq -r '"\(.ports[0].qp_type) \([.ports[0].stages[] | select(.stage != "counters") | .stage] | join(" "))"' /tmp/ud-loop.json)"
vm_check_eq "loopback --qp ud: 20 datagrams verified" "20 datagrams of 64 B verified both ways" \
	"$(jq -r '.ports[0].stages[] | select(.stage == "pingpong") | .detail' /tmp/ud-loop.json)"
vm_check "loopback --qp ud: bandwidth of 50 at the path MTU, none lost" \
	jq -e '.ports[0] | .bandwidth[0].bytes == .path_mtu and .bandwidth[0].messages == 50 and .bandwidth[0].lost == 0' /tmp/ud-loop.json
out=$(timeout 120 "$S" --qp ud --timeout 30 --pings 20 -a --latency-only -n 5 -j)
vm_check_eq "loopback --qp ud -a: the powers of two up to the path MTU" "2 4 8 16 32 64 128 256 512 1024" \
	"$(jq -r '[.ports[0].latency[].bytes] | join(" ")' <<<"$out")"
out=$(timeout 120 "$S" --qp ud "${Q[@]}" -s 4096 2>&1); rc=$?
vm_check_eq "loopback --qp ud -s 4096 on a 1024 path: exit 1" 1 "$rc" @out
vm_check_output "loopback --qp ud -s 4096: fails at connect, the one-packet rule" \
	"FAIL  connect .*a UD message is one packet: 4096 B is above the path MTU 1024" echo "$out"
# Keep-alives: the serving process hears nothing of READs, WRITEs and
# atomics (its kernel answers them), and drops a session silent for its
# --timeout; the client pings it during such stages (every 250 ms, or a
# quarter of its own --timeout).  Every stage here outlasts the server's
# --timeout.  The server's deadlines are 2 s, 8 pings apart: a busy host
# (the CI runs other tiers beside this VM) can stall the guest for most of
# a second.
timeout 120 "$S" --server --once -P 18702 --timeout 2 > /tmp/ka-srv.log 2>&1 &
srv=$!
vm_wait_listen 18702 30
out=$(timeout 120 "$S" "$VM_IP" -P 18702 --timeout 10 --op write,read,atomic --bandwidth-only -D 3 --sizes 4096 -j); rc=$?
wait "$srv"
echo "$out" > /tmp/ka-bw.json
vm_check_eq "keep-alive: 3 s one-sided bandwidth stages against a server of --timeout 2: exit 0" 0 "$rc" @out
vm_check_eq "keep-alive: every bandwidth stage passed, each ran its 3 s" "write-bw write-imm-bw read-bw fetch-add-bw cmp-swap-bw" \
	"$(jq -r '[.stages[] | select(.result == "pass" and .ms >= 3000 and (.stage | endswith("-bw"))) | .stage] | join(" ")' /tmp/ka-bw.json)"
vm_check_output "keep-alive: the server's session ended done, not for silence" \
	"rdma_cm client [^ ]+: done, [0-9]+ messages" cat /tmp/ka-srv.log
timeout 120 "$S" --server --once -P 18702 --timeout 1 > /tmp/ka-srv2.log 2>&1 &
srv=$!
vm_wait_listen 18702 30
out=$(timeout 120 "$S" "$VM_IP" -P 18702 --verbs --timeout 10 --op read --latency-only -n 40000 --pings 40000 -j); rc=$?
wait "$srv"
vm_check_eq "keep-alive: 40000 verified READs and 40000 timed, --verbs, server --timeout 1: exit 0" 0 "$rc" @out
echo "$out" > /tmp/ka-read.json
vm_check "keep-alive: both READ stages outlasted the server's --timeout" \
	jq -e '[.stages[] | select(.stage == "read" or .stage == "read-lat") | .result == "pass" and .ms > 1000] | length == 2 and all' /tmp/ka-read.json
vm_check_output "keep-alive (--verbs): the server's session ended done" "verbs client [^ ]+: done, [0-9]+ messages" cat /tmp/ka-srv2.log
out=$(timeout 120 "$S" --timeout 2 --op read --bandwidth-only -D 3 -j); rc=$?
# On failure the actual value names the failed stages and why.
vm_check_eq "keep-alive in loopback (the serving thread's --timeout 2, 3 s of READs): exit 0, pass" "0 pass" \
	"$rc $(jq -r '.result + ([.ports[]?.stages[]?, .stages[]? | select(.result == "fail") | " \(.stage): \(.diagnosis // .detail // "")"] | join(";"))' <<<"$out")"

# Client and server on this one-CPU host: each side's spin yields the CPU to
# the other (without, every message waits for the scheduler tick: 4000 us a
# half round trip instead of about 80 under qemu; bench/README.md).
vm_check_eq "this VM has one CPU" 1 "$(nproc)"
timeout 120 "$S" --server --once -P 18703 --timeout 10 > /tmp/local-srv.log 2>&1 &
srv=$!
vm_wait_listen 18703 30
strace -f -qq -e trace=sched_yield -o /tmp/local-yield.trace \
	timeout 120 "$S" "$VM_IP" -P 18703 --verbs --timeout 10 -n 200 --pings 10 --latency-only -j > /tmp/local.json; rc=$?
wait "$srv"
vm_check_eq "a client and its server on this host: exit 0, pass" "0 pass" "$rc $(jq -r .result /tmp/local.json)"
vm_check "a client and its server on this host, one CPU: the client's spin yields" \
	grep -q sched_yield /tmp/local-yield.trace

if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/ops-*.txt /tmp/srv.log; jq . /tmp/deny-read.json; echo "$out"; fi
