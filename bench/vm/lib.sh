# Helpers for the bench scenarios in bench/vm (sourced after tests/vm/lib.sh).

# bench_med -- the median of the numbers on stdin, one a line (the mean of the
# two middle ones for an even count).
bench_med() {
	sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}

# bench_op_report LABEL OP -- the medians of /tmp/{pl,sl,pb,sb}-OP (perftest
# and rdma-selftest latency, perftest and rdma-selftest bandwidth) with their
# ratios, as BENCH lines; a check that every figure is there.
bench_op_report() {
	local label=$1 op=$2 pl pb sl sb
	pl=$(bench_med < "/tmp/pl-$op") pb=$(bench_med < "/tmp/pb-$op")
	sl=$(bench_med < "/tmp/sl-$op") sb=$(bench_med < "/tmp/sb-$op")
	awk -v l="$label" -v op="$op" -v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" 'BEGIN {
		printf "BENCH %s%-5s latency ib_%s_lat %10.2f  rdma-selftest %10.2f  ratio %.3f (goal <= 1.0)\n", l, op, op, pl, sl, (pl > 0 ? sl / pl : 0)
		printf "BENCH %s%-5s bw      ib_%s_bw  %10.4f  rdma-selftest %10.4f  ratio %.3f (goal >= 1.0)\n", l, op, op, pb, sb, (pb > 0 ? sb / pb : 0) }'
	vm_check "${label}bench $op produced figures" test -n "$pl" -a -n "$pb" -a -n "$sl" -a -n "$sb"
}
