#!/bin/bash
# Bench, VM b (client side): for each operation of BENCH_OPS (send, write,
# read), perftest's ib_<op>_lat and ib_<op>_bw against rdma-selftest --op <op>
# with the same sizes and counts on the same two-VM link, interleaved round by
# round so that a drift in the host's load falls on both; prints the figures
# and the ratios per operation.
#
# Like for like: ib_send_lat and ib_write_lat report half a round trip (a
# ping-pong), ib_read_lat a whole one (one READ); rdma-selftest reports the
# same (half for send and write, whole for read).  Bandwidth is payload Gb/s.
# Odd rounds run perftest first, even rounds rdma-selftest first, so that
# whatever the second run of a pair inherits from the first (the peer's
# caches, the host's scheduling) falls on both tools alike.  For read, a
# third latency run, the floor (bench/read-floor.c, bench_floor), goes
# through the six orders of the three in turn: each follows each other
# equally often.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5} OPS=${BENCH_OPS:-send write read ud}
S=$RD_ROOT/build/rdma-selftest
gid=$(bench_gid)
for op in $OPS; do : > "/tmp/pl-$op"; : > "/tmp/pb-$op"; : > "/tmp/sl-$op"; : > "/tmp/sb-$op"; : > "/tmp/fl-$op"; done
# t_typical is perftest's median
pt_lat() {
	timeout 600 "ib_${pt}_lat" "${px[@]}" -d "$DEV" -x "$gid" -F -s 64 -n "$(bench_lat_iters "$op" "$ITERS")" \
		-p 18530 "$PEER_IP" |
		awk '$1 == 64 && NF >= 5 {print $5}' | bench_put "/tmp/pl-$op"
}
st_lat() {
	timeout 600 "$S" "$PEER_IP" -P 18532 --timeout 60 -n "$(bench_lat_iters "$op" "$ITERS")" --pings 10 --sizes 64 \
		"${sx[@]}" --latency-only --no-counters -j > /tmp/st-lat.json
	jq -r --arg op "$pt" '[.latency[] | select(.op == $op)][0].median_us' /tmp/st-lat.json | bench_put "/tmp/sl-$op"
	vm_signal "st-lat-done-$op-$round"
}
# the floor's median, in us
fl_lat() {
	timeout 600 "$READ_FLOOR" "$PEER_IP" 18533 "$DEV" "$gid" "$(bench_lat_iters "$op" "$ITERS")" 64 |
		awk 'NF == 3 {print $1}' | bench_put "/tmp/fl-$op"
}
# BW average[MB/sec] -> Gb/s
pt_bw() {
	timeout 600 "ib_${pt}_bw" "${px[@]}" -d "$DEV" -x "$gid" -F -s "$bs" -n "$ITERS" -p 18531 "$PEER_IP" |
		awk -v bs="$bs" '$1 == bs && NF >= 4 {printf "%.6f\n", $4 * 8 / 1000}' | bench_put "/tmp/pb-$op"
}
st_bw() {
	timeout 600 "$S" "$PEER_IP" -P 18532 --timeout 60 -n "$ITERS" --pings 10 --sizes "$bs" \
		"${sx[@]}" --bandwidth-only --no-counters -j > /tmp/st-bw.json
	jq -r --arg op "$pt" --arg k "$(bench_bw_key "$op")" '[.bandwidth[] | select(.op == $op)][0][$k]' \
		/tmp/st-bw.json | bench_put "/tmp/sb-$op"
	vm_signal "st-bw-done-$op-$round"
}
vm_wait st-ready 300
echo "BENCH clocks: a $(cat "$VM_SIG_DIR/clock-a" 2>/dev/null); b $(bench_clock_text)"
for round in $(seq "$ROUNDS"); do
	for op in $OPS; do
		pt=$(bench_pt "$op") bs=$(bench_bw_size "$op")
		read -ra px <<<"$(bench_pt_args "$op")"
		read -ra sx <<<"$(bench_st_args "$op")"
		# a's perftest server listens (idle) from its ready signal on, and a
		# starts the next one only after our st-*-done signal: the peer is
		# quiet during both runs, whichever goes first.
		vm_wait "lat-ready-$op-$round" 600
		bench_lat_runs "$op" "$round"
		vm_wait "bw-ready-$op-$round" 600
		if [ $((round % 2)) = 1 ]; then pt_bw; st_bw; else st_bw; pt_bw; fi
		fls=
		if bench_floor "$op"; then fls="; floor $(tail -1 "/tmp/fl-$op")"; fi
		echo "BENCH round $round $op: lat ib_${pt}_lat $(tail -1 "/tmp/pl-$op") rdma-selftest $(tail -1 "/tmp/sl-$op");" \
			"bw ib_${pt}_bw $(tail -1 "/tmp/pb-$op") rdma-selftest $(tail -1 "/tmp/sb-$op")$fls"
	done
done
vm_signal st-done
echo "BENCH $ROUNDS rounds of $ITERS (latency of read and ud: $((ITERS * 10))), two VMs, QPs connected by ${BENCH_CONNECT:-verbs} on both sides" \
	"(UD: the TCP exchange), rdma-selftest server: $([ "${BENCH_ST_SERVER:-session}" = session ] &&
		echo "one for the whole run" || echo "one per run, like perftest's");" \
	"medians (latency 64 B in us, bandwidth 64 KiB in Gb/s):"
for op in $OPS; do bench_op_report "" "$op"; done
