#!/bin/bash
# rdma-top counter semantics, end to end: a copy of a fixture sysroot whose
# counter files this script rewrites between samples.  rdma-top runs in batch
# mode (-i 0.5); the script reads its output line by line and rewrites the
# files only after a sample has been printed, so every sample sees exactly the
# values written for it (the half-second interval is the margin; nothing here
# asserts a time).  Prints "ok - ..." / "not ok - ..." lines; exit 1 on any
# failure.  Registered as CLI cases in tests/cli/cases.d/top.cases.
#
# usage: tests/cli/top-feed.sh BUILD_DIR SCENARIO
#   first x4 saturate wrap reset vanish appear rxe text
set -u
cd "$(dirname "$0")/../.." || exit 2
B=$1 scen=$2
F=tests/fixtures
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
root=$tmp/root
C=$root/sys/class/infiniband

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1${2:+: $2}"; fails=$((fails + 1)); }

# fixture NAME: the sysroot copy (relative symlinks and all), fresh for each attempt
fixture() { rm -rf "$root" && mkdir -p "$root" && cp -a "$F/$1/." "$root/"; }
# w DEV/PORT/DIR/NAME VALUE: rewrite a counter in place (same inode: rdma-top keeps it open);
# last_w: when the last write ended, in microseconds (see sample)
last_w=0
w() { printf '%s\n' "$2" > "$C/$1"; last_w=${EPOCHREALTIME//[.,]/}; }
r() { cat "$C/$1"; }

# start N ARGS...: rdma-top -b -j for N samples, output on fd $out
start() {
	local n=$1; shift
	exec {out}< <(exec "$B/rdma-top" --sysroot "$root" -b -i 0.5 -n "$n" "$@" 2> "$tmp/err")
	pid=$!
	k=0
}
# sample LINES: read the next sample (LINES lines) into $tmp/sK
sample() {
	local i line
	k=$((k + 1))
	: > "$tmp/s$k"
	for ((i = 0; i < $1; i++)); do
		if ! IFS= read -r -t 20 -u "$out" line; then
			nok "sample $k: line $((i + 1)) of $1 did not come"
			return 1
		fi
		printf '%s\n' "$line" >> "$tmp/s$k"
	done
	raced_check
}
# A JSON sample stamped before the last write ended was taken before the writes
# meant to precede it (this script fell behind rdma-top's clock: a loaded
# machine): not a verdict on rdma-top.  The scenario runs again (see the end).
raced_check() {
	local t us
	[ "$last_w" != 0 ] || return 0
	t=$(jq -r 'select(type == "object" and has("time")) | .time' "$tmp/s$k" 2>/dev/null | head -n1)
	[ -n "$t" ] || return 0
	us=$(date -u -d "$t" +%s%6N 2>/dev/null) || return 0
	[ "$us" -lt "$last_w" ] && raced=1
	return 0
}
# finish: the rest of the output, the exit status, stderr
finish() {
	local line rc
	while IFS= read -r -t 20 -u "$out" line; do
		nok "unexpected output after the last sample" "$line"
	done
	wait "$pid"
	rc=$?
	pid=
	if [ "$rc" = 0 ]; then ok "exit status 0"; else nok "exit status $rc"; fi
	if [ -s "$tmp/err" ]; then nok "stderr is empty" "$(head -3 "$tmp/err")"; else ok "stderr is empty"; fi
}

# near: within tol, plus 1e-5 relative (interval and rates are printed rounded).
JQDEFS='def near(a; b; tol): ((a - b) | fabs) <= tol + 1e-5 * (b | fabs);
	def port(d): .[] | select(.dev == d);
	def rates: [.. | objects | (.rate?, .tx_gbps?, .rx_gbps?, .tx_pps?, .rx_pps?, .errors_per_s?,
		.cnp_per_s?, .ecn_per_s?, .util_pct?) | numbers];'
# check K NAME JQ-EXPR: the expression (over the slurped lines of sample K) is true
check() {
	local got
	if got=$(jq -se "$JQDEFS $3" "$tmp/s$1" 2>&1); then
		ok "$2"
	else
		nok "$2" "$(printf '%s' "$got" | head -c 300) | sample $1: $(head -c 600 "$tmp/s$1")"
	fi
}
# Every sample: valid JSON, no negative rate anywhere.
sane() {
	local s
	for ((s = 1; s <= k; s++)); do
		jq -se "$JQDEFS all(.[]; rates | all(. >= 0))" "$tmp/s$s" > /dev/null 2>&1 ||
			{ nok "sample $s: no negative rate" "$(head -c 300 "$tmp/s$s")"; return; }
	done
	ok "no negative rate in $k samples"
}

P0=mlx5_0/ports/1/counters
H0=mlx5_0/ports/1/hw_counters

scenario() {
case $scen in
first)
	fixture mlx5-roce-dual
	start 1 -j
	sample 2
	finish
	check 1 "one object per port" 'length == 2 and (map(.dev) == ["mlx5_0", "mlx5_1"])'
	check 1 "sample 1 is numbered" 'all(.[]; .sample == 1)'
	check 1 "first sample: no interval" 'all(.[]; has("interval") | not)'
	check 1 "first sample: no rates at all" 'all(.[]; rates == [])'
	check 1 "first sample: no deltas" '[.. | objects | .delta? | numbers] == []'
	check 1 "absolute values are there" 'port("mlx5_0") | .counters.port_xmit_data.value == 2152823442766'
	check 1 "tx_bytes = port_xmit_data x 4" 'port("mlx5_0") | .tx_bytes == 4 * .counters.port_xmit_data.value'
	check 1 "rx_bytes = port_rcv_data x 4" 'port("mlx5_0") | .rx_bytes == 4 * .counters.port_rcv_data.value'
	check 1 "errors = sum of error counters" 'port("mlx5_0") | .errors == 4534'
	check 1 "cnp and ecn totals" 'port("mlx5_0") | .cnp == 38120 and .ecn == 52771'
	check 1 "link speed from the netdev" 'port("mlx5_0") | .rate_gbps == 100'
	check 1 "time is ISO 8601 UTC" 'all(.[]; .time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z$"))'
	;;
x4)
	fixture mlx5-roce-dual
	start 3 -j
	sample 2
	tx=$(r $P0/port_xmit_data) rx=$(r $P0/port_rcv_data) txp=$(r $P0/port_xmit_packets)
	w $P0/port_xmit_data $((tx + 25000000))
	w $P0/port_rcv_data $((rx + 12500000))
	w $P0/port_xmit_packets $((txp + 40000))
	w $P0/port_rcv_errors 5
	w $H0/rp_cnp_handled 38220
	sample 2
	sample 2
	finish
	sane
	check 2 "port_xmit_data delta in words" 'port("mlx5_0") | .counters.port_xmit_data.delta == 25000000'
	check 2 "tx_bytes = 4 x port_xmit_data" 'port("mlx5_0") | .tx_bytes == 4 * .counters.port_xmit_data.value'
	check 2 "tx_gbps = words x 4 x 8 / interval" \
		'port("mlx5_0") | near(.tx_gbps; 25000000 * 32 / 1e9 / .interval; 2e-6)'
	check 2 "rx_gbps = words x 4 x 8 / interval" \
		'port("mlx5_0") | near(.rx_gbps; 12500000 * 32 / 1e9 / .interval; 2e-6)'
	check 2 "counter rate in its own unit (words/s)" \
		'port("mlx5_0") | near(.counters.port_xmit_data.rate; 25000000 / .interval; 1e-3)'
	check 2 "tx_pps" 'port("mlx5_0") | near(.tx_pps; 40000 / .interval; 1e-3)'
	check 2 "utilization against 100G" \
		'port("mlx5_0") | near(.util_pct; 100 * .tx_gbps / 100; 1e-3)'
	check 2 "errors_per_s from the error counters' deltas" \
		'port("mlx5_0") | near(.errors_per_s; 2 / .interval; 1e-3) and .errors == 4536'
	check 2 "cnp_per_s" 'port("mlx5_0") | near(.cnp_per_s; 100 / .interval; 1e-3)'
	check 2 "idle port: zero rates, not absent" 'port("mlx5_1") | .tx_gbps == 0 and .rx_pps == 0'
	check 3 "no change: zero rates" 'port("mlx5_0") | .tx_gbps == 0 and .errors_per_s == 0'
	;;
saturate)
	fixture mlx5-roce-dual
	# A port with the 32-bit PortCounters: data never seen above 2^32-1.
	w $P0/port_xmit_data 4294960000
	w $P0/symbol_error 65000
	start 4 -j
	sample 2
	w $P0/port_xmit_data 4294967295
	w $P0/symbol_error 65535
	w $P0/port_rcv_errors 4
	sample 2
	w $P0/port_rcv_errors 5
	sample 2
	w $P0/port_xmit_data 1000
	w $P0/symbol_error 0
	sample 2
	finish
	sane
	check 2 "saturated 32-bit data counter: no rate" \
		'port("mlx5_0") | .counters.port_xmit_data.saturated == true and (.counters.port_xmit_data | has("rate") | not)'
	check 2 "saturated data counter: no tx_gbps, no utilization" \
		'port("mlx5_0") | (has("tx_gbps") or has("util_pct")) | not'
	check 2 "value still shown" 'port("mlx5_0") | .counters.port_xmit_data.value == 4294967295'
	check 2 "16-bit symbol_error saturates at 65535" 'port("mlx5_0") | .counters.symbol_error.saturated == true'
	check 2 "errors_per_s: a lower bound, marked partial" \
		'port("mlx5_0") | .errors_partial == true and near(.errors_per_s; 1 / .interval; 1e-3)'
	check 3 "still saturated: still no rate" \
		'port("mlx5_0") | .counters.port_xmit_data.saturated == true and (has("tx_gbps") | not)'
	check 4 "cleared after saturation: a reset, no rate for that interval" \
		'port("mlx5_0") | (.counters.port_xmit_data | .reset == true and (has("rate") or has("delta") | not)) and (has("tx_gbps") | not)'
	check 4 "symbol_error cleared to 0: a reset too; errors_per_s a lower bound" \
		'port("mlx5_0") | .counters.symbol_error.reset == true and .errors_partial == true'
	;;
