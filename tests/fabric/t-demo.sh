#!/bin/bash
# Fabric scenario and `make demo`'s fabric section: rdma-fabric at work on a
# simulated cluster (gen-net.sh small: 3 switches, 9 HCAs; h005's cable trained
# 1X, h006's SDR; a real OpenSM), every command shown as typed with its output.
# Faults are set through ibsim's console as the demo goes: error counters,
# congestion, a cable pulled.  Each command's exit status is checked, and a
# few lines of its output.
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
# demo CMD...: "$ CMD" as a user types it (rdma-fabric from the PATH), then
# its output ("sh -c 'A | B'" is shown as A | B); the status lands in
# demo_rc, the output in $D/demo.out.
demo() {
	if [ "$1" = sh ] && [ "$2" = -c ]; then printf '\n$ %s\n' "$3"; else printf '\n$ %s\n' "$*"; fi
	(cd "$SIM_DIR" && PATH=$B:$PATH exec timeout -k 5 60 ibsim-run "$@") > "$D/demo.out" 2> "$D/demo.err"
	demo_rc=$?
	cat "$D/demo.out"
	grep -v 'sim_connect: attached' "$D/demo.err" >&2
	return 0
}
note() { printf '# %s\n' "$*"; }

printf '\n======== rdma-fabric -- the InfiniBand fabric seen whole (ibsim + OpenSM, no hardware)\n'
"$GEN_NET" small --1x h005 --sdr h006 > "$D/small.net"
sim_start "$D/sim" "$D/small.net" > /dev/null || { fab_fail "ibsim did not start"; exit 1; }
sim_sm_start > /dev/null || { fab_fail "OpenSM did not reach SUBNET UP"; exit 1; }
sock=$SIM_SOCK
note "a simulated cluster: 3 switches, 9 HCAs, OpenSM master; h005's cable trained 1X, h006's at SDR"
note "250 symbol errors on leaf01 port 2 and congestion on leaf02 port 4, set through the simulator"
sim_console 'PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=250' > /dev/null
sim_console 'PerformanceSet "leaf02"[4] PortCounters.PortXmitWait=5000' > /dev/null

demo rdma-fabric
fab_check_eq "rdma-fabric: exit 1 (two degraded links)" 1 "$demo_rc"
fab_check_grep "the 1X link, both ends named" '^link\.degraded +leaf02 port 1 <-> h005 mlx5_0 port 1 +FAIL +1X QDR' cat "$D/demo.out"
demo rdma-fabric --nhc
fab_check_grep "--nhc: one line for Node Health Check" '^ERROR: rdma-fabric: link\.degraded: ' cat "$D/demo.out"
demo rdma-fabric --links
fab_check_eq "--links: every port with PortInfo (31)" 32 "$(grep -c . "$D/demo.out")"
demo rdma-fabric --sm
fab_check_grep "--sm: the master" ' master ' cat "$D/demo.out"
demo rdma-fabric --errors
fab_check_grep "--errors: the symbol errors" '^leaf01 +2 +SymbolErrorCounter +250' cat "$D/demo.out"

note "routes: from h002 to h005 as ibtracert follows them, each link judged on the way"
demo rdma-fabric --path h002 h005
fab_check_eq "--path h002 h005: exit 1 (h005's 1X link on the route)" 1 "$demo_rc"
fab_check_grep "--path: the last hop FAILs, naming link.degraded" '^FAIL: h002 -> h005: 4 links; hop 4 \(h005 mlx5_0\): link\.degraded: 1X QDR' cat "$D/demo.out"
note "every CA-to-CA route at once: holes, loops and credit loops, balance, and what the bad links carry"
demo rdma-fabric --only route
fab_check_eq "--only route: exit 0 (WARNs only)" 0 "$demo_rc"
fab_check_grep "route.degraded: h005's link and the routes that cross it" '^route\.degraded +leaf02 port 1 <-> h005 mlx5_0 port 1 +WARN +16 of the 72 CA-to-CA routes cross it' cat "$D/demo.out"
fab_check_grep "route.degraded: the erroring link too (its counters read for it)" '^route\.degraded +leaf01 port 2 <-> h002 mlx5_0 port 1 +WARN +16 of the 72 CA-to-CA routes cross it \(port\.errors: SymbolErrorCounter=250\)' cat "$D/demo.out"

