#!/bin/bash
# Two hosts, VM b (10.10.0.2): bench/read-floor.c, the READ latency floor
# that bench/selftest-vs-perftest.sh sets beside ib_read_lat, against its own
# server and against perftest's program both ways (it speaks ib_read_lat's
# TCP exchange), its errors and exit codes.  (The bench's figure-keeping
# helpers need no VM: tests/cli/bench-helpers.sh checks them on this host.)
# Peer: p-bench-a.sh.
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
vm_check_eq "read-floor against read-floor exits 0" 0 "$?" /tmp/ff.out /tmp/ff.err
vm_check "read-floor against read-floor: median, min, avg" figures /tmp/ff.out

vm_wait bench-fp 120 || vm_fail "no ib_read_lat server on $PEER_IP"
timeout 120 "$READ_FLOOR" "$PEER_IP" 18541 "$DEV" "$gid" 300 64 > /tmp/fp.out 2> /tmp/fp.err
vm_check_eq "read-floor against ib_read_lat's server exits 0" 0 "$?" /tmp/fp.out /tmp/fp.err
vm_check "read-floor against ib_read_lat's server: median, min, avg" figures /tmp/fp.out

vm_wait bench-pf 120 || vm_fail "no second read-floor server on $PEER_IP"
timeout 120 ib_read_lat -d "$DEV" -x "$gid" -F -s 64 -n 300 -p 18542 "$PEER_IP" > /tmp/pf.out 2>&1
vm_check_eq "ib_read_lat against read-floor's server exits 0" 0 "$?" /tmp/pf.out
vm_check_output "ib_read_lat against read-floor's server: its result line" \
	"^ *64 +300 +[0-9.]+ +[0-9.]+ +[0-9.]+ " cat /tmp/pf.out
vm_signal bench-b-done

# errors: nobody listening (exit 1, one line), usage (exit 2)
timeout 60 "$READ_FLOOR" "$PEER_IP" 18549 "$DEV" "$gid" 10 > /tmp/no.out 2> /tmp/no.err
vm_check_eq "read-floor with no server: exit 1" 1 "$?" /tmp/no.out /tmp/no.err
vm_check_eq "read-floor with no server: one line on stderr" 1 "$(wc -l < /tmp/no.err)"
vm_check "read-floor with no server: nothing on stdout" test ! -s /tmp/no.out
"$READ_FLOOR" > /dev/null 2>&1
vm_check_eq "read-floor without arguments: exit 2" 2 "$?"
"$READ_FLOOR" "$PEER_IP" 18540 "$DEV" "$gid" 0 > /dev/null 2> /tmp/zero.err
vm_check_eq "read-floor with ITERS 0: exit 2" 2 "$?" /tmp/zero.err
vm_check_output "read-floor with ITERS 0: says why" "at least 1" cat /tmp/zero.err
