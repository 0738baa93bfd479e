#!/bin/bash
# Fabric scenario: routes on the small fabric and on a ring, ibtracert as the
# oracle. rdma-fabric --path equals ibtracert hop for hop for every CA pair
# (and a switch), live and from a --save'd file; the route checks PASS on
# the healthy fabric. Faults driven for real: routes loaded through OpenSM's
# file routing engine with a loop (route.loops and --path name it), the SM
# stopped and an HCA given a LID no switch knows (route.holes FAILs on every
# switch, --path breaks at the first), a link unlinked under routes that
# still use it (route.holes names the port). A ring of six switches routed
# by minhop has credit loops, by updn with a root none: rdma-fabric tells
# them apart as the channel dependency graph of ibtracert's routes does
# (routes.py cdg, Tarjan's components).
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
routes_py() { python3 "$(dirname "$0")/routes.py" "$@"; }
# shellcheck source=tests/fabric/routes-lib.sh
. "$(dirname "$0")/routes-lib.sh"

# Every ordered pair of the lines of $1 (a LID a line).
all_pairs() { awk 'NR == FNR { l[++n] = $1; next } END { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (i != j) print l[i], l[j] }' "$1" /dev/null; }
# one check's results: "status|object" lines
results_of() { jq -r --arg c "$2" '.results[] | select(.check == $c) | "\(.status)|\(.object)"' "$1"; }

### 1. The small fabric: --path equals ibtracert for every CA pair.
net=$D/small.net
"$GEN_NET" small > "$net"
fab_check "sim_start: the small fabric" sim_start "$D/sim" "$net" || exit 1
fab_check "sim_sm_start: OpenSM (minhop)" sim_sm_start || exit 1
ca_lids > "$D/lids"
fab_check_eq "ibnetdiscover: 9 CA LIDs" 9 "$(grep -c . "$D/lids")"
all_pairs "$D/lids" > "$D/pairs"
# And a CA to a switch's LID (leaf02's), as ibtracert takes it.
leaf02_lid=$(sw_lid leaf02)
echo "$(head -1 "$D/lids") $leaf02_lid" >> "$D/pairs"
fab_check_eq "73 pairs: 72 CA to CA, one CA to leaf02" 73 "$(grep -c . "$D/pairs")"
rf "$D/paths.json" --path-file "$D/pairs" -j
fab_check_eq "--path-file (73 pairs) -j: exit 0, verdict pass" "0|pass" "$rf_rc|$(jq -r .verdict "$D/paths.json")"
tracert_all "$D/tr" "$D/pairs"
fab_check_eq "--path equals ibtracert hop for hop on all 73 pairs (From, every hop, To)" \
	"$(routes_py canon-tracert "$D"/tr/*)" "$(routes_py canon-json "$D/paths.json")"
fab_check_eq "every hop of the healthy routes: Active, 4X QDR, 0 errors, pass" "" \
	"$(jq -r '.paths[].hops[] | select(.state != "ACTIVE" or .width != "4X" or .speed != "QDR" or .errors != 0 or .status != "pass") | .node' "$D/paths.json")"
rf "$D/path.txt" --path "h002 mlx5_0" h005
h002=$(ca_lid 'h002 mlx5_0')
fab_check_eq "--path 'h002 mlx5_0' h005 (text): From, 4 hop rows, To, a PASS line" \
	"From ca {0x0000000000100002} portnum 1 lid $h002-$h002 \"h002 mlx5_0\"|4|PASS: h002 mlx5_0 -> h005: 4 links" \
	"$(head -1 "$D/path.txt")|$(grep -Ec '^ +[0-9]+ +[0-9]+ +(switch|ca) ' "$D/path.txt")|$(tail -1 "$D/path.txt")"
rf "$D/checks.json" --only route -j
fab_check_eq "--only route: the 4 routing checks PASS on the healthy fabric" \
	"pass|fabric"$'\n'"pass|fabric"$'\n'"pass|fabric"$'\n'"pass|fabric|0" \
	"$(jq -r '.results[] | "\(.status)|\(.object)"' "$D/checks.json")|$rf_rc"

### 2. --save keeps the tables; --load F --path answers as the live sweep.
rf "$D/save.txt" --save "$D/s.cache" --only route
fab_check_eq "--save: exit 0, written" "0 yes" "$rf_rc $([ -s "$D/s.cache" ] && echo yes)"
rf "$D/loaded.json" --load "$D/s.cache" --path-file "$D/pairs" -j
fab_check_eq "--load F --path-file -j equals the live routes (but the counters, not in a file)" \
	"$(jq -S 'del(.paths[].hops[].errors)' "$D/paths.json")" "$(jq -S . "$D/loaded.json")"
