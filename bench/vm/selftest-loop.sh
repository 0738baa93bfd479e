#!/bin/bash
# Bench, one VM: loopback on rxe0 (both ends on this host, through the whole
# soft-RoCE stack but no emulated link): for each operation of BENCH_OPS,
# ib_<op>_lat / ib_<op>_bw server and client against rdma-selftest --op <op>
# in loopback, interleaved round by round.  Latency like for like as in
# selftest-b.sh (half round trips for send and write, whole for read).  For
# read a third latency figure, the floor (bench/read-floor.c, server and
# client on 127.0.0.1, bench_floor), and the latency runs of a round go
# through the orders in turn, as in selftest-b.sh.  Loopback has no emulated
# link in the path, so its READ latency varies far less from run to run.
# BENCH_LOCAL=1: rdma-selftest runs as perftest does here, two processes (a
# --server --once and a --verbs client through 127.0.0.1) instead of its
# loopback mode (one process, a thread serving): send, write and UD latency
# are then like for like with perftest's on this one-CPU VM.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
# Loopback: perftest connects through 127.0.0.1 with its TCP exchange (rdma_cm
# cannot reach a device through the loopback interface), and rdma-selftest's
# loopback connects its two QPs in one process: no --verbs, no -R here.
BENCH_CONNECT=verbs
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5} OPS=${BENCH_OPS:-send write read ud}
S=$RD_ROOT/build/rdma-selftest
LOCAL=${BENCH_LOCAL:-0} MODE=loopback
[ "$LOCAL" = 1 ] && MODE="local (two processes)"
gid=$(bench_gid)
for op in $OPS; do : > "/tmp/pl-$op"; : > "/tmp/pb-$op"; : > "/tmp/sl-$op"; : > "/tmp/sb-$op"; : > "/tmp/fl-$op"; done
pt_lat() {
	vm_bg lat timeout 600 "ib_${pt}_lat" "${px[@]}" -d "$DEV" -x "$gid" -F -s 64 -n "$n" -p 18530
	vm_wait_listen 18530 60
	timeout 600 "ib_${pt}_lat" "${px[@]}" -d "$DEV" -x "$gid" -F -s 64 -n "$n" -p 18530 127.0.0.1 |
		awk '$1 == 64 && NF >= 5 {print $5}' | bench_put "/tmp/pl-$op"
	vm_bg_wait lat > /dev/null
}
# st_run KIND COUNT SIZE -- one rdma-selftest run, --KIND-only, JSON in
# /tmp/st-KIND.json: loopback, or (BENCH_LOCAL=1) a server and a client.
st_run() {
	local c=(-d "$DEV" -x "$gid" --timeout 60 -n "$2" --pings 10 --sizes "$3" "${sx[@]}" "--$1-only" --no-counters -j)

	if [ "$LOCAL" = 1 ]; then
		vm_bg sts timeout 600 "$S" --server --once -d "$DEV" -x "$gid" -P 18532 --timeout 60 --no-counters
		vm_wait_listen 18532 60
		timeout 600 "$S" 127.0.0.1 -P 18532 "${c[@]}" > "/tmp/st-$1.json"
		vm_bg_wait sts > /dev/null
	else
		timeout 600 "$S" "${c[@]}" > "/tmp/st-$1.json"
	fi
}
st_lat() {
	st_run latency "$n" 64
	jq -r --arg op "$(bench_pt "$op")" '[(.ports[0] // .).latency[] | select(.op == $op)][0].median_us' \
		/tmp/st-latency.json | bench_put "/tmp/sl-$op"
}
fl_lat() {
	vm_bg fls timeout 600 "$READ_FLOOR" -s 18533 "$DEV" "$gid"
	vm_wait_listen 18533 60
	timeout 600 "$READ_FLOOR" 127.0.0.1 18533 "$DEV" "$gid" "$n" 64 |
		awk 'NF == 3 {print $1}' | bench_put "/tmp/fl-$op"
	vm_bg_wait fls > /dev/null
}
for round in $(seq "$ROUNDS"); do
	for op in $OPS; do
		pt=$(bench_pt "$op") bs=$(bench_bw_size "$op")
		read -ra px <<<"$(bench_pt_args "$op")"
		read -ra sx <<<"$(bench_st_args "$op" "$([ "$LOCAL" = 1 ] || echo loopback)")"
		n=$(bench_lat_iters "$op" "$ITERS" loopback)
		bench_lat_runs "$op" "$round"
		vm_bg bw timeout 600 "ib_${pt}_bw" "${px[@]}" -d "$DEV" -x "$gid" -F -s "$bs" -n "$ITERS" -p 18531
		vm_wait_listen 18531 60
		timeout 600 "ib_${pt}_bw" "${px[@]}" -d "$DEV" -x "$gid" -F -s "$bs" -n "$ITERS" -p 18531 127.0.0.1 |
			awk -v bs="$bs" '$1 == bs && NF >= 4 {printf "%.6f\n", $4 * 8 / 1000}' | bench_put "/tmp/pb-$op"
		vm_bg_wait bw > /dev/null
		st_run bandwidth "$ITERS" "$bs"
		jq -r --arg op "$(bench_pt "$op")" --arg k "$(bench_bw_key "$op")" \
			'[(.ports[0] // .).bandwidth[] | select(.op == $op)][0][$k]' /tmp/st-bandwidth.json | bench_put "/tmp/sb-$op"
		fls=
		if bench_floor "$op"; then fls="; floor $(tail -1 "/tmp/fl-$op")"; fi
		echo "BENCH $MODE round $round $op: lat ib_${pt}_lat $(tail -1 "/tmp/pl-$op") rdma-selftest $(tail -1 "/tmp/sl-$op");" \
			"bw ib_${pt}_bw $(tail -1 "/tmp/pb-$op") rdma-selftest $(tail -1 "/tmp/sb-$op")$fls"
	done
done
echo "BENCH $MODE, $ROUNDS rounds ($(bench_lat_iters send "$ITERS" loopback) round trips, $ITERS messages); medians (latency 64 B in us, bandwidth 64 KiB in Gb/s):"
for op in $OPS; do bench_op_report "$MODE " "$op"; done
