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
# bench_pt_args OP -- perftest's extra options for it.
bench_pt_args() { [ "$1" = ud ] && echo "-c UD"; true; }
# bench_st_args OP -- rdma-selftest's options for it.
bench_st_args() { [ "$1" = ud ] && echo "--qp ud" || echo "--op $1"; }
# bench_bw_size OP -- the bandwidth message size: a UD message is one packet,
# the VMs' path MTU (1024: netdev MTU 1500); 64 KiB for the others.
bench_bw_size() { [ "$1" = ud ] && echo 1024 || echo 65536; }

# bench_op_report LABEL OP -- the medians of /tmp/{pl,sl,pb,sb}-OP (perftest
# and rdma-selftest latency, perftest and rdma-selftest bandwidth) with their
# ratios, as BENCH lines; a check that every figure is there.
bench_op_report() {
	local label=$1 op=$2 pl pb sl sb
	pl=$(bench_med < "/tmp/pl-$op") pb=$(bench_med < "/tmp/pb-$op")
	sl=$(bench_med < "/tmp/sl-$op") sb=$(bench_med < "/tmp/sb-$op")
	awk -v l="$label" -v op="$op" -v pt="$(bench_pt "$op")" -v px="$(bench_pt_args "$op")" \
		-v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" 'BEGIN {
		if (px != "") px = " " px
		printf "BENCH %s%-5s latency %-17s %10.2f  rdma-selftest %10.2f  ratio %.3f (goal <= 1.0)\n", l, op, "ib_" pt "_lat" px, pl, sl, (pl > 0 ? sl / pl : 0)
		printf "BENCH %s%-5s bw      %-17s %10.4f  rdma-selftest %10.4f  ratio %.3f (goal >= 1.0)\n", l, op, "ib_" pt "_bw" px, pb, sb, (pb > 0 ? sb / pb : 0) }'
	vm_check "${label}bench $op produced figures" test -n "$pl" -a -n "$pb" -a -n "$sl" -a -n "$sb"
}
