# Helpers for the bench scenarios in bench/vm (sourced after tests/vm/lib.sh).

# bench_med -- the median of the numbers on stdin, one a line (the mean of the
# two middle ones for an even count).
bench_med() {
	sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
}
