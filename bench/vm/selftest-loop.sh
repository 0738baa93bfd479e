#!/bin/bash
# Bench, one VM: loopback on rxe0 (both ends on this host, through the whole
# soft-RoCE stack but no emulated link): ib_send_lat / ib_send_bw server and
# client against rdma-selftest's loopback, interleaved round by round.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
DEV=${VM_RDMA_DEV:-rxe0}
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5}
S=$RD_ROOT/build/rdma-selftest
gid=$(vm_gid_index "$DEV" "$VM_IP")
: > /tmp/pl; : > /tmp/pb; : > /tmp/sl; : > /tmp/sb
n=$((ITERS * 10))
for round in $(seq "$ROUNDS"); do
	vm_bg lat timeout 600 ib_send_lat -d "$DEV" -x "$gid" -F -s 64 -n "$n" -p 18530
	vm_wait_listen 18530 60
	timeout 600 ib_send_lat -d "$DEV" -x "$gid" -F -s 64 -n "$n" -p 18530 127.0.0.1 |
		awk '$1 == 64 && NF >= 5 {print $5}' >> /tmp/pl
	vm_bg_wait lat > /dev/null
	timeout 600 "$S" -d "$DEV" -x "$gid" --timeout 60 -n "$n" --pings 10 --sizes 64 \
		--latency-only -j > /tmp/st-lat.json
	jq -r '.ports[0].latency[0].median_us' /tmp/st-lat.json >> /tmp/sl
	vm_bg bw timeout 600 ib_send_bw -d "$DEV" -x "$gid" -F -s 65536 -n "$ITERS" -p 18531
	vm_wait_listen 18531 60
	timeout 600 ib_send_bw -d "$DEV" -x "$gid" -F -s 65536 -n "$ITERS" -p 18531 127.0.0.1 |
		awk '$1 == 65536 && NF >= 4 {printf "%.6f\n", $4 * 8 / 1000}' >> /tmp/pb
	vm_bg_wait bw > /dev/null
	timeout 600 "$S" -d "$DEV" -x "$gid" --timeout 60 -n "$ITERS" --pings 10 --sizes 65536 \
		--bandwidth-only -j > /tmp/st-bw.json
	jq -r '.ports[0].bandwidth[0].gbps' /tmp/st-bw.json >> /tmp/sb
	echo "BENCH loopback round $round: lat ib_send_lat $(tail -1 /tmp/pl) rdma-selftest $(tail -1 /tmp/sl);" \
		"bw ib_send_bw $(tail -1 /tmp/pb) rdma-selftest $(tail -1 /tmp/sb)"
done
pl=$(bench_med < /tmp/pl) pb=$(bench_med < /tmp/pb) sl=$(bench_med < /tmp/sl) sb=$(bench_med < /tmp/sb)
echo "BENCH loopback, $ROUNDS rounds ($n round trips, $ITERS messages); medians:"
echo "BENCH loopback median latency 64 B (us, half RTT): ib_send_lat $pl  rdma-selftest $sl"
echo "BENCH loopback bandwidth 64 KiB (Gb/s):            ib_send_bw  $pb  rdma-selftest $sb"
awk -v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" 'BEGIN {
	printf "BENCH loopback ratio latency  rdma-selftest/ib_send_lat = %.3f (goal <= 1.0)\n", sl / pl
	printf "BENCH loopback ratio bandwidth rdma-selftest/ib_send_bw = %.3f (goal >= 1.0)\n", sb / pb }'
vm_check "loopback bench produced figures" test -n "$pl" -a -n "$pb" -a -n "$sl" -a -n "$sb"
