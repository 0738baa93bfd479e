#!/bin/bash
# Two hosts, VM a (10.10.0.1): rdma-selftest --op and --qp ud clients against the
# servers on VM b, over rdma_cm and --verbs: every operation passes and
# verifies its data; --op read against the server that denies remote read
# fails with the access diagnosis.  Peer: p-ops-b.sh.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
Q=(--timeout 30 -n 50 --pings 20)

vm_wait ops-srv-ready 120 || vm_fail "servers on $PEER_IP never got ready"
for mode in cm verbs; do
	M=(); [ "$mode" = verbs ] && M=(--verbs)
	for op in send write read atomic; do
		out=$(timeout 180 "$S" "$PEER_IP" "${M[@]}" "${Q[@]}" --op "$op" 2>&1); rc=$?
		echo "$out" > "/tmp/$mode-$op.txt"
		vm_check_eq "$mode --op $op exits 0" 0 "$rc" @out
		vm_check_output "$mode --op $op: PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$" cat "/tmp/$mode-$op.txt"
	done
	vm_check_output "$mode: write verified by the peer" "PASS  write +[0-9.]+ ms  20 x 64 B verified in the peer's memory by the peer" cat "/tmp/$mode-write.txt"
	vm_check_output "$mode: write with immediate verified by the peer" "PASS  write-imm +[0-9.]+ ms  20 x 64 B verified" cat "/tmp/$mode-write.txt"
	vm_check_output "$mode: read verified" "PASS  read +[0-9.]+ ms  20 x 64 B verified as read" cat "/tmp/$mode-read.txt"
	vm_check_output "$mode: read bandwidth" "PASS  read-bw .*50 x 65536 B: [0-9.]+ Gb/s.*the last data read verified" cat "/tmp/$mode-read.txt"
	vm_check_output "$mode: atomics checked" "PASS  cmp-swap .*20 compares" cat "/tmp/$mode-atomic.txt"

	out=$(timeout 300 "$S" "$PEER_IP" "${M[@]}" "${Q[@]}" --op all --sizes 1,65536 -j); rc=$?
	echo "$out" > "/tmp/$mode-all.json"
	vm_check_eq "$mode --op all -j exits 0" 0 "$rc" @out
	vm_check_eq "$mode --op all: every stage passed" \
		"pingpong write write-imm read fetch-add cmp-swap latency latency bandwidth bandwidth write-lat write-lat write-bw write-bw write-imm-lat write-imm-lat write-imm-bw write-imm-bw read-lat read-lat read-bw read-bw fetch-add-lat fetch-add-bw cmp-swap-lat cmp-swap-bw" \
		"$(jq -r '[.stages[] | select(.result == "pass" and (.stage | test("^(address|route|connect|exchange|counters)$") | not)) | .stage] | join(" ")' "/tmp/$mode-all.json")"
	vm_check "$mode --op all: every figure measured" \
		jq -e '([.latency[] | .median_us > 0] | all) and ([.bandwidth[] | .gbps > 0 and .messages == 50] | all) and (.bandwidth | length) == 10' "/tmp/$mode-all.json"
	# The document's shape (the man page once listed bare elements in stages and an empty
	# "value" array as known bugs): every stage an object, dev and port keys of the document.
	vm_check "$mode --op all: stages are objects, dev and port are keys, no stray value array" \
		jq -e '(.stages | all(type == "object")) and (has("value") | not) and
			([.. | objects | has("value")] | any | not) and (.dev | type == "string") and (.port | type == "number")' "/tmp/$mode-all.json"

	out=$(timeout 120 "$S" "$PEER_IP" -P 18600 "${M[@]}" "${Q[@]}" --op read -j); rc=$?
	echo "$out" > "/tmp/$mode-deny.json"
	vm_check_eq "$mode --op read vs --deny read: exit 1" 1 "$rc" @out
	vm_check_eq "$mode --op read vs --deny read: fails at read" "read" "$(jq -r .failed_stage "/tmp/$mode-deny.json")"
	vm_check_eq "$mode --op read vs --deny read: the completion status" "remote access error" \
		"$(jq -r '.stages[] | select(.stage == "read") | .wc_status' "/tmp/$mode-deny.json")"
	vm_check_output "$mode --op read vs --deny read: the diagnosis" \
		"RDMA READ failed \(remote access error, vendor error 0x[0-9a-f]+\): the peer refused the read: its memory region lacks remote read access" \
		jq -r '.stages[] | select(.stage == "read") | .diagnosis' "/tmp/$mode-deny.json"
	vm_check_output "$mode: write and atomics against that server pass" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
		timeout 180 "$S" "$PEER_IP" -P 18600 "${M[@]}" "${Q[@]}" --op write,atomic
done