wrap)
	fixture mlx5-roce-dual
	w $H0/rx_write_requests 4294967000
	w $H0/rx_read_requests 4000000000
	start 4 -j
	sample 2
	w $H0/rx_write_requests 1000
	w $H0/rx_read_requests 4000000100
	sample 2
	w $H0/rx_read_requests 5
	sample 2
	w $H0/rx_write_requests 2000
	sample 2
	finish
	sane
	check 2 "32-bit hw counter wrapped: delta across 2^32" \
		'port("mlx5_0") | .hw_counters.rx_write_requests | .wrapped == true and .delta == 1296'
	check 2 "wrapped rate = delta / interval" \
		'port("mlx5_0") | near(.hw_counters.rx_write_requests.rate; 1296 / .interval; 1e-3)'
	check 3 "a drop that would be an absurd wrap is a reset" \
		'port("mlx5_0") | .hw_counters.rx_read_requests | .reset == true and (has("rate") | not)'
	check 4 "after the wrap: normal deltas" \
		'port("mlx5_0") | .hw_counters.rx_write_requests | .delta == 1000 and (has("wrapped") | not)'
	;;
reset)
	fixture mlx5-roce-dual
	start 3 -j
	sample 2
	w $P0/port_rcv_packets 1000
	w $H0/rx_read_requests 50
	w mlx5_0/ports/1/hw_counters/rx_write_requests 5000000000
	sample 2
	w $H0/rx_write_requests 7
	sample 2
	finish
	sane
	check 2 "PMA counter went down: reset, no rate (when it happened is unknown)" \
		'port("mlx5_0") | .counters.port_rcv_packets | .reset == true and (has("rate") or has("delta") | not)'
	check 2 "rx_pps unknown for the interval of the reset" 'port("mlx5_0") | has("rx_pps") | not'
	check 2 "hw counter went down (low half): reset" \
		'port("mlx5_0") | .hw_counters.rx_read_requests | .reset == true and (has("rate") | not)'
	check 3 "64-bit hw counter going down: reset, never a wrap" \
		'port("mlx5_0") | .hw_counters.rx_write_requests | .reset == true and (has("wrapped") | not)'
	check 3 "after the reset: rates again" \
		'port("mlx5_0") | .counters.port_rcv_packets.delta == 0 and .rx_pps == 0 and .hw_counters.rx_read_requests.rate == 0'
	;;
