#!/bin/bash
# Two hosts, VM a (10.10.0.1): one rdma-selftest server under stress.
# VM b (p-stress-b.sh) sends 1000 garbage, truncated, oversized and
# wrong-version connections to its TCP exchange port (and a few bogus rdma_cm
# requests), then starts 100 real clients and SIGKILLs each at a random moment.
# Here: the server survives, logs one closing line per connection, still
# serves a real client of each kind, and its fd count and RSS come back to the
# baseline taken after the warm-up clients.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
PORT=18520
# The silence the server tolerates: each killed client costs it this much.
STO=1
# RSS may grow by this much over the baseline (KiB): glibc keeps small freed
# blocks in its arenas instead of returning every page to the kernel
# (measured: +40..110 KiB; the session buffers themselves are mmap'ed and
# given back, see rd_rc_alloc).
RSS_SLACK=256
D=/tmp/p-stress
rm -rf "$D"
mkdir -p "$D"
LOG=$D/server.log
srv=

cleanup() { [ -z "$srv" ] || kill -KILL "$srv" 2>/dev/null; }
trap cleanup EXIT

rss() { local k v _; while read -r k v _; do [ "$k" = VmRSS: ] && echo "$v"; done <"/proc/$srv/status"; }
fds() { local n=0 f; for f in /proc/"$srv"/fd/*; do n=$((n + 1)); done; echo "$n"; }
lines() { local n=0; while IFS= read -r _; do n=$((n + 1)); done <"$LOG"; echo "$n"; }
# The log from line $1 on.
since() { tail -n +"$1" "$LOG"; }
# Lines that close a TCP (--verbs) connection from b (vm_st_closing: all its
# lines but the one that opens a session and a counters line).
closing() { since "$1" | vm_st_closing | grep -c "verbs client $PEER_IP: "; }
closing_ge() { [ "$(closing "$1")" -ge "$2" ]; }
# Wait until the log has been quiet for $1 s (the server is idle).
quiet() {
	local want=$1 n last t
	last=$(lines) t=$SECONDS
	while [ $((SECONDS - t)) -lt "$want" ]; do
		vm_sleep 0.5
		n=$(lines)
		[ "$n" = "$last" ] || { last=$n t=$SECONDS; }
	done
}

"$S" --server -P "$PORT" --timeout "$STO" >"$LOG" 2>&1 </dev/null &
srv=$!
if ! vm_wait_listen "$PORT" 60; then
	vm_fail "server listens on $PORT" "$(cat "$LOG")"
	exit 0
fi
vm_put ps-port "$PORT"

# ---- baseline: after one warm-up client of each kind (rdma_cm and librdmacm
# keep a cached device context, libibverbs its device list: first-use
# allocations that stay).
vm_wait ps-warm-done 300 || vm_fail "warm-up clients done" "no signal from b"
quiet 2
base_rss=$(rss) base_fd=$(fds)
vm_log "baseline after the warm-up clients: VmRSS ${base_rss} kB, ${base_fd} fds"
L0=$(($(lines) + 1))
vm_signal ps-baseline

# ---- garbage phase
if garbage=$(vm_get ps-garbage-done 300); then
	# The server is at most a few half-open connections behind b.
	vm_retry 120 closing_ge "$L0" "$garbage"
	got=$(closing "$L0")
	vm_check_eq "one closing log line per garbage connection" "$garbage" "$got"
	cm=$(vm_get ps-cm-garbage 10) || cm=0
	vm_check_eq "one log line per bogus rdma_cm request" "$cm" \
		"$(since "$L0" | grep -c 'rdma_cm client: not an rdma-selftest client (no parameters); rejected')"
	vm_log "garbage phase, server log: $(since "$L0" | grep -cE 'dropped$') dropped," \
		"$(since "$L0" | grep -cE 'verbs client .*: rejected: ') rejected over TCP," \
		"$(since "$L0" | grep -cE 'rdma_cm client: ') rdma_cm refused," \
		"$(since "$L0" | grep -cE 'session failed') sessions that failed"
	since "$L0" | sed -E 's/^[^ ]+ //; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | sed 's/^/# |/'
else
	vm_fail "garbage phase done" "no signal from b"
fi
vm_check "server alive after the garbage" kill -0 "$srv"
vm_log "after the garbage: VmRSS $(rss) kB, $(fds) fds"
L1=$(($(lines) + 1))
vm_signal ps-garbage-counted

# ---- killed clients
vm_wait ps-kills-done 600 || vm_fail "killed clients done" "no signal from b"
# Stale requests of clients killed while they waited are served (and time
# out) after the last one died: let the server drain them.
quiet 4
vm_check "server alive after 100 killed clients" kill -0 "$srv"
opened=$(since "$L1" | grep -E "$VM_ST_OPEN_RE" | grep -cF "client $PEER_IP: ")
ended=$(since "$L1" | grep -cE "client $PEER_IP: (done|session failed)")
vm_check_eq "every session of a killed client logged its end" "$opened" "$ended"
vm_log "killed clients, server log: $opened sessions opened, $ended ended," \
	"$(since "$L1" | grep -cE ': done, ') completed before the kill," \
	"$(since "$L1" | grep -cE 'session failed') failed, $(($(lines) - L1 + 1)) lines"
since "$L1" | sed -E 's/^[^ ]+ //; s/0x[0-9a-f]+/X/g; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | sed 's/^/# |/'
vm_log "after the killed clients: VmRSS $(rss) kB, $(fds) fds"
L2=$(($(lines) + 1))
vm_signal ps-quiet

# ---- a real client of each kind still passes (checked on b); then the server
# is back to the baseline.
vm_wait ps-final-done 300 || vm_fail "final clients done" "no signal from b"
done_ge() { [ "$(since "$1" | grep -c ': done, ')" -ge "$2" ]; }
vm_retry 30 done_ge "$L2" 2
vm_check_eq "final clients: two sessions done" 2 "$(since "$L2" | grep -c ': done, ')"
quiet 2
fds_are() { [ "$(fds)" = "$1" ]; }
vm_retry 10 fds_are "$base_fd"
end_rss=$(rss) end_fd=$(fds)
vm_log "server at the end: VmRSS ${end_rss} kB (baseline ${base_rss} kB, $((end_rss - base_rss)) kB more)," \
	"${end_fd} fds (baseline ${base_fd})"
vm_put ps-numbers "rss ${base_rss}->${end_rss} kB fds ${base_fd}->${end_fd}"
vm_check_eq "fd count back to the baseline" "$base_fd" "$end_fd"
vm_check "RSS back to the baseline (+${RSS_SLACK} KiB at most)" \
	test "$end_rss" -le $((base_rss + RSS_SLACK))

# ---- the log, and a clean stop
vm_check_eq "no log line longer than 400 characters" "" "$(awk 'length > 400' "$LOG")"
vm_check_eq "nothing but log lines (timestamped)" "" \
	"$(grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+ ' "$LOG")"
# The session-end rule, line by line as bench/vm/selftest-a.sh reads a live
# log, finds the same ends as over the whole log, on a log with every kind.
ends=0
while IFS= read -r l; do vm_st_closes "$l" && ends=$((ends + 1)); done <"$LOG"
vm_check_eq "session ends: line by line as over the whole log" "$(vm_st_closing <"$LOG" | wc -l)" "$ends"
# Every kind of end is there, and the rule takes each line of it for an end.
for kind in ': rejected: ' '; dropped$' ': session failed after ' ': done, '; do
	n=$(grep -cE -- "$kind" "$LOG")
	vm_log "session ends '$kind': $n lines"
	vm_check "session ends '$kind': some, and each an end" \
		test "$n" -gt 0 -a "$(grep -E -- "$kind" "$LOG" | vm_st_closing | wc -l)" = "$n"
done
kill -TERM "$srv"
rc=0
wait "$srv" || rc=$?
srv=
vm_check_eq "server exits 0 on SIGTERM" 0 "$rc" "$LOG"
vm_log "server log: $(lines) lines"
vm_check "no kernel warnings" vm_dmesg_clean
vm_signal ps-done
vm_log "p-stress-a: ${SECONDS} s"
if [ "${VM_SHOW:-0}" = 1 ]; then cat "$LOG"; fi