# A peer on another host: the spin never yields, even on this one-CPU VM (no
# system call in the wait, as in perftest's; t-ops.sh has the local peer).
for mode in cm verbs; do
	M=(); [ "$mode" = verbs ] && M=(--verbs)
	strace -f -qq -e trace=sched_yield -o "/tmp/remote-yield-$mode.trace" \
		timeout 180 "$S" "$PEER_IP" "${M[@]}" --timeout 30 -n 200 --pings 10 --latency-only > /dev/null; rc=$?
	vm_check_eq "$mode: latency against a peer on another host: exit 0" 0 "$rc" "/tmp/remote-yield-$mode.trace"
	vm_check_eq "$mode: ... and the spin never yielded the CPU" 0 "$(grep -c sched_yield "/tmp/remote-yield-$mode.trace")"
done

# Retransmits for real: the server on port 18700 stops (SIGSTOP) for 2 s in
# the middle of the bandwidth stage; its receive queue runs dry, our sends
# meet RNR NAKs and are retried (rnr_retry 7: for ever).  The run passes, and
# the counters stage warns with rxe's counts.
for mode in cm verbs; do
	M=(); [ "$mode" = verbs ] && M=(--verbs)
	vm_bg "ctr-$mode" timeout 180 "$S" "$PEER_IP" -P 18700 "${M[@]}" --timeout 30 --pings 20 --bandwidth-only -D 5 -j
	vm_sleep 2
	vm_signal "ctr-pause-$mode"
	vm_wait "ctr-resumed-$mode" 60 || vm_fail "the peer never resumed its server"
	vm_bg_wait "ctr-$mode" > "/tmp/ctr-$mode.json"; rc=$?
	vm_check_eq "$mode, server paused mid-run: exit 0" 0 "$rc" "/tmp/ctr-$mode.json"
	vm_check_eq "$mode, server paused mid-run: the run passes, the counters stage warns" "pass warn" \
		"$(jq -r '"\(.result) \(.stages[] | select(.stage == "counters") | .result)"' "/tmp/ctr-$mode.json")"
	vm_check "$mode, server paused mid-run: rxe's RNR NAKs received counted as retransmits" \
		jq -e '.counters.retransmits > 0 and ([.counters.moved[] | select(.name == "rcvd_rnr_err" and .class == "retransmits" and .delta > 0)] | length == 1)' "/tmp/ctr-$mode.json"
	vm_check_output "$mode, server paused mid-run: the warning names the counter" \
		"retransmits: .*rcvd_rnr_err \+[0-9]+.* on ${VM_RDMA_DEV:-rxe0} port 1 during the run \(port-wide" \
		jq -r '.stages[] | select(.stage == "counters") | .detail' "/tmp/ctr-$mode.json"
done
out=$(timeout 120 "$S" "$PEER_IP" --verbs "${Q[@]}" --quick); rc=$?
echo "$out" > /tmp/quiet.txt
vm_check_eq "quiet run: exit 0" 0 "$rc" @out
vm_check_output "quiet run: the counters stage line" \
	"^  (PASS|WARN)  counters +[0-9.]+ ms  (no retransmit, congestion or drop counter of ${VM_RDMA_DEV:-rxe0} port 1 moved \([0-9]+ counters read; [0-9]+ packets out, [0-9]+ in\)|retransmits: )" cat /tmp/quiet.txt
out=$(timeout 120 "$S" "$PEER_IP" --verbs "${Q[@]}" --quick --no-counters -j)
vm_check_eq "--no-counters: no counters stage, no counters object" "pingpong false" \
	"$(jq -r '"\([.stages[].stage] | last) \(has("counters"))"' <<<"$out")"

# The path settings: GID family refused before any QP moves (-x 0 is rxe's
# link-local fe80:: GID, the server's is IPv4), --mtu offered to the server,
# --tc and --sl on the QP, --tc through rdma_cm (read back from the QP).
out=$(timeout 120 "$S" "$PEER_IP" --verbs -x 0 "${Q[@]}" --quick -j); rc=$?
echo "$out" > /tmp/gid0.json
vm_check_eq "--verbs -x 0 (IPv6 link-local) vs an IPv4 GID: exit 1 at exchange" "1 exchange" "$rc $(jq -r .failed_stage /tmp/gid0.json)"
vm_check_output "--verbs -x 0: both GIDs and the fix named" \
	"^the server refused: GID family mismatch: client IPv6, server IPv4 \(GID [0-9]+\); this side uses RoCE v2 GID 0 \(IPv6, fe80::[0-9a-f:]+\): choose GIDs of one RoCE version and one address family on both sides" \
	jq -r '.stages[] | select(.stage == "exchange") | .diagnosis' /tmp/gid0.json
