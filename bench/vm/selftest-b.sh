#!/bin/bash
# Bench, VM b (client side): the same message sizes and counts through perftest
# and rdma-selftest on the same two-VM link, interleaved round by round so that
# a drift in the host's load falls on both; prints the figures and ratios.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
DEV=${VM_RDMA_DEV:-rxe0}
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5}
S=$RD_ROOT/build/rdma-selftest
gid=$(vm_gid_index "$DEV" "$VM_IP")
: > /tmp/pl; : > /tmp/pb; : > /tmp/sl; : > /tmp/sb
vm_wait st-ready 300
for round in $(seq "$ROUNDS"); do
	vm_wait "lat-ready-$round" 600
	# t_typical is perftest's median (half round trip, usec)
	timeout 600 ib_send_lat -d "$DEV" -x "$gid" -F -s 64 -n "$ITERS" -p 18530 "$PEER_IP" |
		awk '$1 == 64 && NF >= 5 {print $5}' >> /tmp/pl
	timeout 600 "$S" "$PEER_IP" -P 18532 --timeout 60 -n "$ITERS" --pings 10 --sizes 64 \
		--latency-only -j > /tmp/st-lat.json
	jq -r '.latency[0].median_us' /tmp/st-lat.json >> /tmp/sl
	vm_wait "bw-ready-$round" 600
	# BW average[MB/sec] -> Gb/s
	timeout 600 ib_send_bw -d "$DEV" -x "$gid" -F -s 65536 -n "$ITERS" -p 18531 "$PEER_IP" |
		awk '$1 == 65536 && NF >= 4 {printf "%.6f\n", $4 * 8 / 1000}' >> /tmp/pb
	timeout 600 "$S" "$PEER_IP" -P 18532 --timeout 60 -n "$ITERS" --pings 10 --sizes 65536 \
		--bandwidth-only -j > /tmp/st-bw.json
	jq -r '.bandwidth[0].gbps' /tmp/st-bw.json >> /tmp/sb
	echo "BENCH round $round: lat ib_send_lat $(tail -1 /tmp/pl) rdma-selftest $(tail -1 /tmp/sl);" \
		"bw ib_send_bw $(tail -1 /tmp/pb) rdma-selftest $(tail -1 /tmp/sb)"
done
vm_signal st-done
pl=$(bench_med < /tmp/pl) pb=$(bench_med < /tmp/pb) sl=$(bench_med < /tmp/sl) sb=$(bench_med < /tmp/sb)
echo "BENCH $ROUNDS rounds of $ITERS; medians:"
echo "BENCH median latency 64 B (us, half RTT): ib_send_lat $pl  rdma-selftest $sl"
echo "BENCH bandwidth 64 KiB (Gb/s):            ib_send_bw  $pb  rdma-selftest $sb"
awk -v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" 'BEGIN {
	printf "BENCH ratio latency  rdma-selftest/ib_send_lat = %.3f (goal <= 1.0)\n", sl / pl
	printf "BENCH ratio bandwidth rdma-selftest/ib_send_bw = %.3f (goal >= 1.0)\n", sb / pb }'
vm_check "bench produced figures" test -n "$pl" -a -n "$pb" -a -n "$sl" -a -n "$sb"
