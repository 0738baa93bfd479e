# Helpers for the bench scenarios in bench/vm (sourced after tests/vm/lib.sh).
# shellcheck shell=bash

# The bench's own programs (bench/*.c), built by `make bench-build`;
# READ_FLOOR is bench/read-floor.c.
BENCH_BIN=$RD_ROOT/build/bench
READ_FLOOR=$BENCH_BIN/read-floor
# The VMs' RDMA device (rxe0 on eth0 in tests/vm); bench_gid: the index of
# this VM's address among its GIDs.
DEV=${VM_RDMA_DEV:-rxe0}
bench_gid() { vm_gid_index "$DEV" "$VM_IP"; }

# A figures file holds one line a round, in round order: the figure, or NA
# when that round's run gave none (bench_put), so that the rounds of two
# files stay paired line by line.
# bench_put FILE -- append the first line of stdin to FILE if it is a figure
# above 0, else NA: a run that printed nothing, jq's null for a missing key,
# or perftest's 0.000000 Gb/s for a run that moved nothing is no figure (a 0
# would pull the median down).
bench_put() {
	local v
	IFS= read -r v || :
	if [[ $v =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v v="$v" 'BEGIN {exit !(v + 0 > 0)}'; then
		printf '%s\n' "$v" >> "$1"
	else
		echo NA >> "$1"
	fi
}
# bench_missing FILE... -- how many rounds of the FILEs have no figure.
bench_missing() { cat "$@" | grep -cv '^[0-9.]\+$'; }

# bench_med -- the median of the numbers on stdin, one a line (the mean of the
# two middle ones for an even count); lines that are no number (NA) are left
# out, and with no number at all it prints nothing.
bench_med() {
	grep '^[0-9.]\+$' | sort -n |
		awk '{a[NR]=$1} END {if (NR) print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
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
# bench_st_args OP [loopback] -- rdma-selftest's options for it.  In loopback
# the tool connects its two QPs in one process: no --verbs there.
bench_st_args() {
	if [ "$1" = ud ]; then
		echo "--qp ud"
	elif [ "${2:-}" = loopback ] || bench_cm "$1"; then
		echo "--op $1"
	else
		echo "--verbs --op $1"
	fi
}
# bench_lat_iters OP ITERS [loopback] -- round trips of a latency run.  A run
# should last long enough that its start-up does not weigh on the median:
# ten times ITERS where a round trip is short (read and ud between the VMs,
# ~0.3 ms; every op in loopback, ~0.03 ms), ITERS for send and write between
# the VMs, whose round trip is ~22 ms (perftest's ping-pong: see
# bench/README.md).
bench_lat_iters() {
	case ${3:-}:$1 in loopback:* | *:read | *:ud) echo $(($2 * 10)) ;; *) echo "$2" ;; esac
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
# bench_floor OP -- whether the READ floor runs beside OP's latency runs:
# bench/read-floor.c, the least a program does to time READs (one in flight,
# busy-polled), speaking perftest's TCP exchange.  For read, with the verbs
# connection (the floor has no rdma_cm), unless BENCH_FLOOR=0.
bench_floor() {
	[ "$1" = read ] && ! bench_cm "$1" && [ "${BENCH_FLOOR:-1}" != 0 ] && [ -x "$READ_FLOOR" ]
}
# bench_clock_text -- this VM's clock in one phrase: the clocksource, the
# "cpu MHz" of /proc/cpuinfo (which ib_*_lat turns its cycle counts into
# microseconds with, when it is within 2 % of the rate it samples), and the
# kernel's refined TSC calibration (what clock_gettime, used by
# rdma-selftest and the floor, counts with).
bench_clock_text() {
	local cs mhz ref
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
	mhz=$(awk -F': *' '/^cpu MHz/ {print $2; exit}' /proc/cpuinfo)
	ref=$(dmesg 2>/dev/null | sed -n 's/.*Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -1)
	echo "clocksource ${cs:-?}, cpu MHz ${mhz:-?}, refined TSC ${ref:-?} MHz"
}
# bench_lat_runs OP ROUND -- one round's latency runs, by the caller's
# pt_lat, st_lat and (with the floor, bench_floor) fl_lat: perftest first in
# odd rounds and rdma-selftest first in even ones, or, with the floor, the
# six orders of the three in turn, so that each follows each other equally
# often and whatever a run inherits from the one before falls on all alike.
bench_lat_runs() {
	local orders=("pt st fl" "st fl pt" "fl pt st" "pt fl st" "fl st pt" "st pt fl") t
	if bench_floor "$1"; then
		for t in ${orders[$((($2 - 1) % 6))]}; do "${t}_lat"; done
	elif [ $(($2 % 2)) = 1 ]; then
		pt_lat; st_lat
	else
		st_lat; pt_lat
	fi
}
# bench_bw_size OP -- the bandwidth message size: a UD message is one packet,
# the VMs' path MTU (1024: netdev MTU 1500); 64 KiB for the others.
bench_bw_size() { [ "$1" = ud ] && echo 1024 || echo 65536; }

# bench_round_ratio A B -- the median of the per-round ratios B/A of two files
# of one figure a round, in round order (the rounds are pairs: a drift of the
# host's load between rounds falls on both figures of a round).
bench_round_ratio() {
	_bench_pairs "$1" "$2" | bench_med
}

# _bench_pairs A B -- the ratio B/A of each round where both have a figure.
_bench_pairs() {
	paste "$1" "$2" | awk '$1 ~ /^[0-9.]+$/ && $1 > 0 && $2 ~ /^[0-9.]+$/ {printf "%.6f\n", $2 / $1}'
}

# bench_round_spread A B -- how far the per-round ratios B/A can be trusted:
# "LO HI CONF BELOW N": a distribution-free interval [LO, HI] for their median
# (order statistics, sign test) at confidence CONF (the widest interval that
# reaches 95 %, or min..max with fewer rounds), and in how many of the N
# rounds the ratio was below 1.  An interval that holds 1 says the two tools
# are not told apart by this run.
bench_round_spread() {
	_bench_pairs "$1" "$2" | sort -n | awk '
	{ r[NR] = $1; if ($1 < 1) below++ }
	END {
		n = NR; if (!n) { print "0 0 0 0 0"; exit }
		# cdf[j] = P(X <= j), X ~ Binomial(n, 1/2)
		p = 0.5 ^ n; c = 0
		for (j = 0; j <= n; j++) { c += p; cdf[j] = c; p = p * (n - j) / (j + 1) }
		k = 1
		for (j = 2; j <= int((n + 1) / 2); j++) if (2 * cdf[j - 1] <= 0.05) k = j
		printf "%.3f %.3f %.1f %d %d\n", r[k], r[n - k + 1], 100 * (1 - 2 * cdf[k - 1]), below, n
	}'
}

# bench_spread_text A B -- bench_round_spread A B in words, for a report.
bench_spread_text() {
	bench_round_spread "$1" "$2" |
		awk '{printf "%.3f..%.3f at %s %%, below 1 in %d of %d rounds", $1, $2, $3, $4, $5}'
}

# Reports read the figures files of an operation OP from BENCH_FIGS
# (default /tmp): pl-OP, sl-OP (perftest's and rdma-selftest's latency),
# pb-OP, sb-OP (bandwidth) and fl-OP (the floor's latency), one line a round.
# bench_op_lines LABEL OP -- their medians, the ratio of the medians and the
# median of the per-round ratios with its interval, as BENCH lines (for the
# floor, bench_floor, also its lines); a line saying how many runs gave no
# figure, if any.  Sets BENCH_MISSED to that count (the floor's runs too).
bench_op_lines() {
	local label=$1 op=$2 d=${BENCH_FIGS:-/tmp} pl pb sl sb miss
	local files=("$d/pl-$op" "$d/sl-$op" "$d/pb-$op" "$d/sb-$op")
	pl=$(bench_med < "$d/pl-$op") pb=$(bench_med < "$d/pb-$op")
	sl=$(bench_med < "$d/sl-$op") sb=$(bench_med < "$d/sb-$op")
	awk -v l="$label" -v op="$op" -v pt="$(bench_pt "$op")" -v px="$(bench_pt_args "$op")" \
		-v pl="$pl" -v sl="$sl" -v pb="$pb" -v sb="$sb" \
		-v rl="$(bench_round_ratio "$d/pl-$op" "$d/sl-$op")" -v rb="$(bench_round_ratio "$d/pb-$op" "$d/sb-$op")" \
		-v cl="$(bench_spread_text "$d/pl-$op" "$d/sl-$op")" \
		-v cb="$(bench_spread_text "$d/pb-$op" "$d/sb-$op")" '
	BEGIN {
		if (px != "") px = " " px
		printf "BENCH %s%-5s latency %-20s %10.2f  rdma-selftest %10.2f  ratio %.3f, per round %.3f (goal <= 1.0; %s)\n", l, op, "ib_" pt "_lat" px, pl, sl, (pl > 0 ? sl / pl : 0), rl, cl
		printf "BENCH %s%-5s bw      %-20s %10.4f  rdma-selftest %10.4f  ratio %.3f, per round %.3f (goal >= 1.0; %s)\n", l, op, "ib_" pt "_bw" px, pb, sb, (pb > 0 ? sb / pb : 0), rb, cb }'
	if [ -s "$d/fl-$op" ]; then
		files+=("$d/fl-$op")
		_bench_floor_lines "$label" "$op" "$pl"
	fi
	miss=$(bench_missing "${files[@]}")
	BENCH_MISSED=$miss
	case $miss in
	0) ;;
	1) echo "BENCH ${label}${op}: 1 run gave no figure (its round is left out of the ratios)" ;;
	*) echo "BENCH ${label}${op}: $miss runs gave no figure (their rounds are left out of the ratios)" ;;
	esac
}

