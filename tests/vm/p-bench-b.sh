#!/bin/bash
# Two hosts, VM b (10.10.0.2): bench/read-floor.c, the READ latency floor
# that bench/selftest-vs-perftest.sh sets beside ib_read_lat, against its own
# server and against perftest's program both ways (it speaks ib_read_lat's
# TCP exchange), its errors and exit codes; and the bench's round-pairing
# helpers (bench/vm/lib.sh) on figures with a missing round.  Peer:
# p-bench-a.sh.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
# shellcheck source=bench/vm/lib.sh
. "$RD_ROOT/bench/vm/lib.sh"
set -u
gid=$(bench_gid)
# a "median min avg" line of positive microseconds, min <= median
figures() { awk 'NF == 3 && $2 > 0 && $2 <= $1 && $3 > 0 {ok = 1} END {exit !ok}' "$1"; }

vm_wait bench-ff 120 || vm_fail "no read-floor server on $PEER_IP"
timeout 120 "$READ_FLOOR" "$PEER_IP" 18540 "$DEV" "$gid" 300 64 > /tmp/ff.out 2> /tmp/ff.err
vm_check_eq "read-floor against read-floor exits 0" 0 "$?"
vm_check "read-floor against read-floor: median, min, avg" figures /tmp/ff.out

vm_wait bench-fp 120 || vm_fail "no ib_read_lat server on $PEER_IP"
timeout 120 "$READ_FLOOR" "$PEER_IP" 18541 "$DEV" "$gid" 300 64 > /tmp/fp.out 2> /tmp/fp.err
vm_check_eq "read-floor against ib_read_lat's server exits 0" 0 "$?"
vm_check "read-floor against ib_read_lat's server: median, min, avg" figures /tmp/fp.out

vm_wait bench-pf 120 || vm_fail "no second read-floor server on $PEER_IP"
timeout 120 ib_read_lat -d "$DEV" -x "$gid" -F -s 64 -n 300 -p 18542 "$PEER_IP" > /tmp/pf.out 2>&1
vm_check_eq "ib_read_lat against read-floor's server exits 0" 0 "$?"
vm_check_output "ib_read_lat against read-floor's server: its result line" \
	"^ *64 +300 +[0-9.]+ +[0-9.]+ +[0-9.]+ " cat /tmp/pf.out
vm_signal bench-b-done

# errors: nobody listening (exit 1, one line), usage (exit 2)
timeout 60 "$READ_FLOOR" "$PEER_IP" 18549 "$DEV" "$gid" 10 > /tmp/no.out 2> /tmp/no.err
vm_check_eq "read-floor with no server: exit 1" 1 "$?"
vm_check_eq "read-floor with no server: one line on stderr" 1 "$(wc -l < /tmp/no.err)"
vm_check "read-floor with no server: nothing on stdout" test ! -s /tmp/no.out
"$READ_FLOOR" > /dev/null 2>&1
vm_check_eq "read-floor without arguments: exit 2" 2 "$?"
"$READ_FLOOR" "$PEER_IP" 18540 "$DEV" "$gid" 0 > /dev/null 2> /tmp/zero.err
vm_check_eq "read-floor with ITERS 0: exit 2" 2 "$?"
vm_check_output "read-floor with ITERS 0: says why" "at least 1" cat /tmp/zero.err

# the bench's pairing of rounds: a run without a figure is NA, its round
# drops out of the ratios and the others stay paired
: > /tmp/A; : > /tmp/B
for v in 100 200 300; do echo "$v" | bench_put /tmp/A; done
printf '110\n' | bench_put /tmp/B; : | bench_put /tmp/B; printf '330\n' | bench_put /tmp/B
vm_check_eq "bench_put: a run without output is NA" "110 NA 330" "$(paste -sd' ' /tmp/B)"
vm_check_eq "bench_missing counts it" 1 "$(bench_missing /tmp/A /tmp/B)"
: > /tmp/C
for v in 0.000000 null 0 -3 12.5 '' 7; do printf '%s\n' "$v" | bench_put /tmp/C; done
vm_check_eq "bench_put: 0, null, 0.000000 and a negative are no figure" "NA NA NA NA 12.5 NA 7" \
	"$(paste -sd' ' /tmp/C)"
vm_check_eq "bench_med of no figure at all is empty" "" "$(printf 'NA\nNA\n' | bench_med)"
vm_check_eq "bench_med leaves it out" 220 "$(bench_med < /tmp/B)"
vm_check_eq "bench_round_ratio pairs round with round" 1.1 "$(bench_round_ratio /tmp/A /tmp/B)"
vm_check_eq "bench_round_spread: 2 rounds, none below 1" "1.100 1.100 50.0 0 2" "$(bench_round_spread /tmp/A /tmp/B)"
# the pooled report over boots reads the round lines back into files
printf '%s\n' "BENCH round 1 read: lat ib_read_lat 250 rdma-selftest 260; bw ib_read_bw 0.12 rdma-selftest 0.14; floor 255" \
	"BENCH round 1 ud: lat ib_send_lat 200 rdma-selftest 210; bw ib_send_bw 0.08 rdma-selftest 0.13" \
	"BENCH round 2 read: lat ib_read_lat 240 rdma-selftest NA; bw ib_read_bw 0.11 rdma-selftest 0.15; floor 250" |
	bench_round_files /tmp/pool
vm_check_eq "bench_round_files: read's rounds, NA kept" "250 240|260 NA|0.12 0.11|0.14 0.15|255 250" \
	"$(for f in pl sl pb sb fl; do paste -sd' ' "/tmp/pool/$f-read"; done | paste -sd'|')"
vm_check_eq "bench_round_files: ud's round, no floor" "200|210|0.08|0.13|none" \
	"$(for f in pl sl pb sb; do paste -sd' ' "/tmp/pool/$f-ud"; done | paste -sd'|')|$([ -e /tmp/pool/fl-ud ] && echo floor || echo none)"
BENCH_FIGS=/tmp/pool bench_op_lines "" read > /tmp/pool.txt
vm_check_output "bench_op_lines: the latency line, per round over the paired round" \
	"^BENCH read +latency ib_read_lat +245.00 +rdma-selftest +260.00 +ratio 1.061, per round 1.040 " cat /tmp/pool.txt
vm_check_output "bench_op_lines: the floor against perftest" \
	"^BENCH read +floor +read-floor +252.50 +against ib_read_lat: ratio 1.031, per round 1.031 " cat /tmp/pool.txt
vm_check_output "bench_op_lines: the missing run named" "^BENCH read: 1 run gave no figure" cat /tmp/pool.txt
# a round where only the floor gave nothing counts as missing too
printf '%s\n' "BENCH round 1 read: lat ib_read_lat 250 rdma-selftest 260; bw ib_read_bw 0.12 rdma-selftest 0.14; floor 255" \
	"BENCH round 2 read: lat ib_read_lat 245 rdma-selftest 250; bw ib_read_bw 0.12 rdma-selftest 0.14; floor NA" |
	bench_round_files /tmp/pool2
BENCH_FIGS=/tmp/pool2 bench_op_lines "" read > /tmp/pool2.txt
vm_check_eq "bench_op_lines counts a run of the floor without a figure (BENCH_MISSED)" 1 "$BENCH_MISSED"
vm_check_output "... and names it" "^BENCH read: 1 run gave no figure" cat /tmp/pool2.txt
vm_pass "read-floor and the bench helpers checked"