out=$(timeout 120 "$S" "$PEER_IP" --verbs --mtu 512 "${Q[@]}" --sizes 4096 --quick 2>&1); rc=$?
echo "$out" > /tmp/mtu512.txt
vm_check_eq "--verbs --mtu 512, 4096 B messages: exit 0" 0 "$rc" @out
vm_check_output "--mtu 512: offered, and the path uses it" "note: MTU differs: this side offers 512 \(--mtu\), the peer 1024; the path uses the smaller" cat /tmp/mtu512.txt
vm_check_output "--mtu 512: connect at path MTU 512, 4096 B verified" "PASS  connect .*path MTU 512\$" cat /tmp/mtu512.txt
vm_check_output "--mtu 512: the perftest line has -m 512" "here:  ib_send_bw -d ${VM_RDMA_DEV:-rxe0} -i 1 -x [0-9]+ --report_gbits -s 4096 -m 512 $PEER_IP\$" cat /tmp/mtu512.txt
out=$(timeout 120 "$S" "$PEER_IP" --verbs --tc 104 --sl 2 --op write "${Q[@]}" --quick -j); rc=$?
echo "$out" > /tmp/tcsl.json
vm_check_eq "--verbs --tc 104 --sl 2: exit 0" 0 "$rc" @out
vm_check_output "--verbs --tc 104 --sl 2: on the connect stage" "path MTU 1024, traffic class 104, SL 2\$" \
	jq -r '.stages[] | select(.stage == "connect") | .detail' /tmp/tcsl.json
vm_check_output "--verbs --tc 104 --sl 2: perftest and NCCL settings" \
	"^ib_write_bw -d ${VM_RDMA_DEV:-rxe0} -i 1 -x [0-9]+ --report_gbits --tclass=104 -S 2 $PEER_IP NCCL_IB_HCA=${VM_RDMA_DEV:-rxe0}:1 NCCL_IB_GID_INDEX=[0-9]+ NCCL_IB_TC=104 NCCL_IB_SL=2\$" \
	jq -r '"\(.next.perftest) \(.next.nccl)"' /tmp/tcsl.json
out=$(timeout 120 "$S" "$PEER_IP" --tc 104 "${Q[@]}" --quick -j); rc=$?
echo "$out" > /tmp/cmtc.json
vm_check_eq "rdma_cm --tc 104: exit 0" 0 "$rc" @out
vm_check_output "rdma_cm --tc 104: the QP rdma_cm made carries it" "traffic class 104, SL [0-9]+\$" \
	jq -r '.stages[] | select(.stage == "connect") | .detail' /tmp/cmtc.json

# UD (--qp ud): datagrams through an address handle, endpoints over the TCP
# exchange.  200 messages fit the server's 512 posted receives: none lost.
out=$(timeout 120 "$S" "$PEER_IP" --qp ud -n 200 --pings 50 --timeout 30 -j); rc=$?
echo "$out" > /tmp/ud.json
vm_check_eq "--qp ud: exit 0, pass" "0 pass" "$rc $(jq -r .result /tmp/ud.json)"
vm_check_eq "--qp ud: qp_type and path MTU in the JSON" "ud 1024" "$(jq -r '"\(.qp_type) \(.path_mtu)"' /tmp/ud.json)"
vm_check_output "--qp ud: the connect stage names the UD bring-up and both Q_Keys" \
	"^UD RESET->INIT->RTR->RTS, address handle to the peer's GID, Q_Key 0x[0-9a-f]+/0x[0-9a-f]+, path MTU 1024\$" \
	jq -r '.stages[] | select(.stage == "connect") | .detail' /tmp/ud.json
vm_check_eq "--qp ud: 50 datagrams verified both ways" "50 datagrams of 64 B verified both ways" \
	"$(jq -r '.stages[] | select(.stage == "pingpong") | .detail' /tmp/ud.json)"
vm_check "--qp ud: bandwidth at the path MTU, 200 received, none lost" \
	jq -e '.bandwidth[0] | .bytes == 1024 and .messages == 200 and .lost == 0 and .gbps > 0' /tmp/ud.json
vm_check "--qp ud: nothing lost, the rate as sent is the rate as received" \
	jq -e '.bandwidth[0] | .sent_gbps == .gbps' /tmp/ud.json
vm_check "--qp ud: latency measured" jq -e '.latency[0] | .median_us > 0 and .iterations == 200' /tmp/ud.json
vm_check_output "--qp ud: the next perftest line has -c UD" "^ib_send_bw -d ${VM_RDMA_DEV:-rxe0} -i 1 -x [0-9]+ --report_gbits -c UD $PEER_IP\$" \
	jq -r .next.perftest /tmp/ud.json
# A size above the path MTU: refused at connect, and the client's close ends
# the server's session at once (port 18600: its log is the one read for it).
out=$(timeout 120 "$S" "$PEER_IP" -P 18600 --qp ud -s 2048 --timeout 30 2>&1); rc=$?
echo "$out" > /tmp/ud2048.txt
vm_check_eq "--qp ud -s 2048 on a 1024 path: exit 1" 1 "$rc" @out
vm_check_output "--qp ud -s 2048: the one-packet rule named at connect" \
	"FAIL  connect .*a UD message is one packet: 2048 B is above the path MTU 1024 \(use -s 1024 or less" cat /tmp/ud2048.txt