# bench_op_report LABEL OP -- bench_op_lines, and a check that every run of
# every round gave its figure (the floor's too, when it ran).
bench_op_report() {
	local d=${BENCH_FIGS:-/tmp}
	bench_op_lines "$1" "$2"
	vm_check "${1}bench $2: every run gave its figure" \
		test "$BENCH_MISSED" = 0 -a -n "$(bench_med < "$d/pl-$2")"
}

# _bench_floor_lines LABEL OP PL -- the floor's median latency beside
# perftest's (PL): the floor against perftest and rdma-selftest against the
# floor, per round.  What the floor, which does nothing but post and poll,
# loses to perftest in the same rounds is the share of a gap no program's
# own code explains.
_bench_floor_lines() {
	local op=$2 d=${BENCH_FIGS:-/tmp}
	awk -v l="$1" -v op="$op" -v fl="$(bench_med < "$d/fl-$op")" -v pl="$3" \
		-v fp="$(bench_round_ratio "$d/pl-$op" "$d/fl-$op")" \
		-v sf="$(bench_round_ratio "$d/fl-$op" "$d/sl-$op")" \
		-v cfp="$(bench_spread_text "$d/pl-$op" "$d/fl-$op")" \
		-v csf="$(bench_spread_text "$d/fl-$op" "$d/sl-$op")" '
	BEGIN {
		printf "BENCH %s%-5s floor   %-20s %10.2f  against ib_%s_lat: ratio %.3f, per round %.3f (%s)\n", l, op, "read-floor", fl, op, (pl > 0 ? fl / pl : 0), fp, cfp
		printf "BENCH %s%-5s floor   rdma-selftest against read-floor: per round %.3f (%s)\n", l, op, sf, csf }'
}

# bench_round_files DIR < ROUND-LINES -- the figures files of every
# operation into DIR, from the "BENCH round N OP: lat ..." lines that
# selftest-b.sh prints (of one boot or of several): each line is a round.
bench_round_files() {
	mkdir -p "$1" && rm -f "$1"/[ps][lb]-* "$1"/fl-*
	sed -n 's/^BENCH round [0-9]* //p' | tr -d ';' | awk -v d="$1" '
	{
		op = $1; sub(/:$/, "", op)
		print $4 > (d "/pl-" op); print $6 > (d "/sl-" op)
		print $9 > (d "/pb-" op); print $11 > (d "/sb-" op)
		if ($12 == "floor") print $13 > (d "/fl-" op)
	}'
}
