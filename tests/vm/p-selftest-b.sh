#!/bin/bash
# Two hosts, VM b (10.10.0.2): rdma-selftest clients against VM a, and every
# failure the issue names, with its diagnosis.  Peer: p-selftest-a.sh.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
G=$RD_ROOT/build/rdma-gids
DEV=${VM_RDMA_DEV:-rxe0}
Q=(--timeout 30 -n 50 --pings 20)

vm_wait st-srv-ready 120 || vm_fail "server on $PEER_IP never got ready"

timeout 180 "$S" "$PEER_IP" "${Q[@]}" > /tmp/cm.txt 2>&1; rc=$?
vm_check_eq "rdma_cm client exits 0" 0 "$rc" "/tmp/cm.txt"
vm_check_output "rdma_cm: every stage PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$" cat /tmp/cm.txt
vm_check_output "rdma_cm: address stage names device, port and GID" "PASS  address .* $DEV port 1, GID [0-9]+ \(RoCE v2\), $VM_IP -> $PEER_IP" cat /tmp/cm.txt
vm_check_output "rdma_cm: latency table" "^ +64 +50 +[0-9.]+ " cat /tmp/cm.txt
vm_check_output "rdma_cm: bandwidth table" "^ +65536 +50 +[0-9.]+ " cat /tmp/cm.txt

idx=$("$G" --best -d "$DEV" -j | jq .[0].index)
timeout 180 "$S" "$PEER_IP" --verbs -x "$idx" "${Q[@]}" > /tmp/verbs.txt 2>&1; rc=$?
vm_check_eq "--verbs -x $idx exits 0" 0 "$rc" "/tmp/verbs.txt"
vm_check_output "--verbs: PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$" cat /tmp/verbs.txt
vm_check_output "--verbs: exchange names both GIDs" "GID $idx \(RoCE v2\) <-> peer GID RoCE v2" cat /tmp/verbs.txt

timeout 180 "$S" "$PEER_IP" "${Q[@]}" -j > /tmp/cm.json 2>&1
vm_check_eq "-j result pass" "pass" "$(jq -r .result /tmp/cm.json)"
vm_check "-j has latency and bandwidth figures" jq -e '.latency[0].median_us > 0 and .bandwidth[0].gbps > 0' /tmp/cm.json

# No server on that port: REJECTED, named
timeout 60 "$S" "$PEER_IP" -P 18599 --timeout 10 --quick > /tmp/rej.txt 2>&1; rc=$?
vm_check_eq "no server: exit 1" 1 "$rc" "/tmp/rej.txt"
vm_check_output "no server: REJECTED diagnosis" "FAIL  connect .*REJECTED.*no rdma-selftest server on $PEER_IP port 18599" cat /tmp/rej.txt

# Nobody has that address: ADDR_ERROR, named
timeout 60 "$S" 10.10.0.99 --timeout 10 --quick > /tmp/addr.txt 2>&1; rc=$?
vm_check_eq "wrong IP: exit 1" 1 "$rc" "/tmp/addr.txt"
vm_check_output "wrong IP: ADDR_ERROR diagnosis" "FAIL  address .*ADDR_ERROR.*no RDMA device reaches 10.10.0.99" cat /tmp/addr.txt

# verbs exchange against a port with nothing: connection refused, named
timeout 60 "$S" "$PEER_IP" -P 18599 --verbs --timeout 10 --quick > /tmp/vrej.txt 2>&1
vm_check_output "--verbs, no server: named" "no rdma-selftest server there" cat /tmp/vrej.txt

# The server is killed in the middle of the bandwidth stage: the kernel
# disconnects its rdma_cm connection, and the client fails at once, saying so.
bw_run() { # NAME [--timeout SEC] [OPTION...]: a long bandwidth run in the background
	local name=$1 t=5; shift
	# an option is given once: a run's own --timeout replaces the default here
	if [ "${1:-}" = --timeout ]; then t=$2; shift 2; fi
	vm_bg "$name" timeout 300 "$S" "$PEER_IP" --timeout "$t" -n 10 --pings 5 -D 120 "$@"
}
in_bandwidth() { grep -q "PASS  latency" "/tmp/vm-bg/$1.out"; }
bw_run killed
if vm_retry 120 in_bandwidth killed; then
	t0=$SECONDS
	vm_signal st-kill-now
	vm_bg_wait killed > /tmp/killed.txt 2>&1; rc=$?
	took=$((SECONDS - t0))
	vm_check_eq "server killed: client exits 1" 1 "$rc" "/tmp/killed.txt"
	vm_check_output "server killed: bandwidth stage fails: the peer ended the session" \
		"FAIL  bandwidth .*the peer (had )?ended the session" cat /tmp/killed.txt
	vm_log "client noticed the dead server after ${took}s (deadline 5 s per stage)"
	vm_check "server killed: noticed before its stage deadline of 5 s" test "$took" -lt 5
else
	vm_bg_kill killed
	vm_fail "server killed: client never reached the bandwidth stage" "$(cat /tmp/vm-bg/killed.out)"
	vm_signal st-kill-now
fi

vm_wait st-srv2-ready 120

# SIGINT in the middle: torn down promptly, status 1
bw_run sigint
if vm_retry 120 in_bandwidth sigint; then
	pkill -INT -f -- "-D 120"
	t0=$SECONDS
	vm_bg_wait sigint > /tmp/sigint.txt 2>&1; rc=$?
	vm_check_eq "SIGINT: client exits 1" 1 "$rc" "/tmp/sigint.txt"
	vm_check "SIGINT: within 10 s" test $((SECONDS - t0)) -le 10
else
	vm_bg_kill sigint
	vm_fail "SIGINT: client never reached the bandwidth stage" "$(cat /tmp/vm-bg/sigint.out)"
fi

# The server still serves a real client after all that.
vm_check_output "server still serves after kills, cuts and interrupts" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
	timeout 180 "$S" "$PEER_IP" "${Q[@]}"
# The server's link goes down during a run: retry exceeded, named
# rxe retries forever when retry_cnt is 7 (like rnr_retry): ask for 6 here,
# with a 1 s ACK timeout so that qemu's slowness is not mistaken for loss.
bw_run cut --timeout 60 --retry-cnt 6 --qp-timeout 18
if vm_retry 120 in_bandwidth cut; then
	vm_signal st-linkdown-now
	vm_bg_wait cut > /tmp/cut.txt 2>&1; rc=$?
	vm_check_eq "link down: client exits 1" 1 "$rc" "/tmp/cut.txt"
	vm_check_output "link down: retry-exceeded diagnosis" \
		"FAIL  bandwidth .*(transport retry counter exceeded|packets lost)" cat /tmp/cut.txt
else
	vm_bg_kill cut
	vm_fail "link down: client never reached the bandwidth stage" "$(cat /tmp/vm-bg/cut.out)"
fi
vm_signal st-linkdown-done
vm_wait st-link-back 120

vm_signal st-done
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/cm.txt /tmp/verbs.txt /tmp/rej.txt /tmp/addr.txt /tmp/killed.txt /tmp/cut.txt; fi
