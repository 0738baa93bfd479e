#!/bin/bash
# Fabric scenario: routes on the 648-HCA fat tree (gen-net.sh fattree, h100's
# link 1X). rdma-fabric --path equals ibtracert hop for hop on 200 random CA
# pairs (a fixed seed), then again after a spine link is unlinked and OpenSM
# re-routes round it (a pair that crossed it no longer does). route.degraded
# counts the routes over the 1X link exactly (2 x 647 of 648 x 647).
# Imbalance for real: leaf02's table, dumped with ibroute and loaded back
# through OpenSM's file routing engine with every LID it sent up spread over
# two of its 18 up-ports: route.balance WARNs naming leaf02 and those ports,
# and nothing else.
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
routes_py() { python3 "$(dirname "$0")/routes.py" "$@"; }
# shellcheck source=tests/fabric/routes-lib.sh
. "$(dirname "$0")/routes-lib.sh"

# 200 random ordered pairs of distinct LIDs of $1, from seed $2.
sample_pairs() {
	python3 -c 'import random, sys
l = [x.strip() for x in open(sys.argv[1]) if x.strip()]
r = random.Random(int(sys.argv[2]))
for _ in range(200):
    a, b = r.sample(l, 2)
    print(a, b)' "$1" "$2"
}

net=$D/fattree.net
"$GEN_NET" fattree 648 --1x h100 > "$net"
fab_check "sim_start: the 648-HCA fat tree" sim_start "$D/sim" "$net" || exit 1
fab_check "sim_sm_start: OpenSM (minhop)" sim_sm_start || exit 1
ca_lids > "$D/lids"
fab_check_eq "ibnetdiscover: 648 CA LIDs" 648 "$(grep -c . "$D/lids")"

### 1. 200 random pairs: --path equals ibtracert.
sample_pairs "$D/lids" 44 > "$D/pairs1"
t0=$EPOCHREALTIME
rf "$D/paths1.json" --path-file "$D/pairs1" -j
t1=$EPOCHREALTIME
# A route over h100's 1X link FAILs at that hop (link.degraded), and the run with it; no other does.
fab_check_eq "--path-file (200 pairs) -j: the routes that FAIL are those over h100's link, at that hop" "" \
	"$(jq -r '.paths[] | select(.verdict != "pass") | select([.hops[] | select(.status != "pass") | .detail | startswith("link.degraded: 1X QDR")] | all | not) | "\(.from.name) \(.to.name)"' "$D/paths1.json")"
fab_check_eq "... exit 1 exactly when one route crosses it" \
	"$(jq -r 'if [.paths[] | select(.verdict == "fail")] | length > 0 then 1 else 0 end' "$D/paths1.json")" "$rf_rc"
tracert_all "$D/tr1" "$D/pairs1"
t2=$EPOCHREALTIME
fab_log "rdma-fabric --path-file: 200 routes in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" \
	"(sweep and tables included); ibtracert x 200: $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }') s"
fab_check_eq "--path equals ibtracert hop for hop on all 200 pairs" \
	"$(routes_py canon-tracert "$D"/tr1/*)" "$(routes_py canon-json "$D/paths1.json")"
fab_check_eq "routes of 2 links (one leaf) or 4 (across a spine), none other" "" \
	"$(jq -r '.paths[] | select(.links != 2 and .links != 4) | .links' "$D/paths1.json")"

### 2. route.degraded: the routes over h100's 1X link, exactly.
rf "$D/checks.json" --only route -j
fab_check_eq "--only route: route.degraded WARNs on h100's link with 1294 of the 419256 routes; the rest PASS" \
	"pass|route.holes"$'\n'"pass|route.loops"$'\n'"pass|route.balance"$'\n'"warn|route.degraded|leaf06 port 10 <-> h100 mlx5_0 port 1|1294 of the 419256" \
	"$(jq -r '.results[] | "\(.status)|\(.check)\(if .status == "warn" then "|" + .object + "|" + (.detail | split(" CA-to-CA")[0]) else "" end)"' "$D/checks.json")"

