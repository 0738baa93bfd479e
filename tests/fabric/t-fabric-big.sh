#!/bin/bash
# Fabric scenario: rdma-fabric on the 648-HCA fat tree (gen-net.sh fattree:
# 36 leaves, 18 spines, 702 nodes), with h100's link written 1X and h200's
# SDR. The sweep finishes, --links agrees with oracle_links exactly (every
# port of the 2,592), the summary counts 702 nodes, and exactly those two
# links FAIL link.degraded: no link here is below what both ends enable
# but for them, so this is the "usual rate" rule (most HCA links run 4X QDR).
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
net=$D/fattree.net
"$GEN_NET" fattree 648 --1x h100 --sdr h200 > "$net"

fab_check "sim_start: ibsim ready on the fat tree" sim_start "$D/sim" "$net" || exit 1
fab_check "sim_sm_start: OpenSM reaches SUBNET UP" sim_sm_start || exit 1

secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
t0=$EPOCHREALTIME
sim_run "$B/rdma-fabric" -j > "$D/fabric.json" 2> "$D/fabric.err"
rc=$?
fab_log "rdma-fabric -j: $(secs "$t0") s"
fab_check_eq "rdma-fabric -j: finishes, exit 1 (two degraded links)" 1 "$rc"
fab_check_eq "summary: 702 nodes (54 switches, 648 CAs), verdict fail" "702 54 648 fail" \
	"$(jq -r '"\(.summary.nodes) \(.summary.switches) \(.summary.cas) \(.verdict)"' "$D/fabric.json")"
fab_check_eq "exactly two FAILs, link.degraded of h100's 1X link (leaf06[10]) and h200's SDR link (leaf12[2])" \
	"link.degraded|leaf06 port 10 <-> h100 mlx5_0 port 1|h100|1X QDR"$'\n'"link.degraded|leaf12 port 2 <-> h200 mlx5_0 port 1|h200|4X SDR" \
	"$(jq -r '.results[] | select(.status == "fail") | "\(.check)|\(.object)|\(.host // "-")|\(.detail | split(" where")[0])"' "$D/fabric.json" | sort)"
fab_check_eq "the rule is the fabric's usual rate: 'where 646 of this fabric's 648 HCA links run 4X QDR'" "2" \
	"$(jq -r '.results[] | select(.status == "fail") | .detail' "$D/fabric.json" | grep -c "where 646 of this fabric's 648 HCA links run 4X QDR$")"
fab_check_eq "no WARN but route.degraded on those two links" "route.degraded leaf06 port 10 <-> h100 mlx5_0 port 1"$'\n'"route.degraded leaf12 port 2 <-> h200 mlx5_0 port 1" \
	"$(jq -r '.results[] | select(.status == "warn") | "\(.check) \(.object)"' "$D/fabric.json" | sort)"

t0=$EPOCHREALTIME
sim_run "$B/rdma-fabric" --links -j > "$D/links.json" 2> "$D/links.err"
rc=$?
fab_log "rdma-fabric --links -j: $(secs "$t0") s"
fab_check_eq "--links -j: exit 0" 0 "$rc"
fab_check "oracle_links" fab_save "$D/links.oracle" oracle_links
# No port is excluded: the fat tree has no uncabled CA port.
fab_check_eq "--links -j, as canonical lines, equals oracle_links (2,592 ports)" \
	"$(cat "$D/links.oracle")" \
	"$(jq -r '.ports[] | "\(.guid) \(.port) \(.state | ascii_downcase | (.[0:1] | ascii_upcase) + .[1:]) \(.phys_state) \(.width // "-") \(.speed // "-") \(.peer_guid // "-") \(.peer_port // "-")"' "$D/links.json" | LC_ALL=C sort)"
fab_check_eq "oracle_links has 2,592 lines" 2592 "$(grep -c . "$D/links.oracle")"

# --dot: the whole fabric as a Graphviz graph that dot(1) lays out, each link
# one edge, exactly the two bad links red.
sim_run "$B/rdma-fabric" --only link.degraded --dot "$D/fabric.dot" --nhc > /dev/null 2>&1
fab_check "dot -Tplain lays out --dot's graph" fab_save "$D/fabric.plain" dot -Tplain "$D/fabric.dot"
fab_check_eq "--dot: 702 nodes, 1,296 edges (every link once)" "702 1296" \
	"$(grep -c '^node ' "$D/fabric.plain") $(grep -c '^edge ' "$D/fabric.plain")"
fab_check_eq "--dot: the two degraded links red, and no other" \
	"\"10:1 1X QDR\" red"$'\n'"\"2:1 4X SDR\" red" \
	"$(awk '$1 == "edge" && $NF == "red"' "$D/fabric.plain" | sed -E 's/.*("[^"]*").* ([a-z]+)$/\1 \2/' | sort)"

sock=$SIM_SOCK
fab_check "sim_stop" sim_stop
fab_check "pgrep: no ibsim or opensm with this run's IBSIM_SOCKNAME" sim_leftovers "$sock"
