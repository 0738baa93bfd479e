# Helpers for the bench scenarios in bench/vm (sourced after tests/vm/lib.sh).

# bench_med -- the median of the numbers on stdin, one a line (the mean of the
# two middle ones for an even count).
bench_med() {
	sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

# An "operation" of BENCH_OPS is send, write, read, or ud (send over UD QPs:
# ib_send_* -c UD against rdma-selftest --qp ud).
# bench_pt OP -- perftest's name for it (ib_bench_pt_lat ...): send for ud.
bench_pt() { [ "$1" = ud ] && echo send || echo "$1"; }
# How the two tools connect their queue pairs, alike (BENCH_CONNECT):
#   verbs (default)  perftest's own TCP exchange, rdma-selftest --verbs (its
#                    TCP exchange): both move the QPs through the verbs calls
#   cm               rdma_cm on both: perftest -R, rdma-selftest's default
# A QP that rdma_cm connected is slower on soft-RoCE than one the verbs calls
# connected, for perftest as for rdma-selftest (READ latency 64 B between
# the VMs: ib_read_lat -R 327 us against 256 us, six rounds), so a bench
# that mixed the two would measure the connection method, not the tool.
# UD is always the TCP exchange (rdma-selftest --qp ud has no rdma_cm mode).
bench_cm() { [ "${BENCH_CONNECT:-verbs}" = cm ] && [ "$1" != ud ]; }
# bench_pt_args OP -- perftest's extra options for it.
bench_pt_args() {
	if [ "$1" = ud ]; then echo "-c UD"; elif bench_cm "$1"; then echo "-R"; fi
	true
}
# bench_st_args OP -- rdma-selftest's options for it.
bench_st_args() {
	if [ "$1" = ud ]; then echo "--qp ud"; elif bench_cm "$1"; then echo "--op $1"; else echo "--verbs --op $1"; fi
}
# bench_lat_iters OP ITERS -- round trips of a latency run: ITERS for send and
# write, whose round trip between the VMs is ~22 ms (perftest's ping-pong:
# see bench/README.md), ten times ITERS for read and ud, whose round trip is
# a hundred times shorter: a run of 300 of those lasts a tenth of a second,
# short enough that its start-up weighs on the median.
bench_lat_iters() {
	case $1 in read | ud) echo $(($2 * 10)) ;; *) echo "$2" ;; esac
}
# bench_bw_key OP -- the key of rdma-selftest's JSON bandwidth figure to set
# against perftest's: for UD the rate as sent (sent_gbps), which is what
# ib_send_bw -c UD's client prints (from its own send completions: lost
# datagrams count); gbps (as received) otherwise, where nothing is lost.
bench_bw_key() { [ "$1" = ud ] && echo sent_gbps || echo gbps; }
# bench_pt_listen OP PORT -- wait (30 s at most) until a perftest server for
# OP listens on PORT: its TCP socket, or with -R its rdma_cm ID.
bench_pt_listen() {
	if bench_cm "$1"; then
		vm_retry 30 _bench_cm_listening "$2"
	else
		vm_wait_listen "$2" 30
	fi
}
_bench_cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$1\b"; }
# bench_bw_size OP -- the bandwidth message size: a UD message is one packet,
# the VMs' path MTU (1024: netdev MTU 1500); 64 KiB for the others.
bench_bw_size() { [ "$1" = ud ] && echo 1024 || echo 65536; }

# bench_round_ratio A B -- the median of the per-round ratios B/A of two files
# of one figure a round, in round order (the rounds are pairs: a drift of the
# host's load between rounds falls on both figures of a round).
bench_round_ratio() {
	paste "$1" "$2" | awk '$1 > 0 && $2 != "" {printf "%.6f\n", $2 / $1}' | bench_med
}

# bench_op_report LABEL OP -- the medians of /tmp/{pl,sl,pb,sb}-OP (perftest
# and rdma-selftest latency, perftest and rdma-selftest bandwidth), the ratio
# of the medians and the median of the per-round ratios, as BENCH lines; a
# check that every figure is there.
bench_op_report() {
	local label=$1 op=$2 pl pb sl sb rl rb
	pl=$(bench_med < "/tmp/pl-$op") pb=$(bench_med < "/tmp/pb-$op")
	sl=$(bench_med < "/tmp/sl-$op") sb=$(bench_med < "/tmp/sb-$op")
	rl=$(bench_round_ratio "/tmp/pl-$op" "/tmp/sl-$op") rb=$(bench_round_ratio "/tmp/pb-$op" "/tmp/sb-$op")
	awk -v l="$label" -v op="$op" -v pt="$(bench_pt "$op")" -v px="$(bench_pt_args "$op")" \
		-v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" -v rl="$rl" -v rb="$rb" 'BEGIN {
		if (px != "") px = " " px
		printf "BENCH %s%-5s latency %-20s %10.2f  rdma-selftest %10.2f  ratio %.3f, per round %.3f (goal <= 1.0)\n", l, op, "ib_" pt "_lat" px, pl, sl, (pl > 0 ? sl / pl : 0), rl
		printf "BENCH %s%-5s bw      %-20s %10.4f  rdma-selftest %10.4f  ratio %.3f, per round %.3f (goal >= 1.0)\n", l, op, "ib_" pt "_bw" px, pb, sb, (pb > 0 ? sb / pb : 0), rb }'
	vm_check "${label}bench $op produced figures" test -n "$pl" -a -n "$pb" -a -n "$sl" -a -n "$sb"
}