vanish)
	fixture mlx5-roce-dual
	start 3 -j
	sample 2
	dir=$(readlink -f "$C/mlx5_1")
	rm "$C/mlx5_1" && rm -rf "$dir"
	sample 2
	sample 1
	finish
	sane
	check 2 "vanished port reported gone once" 'port("mlx5_1") | .gone == true and (has("counters") | not)'
	check 2 "the other port goes on" 'port("mlx5_0") | .interval > 0 and .tx_gbps == 0'
	check 3 "then it is no longer listed" 'length == 1 and .[0].dev == "mlx5_0"'
	;;
appear)
	fixture mlx5-roce-dual
	mv "$C/mlx5_1" "$tmp/mlx5_1.link"
	start 3 -j
	sample 1
	mv "$tmp/mlx5_1.link" "$C/mlx5_1"
	sample 2
	sample 2
	finish
	sane
	check 1 "only mlx5_0 at first" 'length == 1 and .[0].dev == "mlx5_0"'
	check 2 "new device added" 'port("mlx5_1") | .state == "DOWN" and .netdev == "ens1f1"'
	check 2 "its first sample: no rates yet" 'port("mlx5_1") | (has("interval") or has("tx_gbps")) | not'
	check 3 "then rates" 'port("mlx5_1") | .interval > 0 and .tx_pps == 0'
	;;