note "save today's fabric, pull h007's cable, and compare"
demo rdma-fabric --save fabric.cache --only id
fab_check_eq "--save: exit 0" 0 "$demo_rc"
sim_console 'Unlink "h007"[1]' > /dev/null
demo rdma-fabric --baseline fabric.cache --only link.baseline
fab_check_grep "--baseline: the pulled cable and the lost node" 'h007 mlx5_0.*in the baseline, not in the fabric now' cat "$D/demo.out"
sim_console 'ReLink "h007"[1]' > /dev/null

note "the counters for Prometheus, under infiniband-exporter's names (the first lines)"
demo sh -c 'rdma-fabric --format openmetrics | head -4'
fab_check_grep "--format openmetrics" '^infiniband_symbolerrorcounter_total\{component="switch",local_name="leaf01",.*local_port="2",.*\} 250$' cat "$D/demo.out"

note "which cable explains a mesh's failures: today's routes saved, then leaf01's cable on port 6 pulled while OpenSM is down"
demo sh -c 'rdma-fabric --routes -j > fabric.json'
fab_check_eq "--routes -j > fabric.json: exit 0" 0 "$demo_rc"
sim_sm_stop
sim_console 'Unlink "leaf01"[6]' > /dev/null
# The mesh's results: the simulator forwards no traffic, so a pair fails
# when ibtracert, run on its source host (SIM_HOST), cannot follow the
# switches' tables to the other end, either way, as they now forward (what
# rdma-selftest --mesh would find).
jq -r '.ports[] | select(.type == "CA") | "\(.node | split(" ")[0]) \(.lid)"' "$SIM_DIR/fabric.json" > "$D/ca.lids"
reaches() { SIM_HOST=$1 sim_run ibtracert "$2" "$3" 2> /dev/null | grep -q '^To ca '; }
while read -r s sl; do
	while read -r t tl; do
		[ "$s" != "$t" ] || continue
		if reaches "$s" "$sl" "$tl" && reaches "$t" "$tl" "$sl"; then r='"result":"pass","latency_us":2.1,"gbps":96.5'
		else r='"result":"fail","failed_stage":"rts","diagnosis":"the peer never answered (retry exceeded)"'; fi
		printf '{"mode":"mesh","src":"%s","dst":"%s","round":1,"dev":"mlx5_0","port":1,%s}\n' "$s" "$t" "$r"
	done < "$D/ca.lids"
done < "$D/ca.lids" > "$SIM_DIR/mesh.jsonl"
fab_check_eq "the mesh: 72 pairs, some failed" "72 1" \
	"$(grep -c . "$SIM_DIR/mesh.jsonl") $(grep -q '"fail"' "$SIM_DIR/mesh.jsonl" && echo 1)"
note "the mesh's results (rdma-selftest --mesh -j on each host, gathered) placed on those routes"
demo rdma-fleet --fabric fabric.json mesh.jsonl
fab_check_eq "rdma-fleet --fabric: exit 1 (failed pairs)" 1 "$demo_rc"
fab_check_grep "the pulled cable is suspect 1, every pair through it failed, none elsewhere" \
	'^suspect 1: leaf01 port 6 <-> spine01 port 2: ([0-9]+) of \1 pairs through it failed, 0 of [0-9]+ others$' cat "$D/demo.out"

sim_stop
fab_check_eq "nothing left running" "" "$(sim_leftovers "$sock" 2> /dev/null || true)"