### 3. A spine link lost: OpenSM re-routes, --path still equals ibtracert.
# A pair from leaf01 that crosses leaf01[19] (to spine01) now.
via=$(jq -r '.paths[] | select(.hops[0].node == "leaf01" and .hops[1].out_port == 19) | "\(.from.lid) \(.to.lid)"' "$D/paths1.json" | head -1)
if [ -z "$via" ]; then
	h001=$(head -1 "$D/lids")
	for t in $(tail -n +19 "$D/lids"); do
		rf "$D/probe.json" --path "$h001" "$t" -j
		[ "$(jq -r '.paths[0].hops[1].out_port' "$D/probe.json")" = 19 ] && { via="$h001 $t"; break; }
	done
fi
fab_check_eq "a CA pair whose route leaves leaf01 by port 19 (to spine01)" 1 "$(echo "$via" | grep -c '^[0-9]* [0-9]*$')"
fab_check "Unlink \"leaf01\"[19]" sim_console 'Unlink "leaf01"[19]'
read -r via_src via_dst <<< "$via"
rerouted() {
	sim_run ibtracert "$via_src" "$via_dst" > "$D/via.tr" 2> /dev/null &&
		grep -q '^\[' "$D/via.tr" && ! grep -q '^\[19\] -> switch port' "$D/via.tr"
}
fab_check_wait "OpenSM re-routed: ibtracert $via no longer leaves leaf01 by port 19" 60 rerouted
sample_pairs "$D/lids" 45 > "$D/pairs2"
echo "$via" >> "$D/pairs2"
rf "$D/paths2.json" --path-file "$D/pairs2" -j
fab_check_eq "after the reroute: no route FAILs but over h100's 1X link" "" \
	"$(jq -r '.paths[] | select(.verdict != "pass") | select([.hops[] | select(.status != "pass") | .detail | startswith("link.degraded: 1X QDR")] | all | not) | "\(.from.name) \(.to.name)"' "$D/paths2.json")"
tracert_all "$D/tr2" "$D/pairs2"
fab_check_eq "after the reroute: --path equals ibtracert on 201 pairs (200 new, and the one that crossed it)" \
	"$(routes_py canon-tracert "$D"/tr2/*)" "$(routes_py canon-json "$D/paths2.json")"
fab_check_eq "no route leaves leaf01 by port 19 now" "" \
	"$(jq -r '.paths[].hops as $h | range(0; ($h | length) - 1) as $i | select($h[$i].node == "leaf01" and $h[$i + 1].out_port == 19) | "x"' "$D/paths2.json")"

### 4. Imbalance: leaf02's up-going LIDs on two of its 18 up-ports, through OpenSM's file engine.
leaf02=$(sw_lid leaf02)
for l in $(sim_run ibswitches | awk '{ for (i = 1; i <= NF; i++) if ($i == "lid") print $(i + 1) }'); do
	sim_run ibroute "$l"
done > "$D/lfts.dump"
fab_check_eq "ibroute of the 54 switches" 54 "$(grep -c '^Unicast lids' "$D/lfts.dump")"
fab_check "routes.py lft-skew: leaf02 sends up only by ports 21 and 22" \
	routes_py lft-skew "$D/lfts.dump" "$D/skew.dump" leaf02 19 36 21 22
fab_check "sim_sm_stop" sim_sm_stop
fab_check "sim_sm_start -R file -U skew.dump" sim_sm_start -R file -U "$D/skew.dump"
skewed() { [ "$(sim_run ibroute "$leaf02" | awk '$2 ~ /^0[0-9][0-9]$/ && $2 + 0 > 18 && $2 + 0 != 21 && $2 + 0 != 22' | grep -c .)" = 0 ]; }
fab_check_wait "OpenSM loaded leaf02's table: up-going LIDs only on ports 21 and 22 (ibroute)" 60 skewed
rf "$D/balance.json" --only route.balance -j
fab_check_eq "route.balance: one WARN, on leaf02, the most-loaded port 21 or 22, exit 0" "0|warn|1|true" \
	"$rf_rc|$(jq -r '[.results[] | .status] | unique | join(",")' "$D/balance.json")|$(jq -r '[.results[] | select(.status == "warn")] | length' "$D/balance.json")|$(jq -r '.results[0].object == "leaf02 port 21" or .results[0].object == "leaf02 port 22"' "$D/balance.json")"
fab_check_eq "... the detail lists its 18 up-ports, 16 of them at 0" 16 \
	"$(jq -r '.results[0].detail' "$D/balance.json" | grep -o 'port [0-9]*: 0\b' | grep -c .)"
fab_check "sim_stop" sim_stop

### Every JSON document of this scenario holds to rdma-fabric's schema.
schema_all "$(basename "$0" .sh)"
