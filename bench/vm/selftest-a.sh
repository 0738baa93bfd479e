#!/bin/bash
# Bench, VM a (server side): in each round, for each operation, an
# ib_<op>_lat then an ib_<op>_bw server (for read also a read-floor server
# beside ib_read_lat: bench_floor), and the rdma-selftest server, either one
# for the whole run (BENCH_ST_SERVER=session, the default) or, like
# perftest's, a fresh one for each run (run: rdma-selftest --server --once).
# Driven by bench/vm/selftest-b.sh through the shared scratch directory.
# Each perftest server starts only once b's rdma-selftest run before it is
# over: starting a process under TCG takes this VM's one vCPU for a while,
# and rdma-selftest would be measured against a busy peer while perftest
# never is.  And this side never polls while b measures: it learns that b's
# rdma-selftest run is over from the session server's own "done" line, read
# from a pipe (a blocking read), or from the exit of a --once server, and
# that b's perftest run is over when the perftest server exits; a polling
# loop here would wake this VM's vCPU in the middle of one tool's run and
# not the other's.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
ITERS=${BENCH_ITERS:-500} ROUNDS=${BENCH_ROUNDS:-5} OPS=${BENCH_OPS:-send write read ud}
ST_SERVER=${BENCH_ST_SERVER:-session}
ST=("$RD_ROOT/build/rdma-selftest" --server -P 18532 --timeout 60 --no-counters)
gid=$(bench_gid)
vm_signal clock-a "$(bench_clock_text)"
if [ "$ST_SERVER" = session ]; then
	rm -f /tmp/st.fifo && mkfifo /tmp/st.fifo
	vm_bg st sh -c 'exec timeout 6000 "$@" > /tmp/st.fifo' sh "${ST[@]}"
	exec 7< /tmp/st.fifo
	vm_wait_listen 18532 60 || vm_fail "no rdma-selftest server on 18532"
fi
vm_signal st-ready
# st_start: with a server for each run, start the one for b's next
# rdma-selftest run (it listens, idle, like the perftest servers).
st_start() {
	[ "$ST_SERVER" = session ] && return 0
	vm_bg st timeout 600 "${ST[@]}" --once
	vm_wait_listen 18532 30 || echo "BENCH no rdma-selftest server on 18532" >&2
}
# st_end: block until b's rdma-selftest run is over: the --once server's
# exit, or the session server's line that ends one session (however it
# ended: vm_st_closes); 1 when it logged nothing more for 15 minutes.
st_end() {
	local line
	if [ "$ST_SERVER" != session ]; then
		vm_bg_wait st >> /tmp/st-server.log
		return 0
	fi
	while IFS= read -r -t 900 -u 7 line; do
		echo "$line" >> /tmp/st-server.log
		vm_st_closes "$line" && return 0
	done
	return 1
}
for round in $(seq "$ROUNDS"); do
	for op in $OPS; do
		pt=$(bench_pt "$op") bs=$(bench_bw_size "$op")
		read -ra px <<<"$(bench_pt_args "$op")"
		vm_bg lat timeout 600 "ib_${pt}_lat" "${px[@]}" -d "$DEV" -x "$gid" -F -s 64 \
			-n "$(bench_lat_iters "$op" "$ITERS")" -p 18530
		bench_pt_listen "$op" 18530 || echo "BENCH no ib_${pt}_lat server on 18530" >&2
		if bench_floor "$op"; then
			vm_bg floor timeout 600 "$READ_FLOOR" -s 18533 "$DEV" "$gid"
			vm_wait_listen 18533 30 || echo "BENCH no read-floor server on 18533" >&2
		fi
		st_start
		vm_signal "lat-ready-$op-$round"
		# each wait blocks until its run is over, whichever order b runs them in
		vm_bg_wait lat > /dev/null
		if bench_floor "$op"; then vm_bg_wait floor > /dev/null; fi
		st_end || vm_fail "no end of b's rdma-selftest latency run $op $round"
		vm_bg bw timeout 600 "ib_${pt}_bw" "${px[@]}" -d "$DEV" -x "$gid" -F -s "$bs" -n "$ITERS" -p 18531
		bench_pt_listen "$op" 18531 || echo "BENCH no ib_${pt}_bw server on 18531" >&2
		st_start
		vm_signal "bw-ready-$op-$round"
		vm_bg_wait bw > /dev/null
		st_end || vm_fail "no end of b's rdma-selftest bandwidth run $op $round"
	done
done
vm_wait st-done 6000
[ "$ST_SERVER" = session ] && vm_bg_kill st
vm_pass "bench servers ran"