vm_check_output "--qp ud right after: the server is free again" "^rdma-selftest: PASS" \
	timeout 60 "$S" "$PEER_IP" -P 18600 --qp ud --quick --timeout 8
# Loss for real: netem drops a quarter of what this VM sends.  UD resends a
# ping whose answer does not come, counts the bandwidth stage's losses, and
# passes with warnings.  Then 10%: RC retransmits on its ACK timeout
# (completer_retry_err; the default 67 ms: a timeout below the emulated
# round trip would spend the retry count on packets that were not lost).
tc qdisc add dev "${VM_NETDEV:-eth0}" root netem loss 25% || vm_fail "no netem qdisc"
out=$(timeout 300 "$S" "$PEER_IP" --qp ud -n 300 --pings 100 --timeout 30 -j); rc=$?
echo "$out" > /tmp/udloss.json
vm_check_eq "--qp ud with 25% loss: exit 0, pass" "0 pass" "$rc $(jq -r .result /tmp/udloss.json)"
vm_check_output "--qp ud with loss: pings sent again, and said so" \
	"^warn [0-9]+ datagrams of 64 B verified both ways, [1-9][0-9]* sent again after a loss\$" \
	jq -r '.stages[] | select(.stage == "pingpong") | "\(.result) \(.detail)"' /tmp/udloss.json
vm_check "--qp ud with loss: latency samples that waited are counted" jq -e '.latency[0].resent > 0' /tmp/udloss.json
vm_check "--qp ud with loss: the bandwidth stage counts what never arrived" \
	jq -e '.bandwidth[0] | .lost > 0 and .messages + .lost == 300' /tmp/udloss.json
vm_check "--qp ud with loss: the rate as sent counts the lost ones too" \
	jq -e '.bandwidth[0] | .sent_gbps > .gbps and (.sent_gbps / .gbps - 300 / .messages | if . < 0 then -. else . end) < 0.01' /tmp/udloss.json
vm_check_output "--qp ud with loss: the bandwidth warning" \
	"^warn .* Mpps as received \([0-9.]+ Gb/s as sent\); [0-9]+ of 300 datagrams lost \(UD does not retransmit" \
	jq -r '.stages[] | select(.stage == "bandwidth") | "\(.result) \(.detail)"' /tmp/udloss.json
tc qdisc change dev "${VM_NETDEV:-eth0}" root netem loss 10%
out=$(timeout 300 "$S" "$PEER_IP" --verbs -n 100 --pings 20 --bandwidth-only --timeout 30 -j); rc=$?
echo "$out" > /tmp/rcloss.json
tc qdisc del dev "${VM_NETDEV:-eth0}" root
[ "$rc" = 0 ] || jq -c '.stages[] | select(.result == "fail")' /tmp/rcloss.json
vm_check_eq "RC with 10% loss: exit 0, pass, the counters stage warns" "0 pass warn" \
	"$rc $(jq -r '"\(.result) \(.stages[] | select(.stage == "counters") | .result)"' /tmp/rcloss.json)"
vm_check "RC with loss: rxe's timeout retransmits counted (completer_retry_err)" \
	jq -e '[.counters.moved[] | select(.name == "completer_retry_err" and .class == "retransmits" and .delta > 0)] | length == 1' /tmp/rcloss.json

# The printed perftest command runs as printed against perftest on the peer
# (which takes its own -d and -x from rdma-gids --best, as the line says).
out=$(timeout 120 "$S" "$PEER_IP" --verbs "${Q[@]}" --quick -j)
cmd=$(jq -r .next.perftest <<<"$out")
vm_check_output "the next line: ib_send_bw with this side's device, port and GID" \
	"^ib_send_bw -d ${VM_RDMA_DEV:-rxe0} -i 1 -x [0-9]+ --report_gbits $PEER_IP\$" echo "$cmd"
vm_wait pt-srv-ready 120 || vm_fail "no perftest server on $PEER_IP"
# shellcheck disable=SC2086  # the printed command, split into its words
out=$(timeout 120 $cmd -n 200 -p 18800 2>&1); rc=$?
echo "$out" > /tmp/pt.txt
vm_check_eq "the printed ib_send_bw runs: exit 0" 0 "$rc" @out
vm_check_output "the printed ib_send_bw measured" "^ 65536 +200 +[0-9.]+ +[0-9.]+" cat /tmp/pt.txt
vm_signal ops-done
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/cm-*.txt /tmp/verbs-read.txt; jq . /tmp/cm-deny.json; fi
