#!/bin/bash
# Bench, VM b (client side): the same message sizes and counts through perftest
# and rdma-selftest on the same two-VM link; prints the figures and ratios.
. "$RD_ROOT/tests/vm/lib.sh"
set -u
DEV=${VM_RDMA_DEV:-rxe0}
ITERS=${BENCH_ITERS:-2000}
gid=$(vm_gid_index "$DEV" "$VM_IP")
med() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
: > /tmp/pl; : > /tmp/pb; : > /tmp/sl; : > /tmp/sb
for round in 1 2 3; do
	vm_wait "lat-ready-$round" 300
	# t_typical is perftest's median (half round trip, usec)
	timeout 300 ib_send_lat -d "$DEV" -x "$gid" -F -s 64 -n "$ITERS" -p 18530 "$PEER_IP" |
		awk '$1 == 64 && NF >= 5 {print $5}' >> /tmp/pl
	vm_wait "bw-ready-$round" 300
	# BW average[MB/sec] -> Gb/s
	timeout 300 ib_send_bw -d "$DEV" -x "$gid" -F -s 65536 -n "$ITERS" -p 18531 "$PEER_IP" |
		awk '$1 == 65536 && NF >= 4 {printf "%.6f\n", $4 * 8 / 1000}' >> /tmp/pb
done
vm_wait st-ready 300
for round in 1 2 3; do
	timeout 600 "$RD_ROOT/build/rdma-selftest" "$PEER_IP" -P 18532 --timeout 60 -n "$ITERS" \
		--pings 10 --sizes 64 -j > /tmp/st-lat.json
	jq -r '.latency[0].median_us' /tmp/st-lat.json >> /tmp/sl
	timeout 600 "$RD_ROOT/build/rdma-selftest" "$PEER_IP" -P 18532 --timeout 60 -n "$ITERS" \
		--pings 10 --sizes 65536 -j > /tmp/st-bw.json
	jq -r '.bandwidth[0].gbps' /tmp/st-bw.json >> /tmp/sb
done
vm_signal st-done
pl=$(med < /tmp/pl) pb=$(med < /tmp/pb) sl=$(med < /tmp/sl) sb=$(med < /tmp/sb)
echo "BENCH median latency 64 B (us, half RTT): ib_send_lat $pl  rdma-selftest $sl"
echo "BENCH bandwidth 64 KiB (Gb/s):            ib_send_bw  $pb  rdma-selftest $sb"
awk -v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" 'BEGIN {
	printf "BENCH ratio latency  rdma-selftest/ib_send_lat = %.3f (goal <= 1.0)\n", sl / pl
	printf "BENCH ratio bandwidth rdma-selftest/ib_send_bw = %.3f (goal >= 1.0)\n", sb / pb }'
vm_check "bench produced figures" test -n "$pl" -a -n "$pb" -a -n "$sl" -a -n "$sb"