rxe)
	fixture rxe-plain
	H=rxe0/ports/1/hw_counters
	start 2 -j
	sample 1
	w $H/sent_pkts $(($(r $H/sent_pkts) + 500))
	w $H/rcvd_pkts $(($(r $H/rcvd_pkts) + 400))
	w $H/rcvd_seq_err 6
	sample 1
	finish
	sane
	check 1 "no counters/ directory: only hw_counters" '.[0] | (has("counters") | not) and (.hw_counters | length == 15)'
	check 2 "no byte counter on rxe: no Gb/s at all (not 0)" '.[0] | (has("tx_gbps") or has("rx_gbps") or has("tx_bytes")) | not'
	check 2 "tx_pps from sent_pkts" '.[0] | near(.tx_pps; 500 / .interval; 1e-3)'
	check 2 "rx_pps from rcvd_pkts" '.[0] | near(.rx_pps; 400 / .interval; 1e-3)'
	check 2 "errors_per_s from rxe error counters" '.[0] | near(.errors_per_s; 1 / .interval; 1e-3)'
	check 2 "unknown link speed (virtio -1): no utilization" '.[0] | (has("rate_gbps") or has("util_pct")) | not'
	check 2 "sysfs is the only source with --sysroot" '.[0].hw_source == "sysfs"'
	;;
text)
	# The text a user sees: "-" before rates and where no counter exists,
	# "sat" for a saturated counter, "N+" for a lower bound, "reset".  Only
	# rates that are zero whatever the interval, and the clock masked, so
	# that the output is exact.
	fixture mlx5-roce-dual
	w $P0/port_xmit_data 4294960000
	w $P0/symbol_error 65000
	start 2 --color=never
	sample 4
	w $P0/port_xmit_data 4294967295
	w $P0/symbol_error 65535
	w $P0/port_rcv_packets 7
	sample 5
	finish > "$tmp/finish"
	grep -v '^ok' "$tmp/finish"
	cat "$tmp/s1" "$tmp/s2" | sed 's/ - [0-9][0-9]:[0-9][0-9]:[0-9][0-9] - / - HH:MM:SS - /'
	;;
*)
	echo "top-feed.sh: unknown scenario '$scen'" >&2
	exit 2
	;;
esac
}

# Up to three attempts: the first whose samples all came after the writes
# before them is the one reported.  When every attempt raced, the last is
# reported with a line on stderr, which fails the case: no verdict either way.
for _ in 1 2 3; do
	fails=0 raced=0 last_w=0 k=0
	rm -f "$tmp"/s[0-9]*
	scenario > "$tmp/out"
	[ "$raced" = 0 ] && break
done
cat "$tmp/out"
[ "$raced" = 0 ] ||
	echo "top-feed.sh: $scen: in each of 3 attempts a sample came before the counter writes it should follow (the machine too loaded to keep up with rdma-top's interval)" >&2
[ "$fails" = 0 ]