fab_check_grep "iblinkinfo --load-cache F still reads the file" 'leaf02' sim_run iblinkinfo --load-cache "$D/s.cache"

### 3. A unicast loop, loaded through OpenSM's file routing engine.
# (Not h001's LID: the sweep runs from h001, and every answer to it would go round.)
h002=$(ca_lid 'h002 mlx5_0') h005=$(ca_lid 'h005 mlx5_0')
rf "$D/links-now.json" --links -j
# The dump OpenSM's -U reads, by rdma-fabric --routes; ibroute of each switch is its oracle.
rf "$D/lfts.dump" --routes
fab_check_eq "--routes: exit 0, the 3 switches' tables" "0|3" "$rf_rc|$(grep -c '^Unicast lids' "$D/lfts.dump")"
for sw in leaf01 leaf02 spine01; do
	sim_run ibroute "$(sw_lid "$sw")"
done > "$D/ibroute.txt"
fab_check_eq "--routes equals ibroute of each switch (leaf01, leaf02, spine01), line for line" \
	"$(cat "$D/ibroute.txt")" "$(cat "$D/lfts.dump")"
rf "$D/routes.json" --routes -j
fab_check_eq "--routes -j: the ports of --links -j, and 3 tables whose entries are the text's" \
	"$(jq -c .ports "$D/links-now.json" 2>/dev/null || true)|$(grep -c '^0x' "$D/lfts.dump")" \
	"$(jq -c .ports "$D/routes.json")|$(jq '[.lfts[].lft[] | select(. != 255)] | length' "$D/routes.json")"
# leaf02 sends h002's LID up to spine01 (port 5), spine01 sends it back to leaf02 (port 4).
fab_check "routes.py lft-loop: leaf02 -> spine01 -> leaf02 for h002's LID" \
	routes_py lft-loop "$D/lfts.dump" "$D/loop.dump" "$h002" leaf02 5 spine01 4
fab_check_eq "the dump changed in two entries (leaf02's and spine01's for h002)" 4 \
	"$(diff "$D/lfts.dump" "$D/loop.dump" | grep -c '^[<>]')"
fab_check "sim_sm_stop" sim_sm_stop
fab_check "sim_sm_start -R file -U loop.dump" sim_sm_start -R file -U "$D/loop.dump"
spine01_lid=$(sw_lid spine01)
loop_set() { sim_run ibroute "$spine01_lid" | grep -q "^$(printf '0x%04x' "$h002") 004 "; }
fab_check_wait "OpenSM set spine01's entry for h002 from the file (ibroute)" 30 loop_set
rf "$D/loop.json" --only route.loops -j
fab_check_eq "route.loops: exit 1, one FAIL naming h002's LID, the loop leaf02 -> spine01 -> leaf02 and the 5 routes (leaf02's HCAs) that enter it" \
	"1|fail|1" "$rf_rc|$(jq -r '[.results[] | .status] | unique | join(",")' "$D/loop.json")|$(jq -r '.results[].detail' "$D/loop.json" | grep -c "^packets for h002 mlx5_0 port 1 (LID $h002) go round \(leaf02 -> spine01 -> leaf02\|spine01 -> leaf02 -> spine01\) (5 routes enter the loop)")"
rf "$D/loop-path.json" --path h005 h002 -j
fab_check_eq "--path h005 h002: exit 1, broken: a loop, back at leaf02" "1|fail|a loop|the route comes back to leaf02: a loop" \
	"$rf_rc|$(jq -r '.paths[0] | "\(.verdict)|\(.end)|\(.detail)"' "$D/loop-path.json")"
fab_check_fails "ibtracert on the same pair fails too" sim_run ibtracert "$h005" "$h002"

### 4. A hole: the SM stopped, h004 given a LID no switch knows.
fab_check "sim_sm_stop" sim_sm_stop
fab_check "Baselid \"h004\"[1] 40" sim_console 'Baselid "h004"[1] 40'
rf "$D/hole.json" --only route.holes -j
fab_check_eq "route.holes: exit 1, a FAIL on each of the 3 switches naming h004's LID 40" \
	"1|3|3" "$rf_rc|$(jq -r '[.results[] | select(.status != "pass")] | length' "$D/hole.json")|$(jq -r '.results[] | select(.status == "fail") | .detail' "$D/hole.json" | grep -c 'no forwarding entry for 1 of the 9 CA LIDs: h004 mlx5_0 port 1 (LID 40)')"
rf "$D/hole-path.json" --path h001 h004 -j
fab_check_eq "--path h001 h004: exit 1, broken at leaf01 (h001's switch): no entry for LID 40" \
	"1|fail|leaf01 has no forwarding entry for LID 40: packets are dropped here" \
	"$rf_rc|$(jq -r '.paths[0] | "\(.verdict)|\(.detail)"' "$D/hole-path.json")"
fab_check_fails "ibtracert 1 40 cannot follow it either" sim_run ibtracert "$(ca_lid 'h001 mlx5_0')" 40

### 5. Routes into a port that is down: leaf01[5] unlinked, no SM to reroute.
fab_check "Unlink \"leaf01\"[5]" sim_console 'Unlink "leaf01"[5]'
down_seen() {
	rf "$D/down.json" --only route.holes -j
	jq -r '.results[] | select(.status == "fail" and (.detail | startswith("sends "))) | .object' "$D/down.json" | grep -qx 'leaf01 port 5'
}
fab_check_wait "route.holes: leaf01 sends CA LIDs out of port 5, which is not up" 20 down_seen
fab_check_eq "... and names them (port 5 first)" 1 "$(jq -r '.results[] | select(.object == "leaf01 port 5") | .detail' "$D/down.json" | grep -c 'out of ports that are not up (port 5 first)')"
fab_check "sim_stop" sim_stop

### 6. A ring of six switches: minhop has credit loops, updn with a root none.
"$GEN_NET" ring 6 > "$D/ring.net"
ring_check() {	# ENGINE ARGS...: route.loops against the oracle's dependency graph
	local name=$1
	shift
	fab_check "sim_start: ring of 6 ($name)" sim_start "$D/ring-$name" "$D/ring.net" || return 1
	fab_check "sim_sm_start $*" sim_sm_start "$@" || return 1
	ca_lids > "$D/ring-$name.lids"
	all_pairs "$D/ring-$name.lids" > "$D/ring-$name.pairs"
	tracert_all "$D/ring-$name.tr" "$D/ring-$name.pairs"
	routes_py cdg "$D/ring-$name.tr"/* > "$D/ring-$name.cdg"
	rf "$D/ring-$name.json" --only route.loops -j
	loops_rc=$rf_rc
	rf "$D/ring-$name.paths.json" --path-file "$D/ring-$name.pairs" -j
	fab_check_eq "ring ($name): --path equals ibtracert on all 30 pairs" \
		"$(routes_py canon-tracert "$D/ring-$name.tr"/*)" "$(routes_py canon-json "$D/ring-$name.paths.json")"
	sim_stop
}
ring_check minhop -R minhop
fab_check_eq "ring (minhop): the oracle's dependency graph has cycles" yes \
	"$(grep -q '^cycles [1-9]' "$D/ring-minhop.cdg" && echo yes)"
fab_check_eq "ring (minhop): route.loops FAILs with credit loops, exit 1" "1|yes" \
	"$loops_rc|$(jq -r '.results[] | select(.status == "fail") | .detail' "$D/ring-minhop.json" | grep -q '^credit loop: ' && echo yes)"
# Every channel rdma-fabric names in a credit loop is on a cycle of the oracle's graph.
named=$(jq -r '.results[] | select(.status == "fail") | .detail' "$D/ring-minhop.json" |
	sed -n 's/^credit loop: [^:]*: \(.*\) -> back to the first.*/\1/p' | sed 's/ -> /\n/g' | sort -u)
fab_check_eq "ring (minhop): the channels of the loops named are the oracle's cyclic channels (both ways round)" \
	"$(sed -n 's/^cyclic //p' "$D/ring-minhop.cdg" | sort -u)" "$named"
echo "0x0000000000200000" > "$D/root.guids"
ring_check updn -R updn -a "$D/root.guids"
fab_check_eq "ring (updn, sw01 the root): OpenSM used updn (no fallback to minhop)" 1 \
	"$(grep -c 'updn tables configured on all switches' "$D/ring-updn/osm.log")"
fab_check_eq "ring (updn): the oracle's dependency graph has no cycle" "cycles 0" "$(cat "$D/ring-updn.cdg")"
fab_check_eq "ring (updn): route.loops PASS, exit 0" "0|pass|fabric" "$loops_rc|$(results_of "$D/ring-updn.json" route.loops)"

### Every JSON document of this scenario holds to rdma-fabric's schema.
schema_all "$(basename "$0" .sh)"
