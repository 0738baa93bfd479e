#!/bin/bash
# Fabric scenario: the 648-HCA two-level fat tree of 36-port switches
# (gen-net.sh fattree: 36 leaves, 18 spines), with h100's link written 1X
# and h200's SDR. ibsim starts, one OpenSM brings the subnet up, and the
# oracle sees all 2,592 ports Active: 4X QDR but for the two degraded links,
# seen from both ends, every link listed from both ends alike. The times of
# ibsim's start, OpenSM's SUBNET UP, iblinkinfo and oracle_links are logged
# ("# ..." lines; tests/fabric/README.md keeps the figures).
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
net=$D/fattree.net
"$GEN_NET" fattree 648 --1x h100 --sdr h200 > "$net"
fab_check_eq "gen-net.sh fattree: 648 HCAs, 54 switches" "648 54" \
	"$(grep -c '^Hca' "$net") $(grep -c '^Switch' "$net")"

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
t0=$EPOCHREALTIME
fab_check "sim_start: ibsim ready on the fat tree" sim_start "$D/sim" "$net" || exit 1
t1=$EPOCHREALTIME
fab_check "sim_sm_start: OpenSM reaches SUBNET UP" sim_sm_start || exit 1
t2=$EPOCHREALTIME
fab_check "iblinkinfo -l" fab_save "$D/iblinkinfo.txt" sim_run iblinkinfo -l
t3=$EPOCHREALTIME
fab_check "oracle_links" fab_save "$D/links.txt" oracle_links
t4=$EPOCHREALTIME
fab_log "ibsim ready in $(secs "$t0" "$t1") s, OpenSM SUBNET UP $(secs "$t1" "$t2") s later," \
	"iblinkinfo -l $(secs "$t2" "$t3") s, oracle_links $(secs "$t3" "$t4") s"

L=$D/links.txt
fab_check "oracle_nodes" fab_save "$D/nodes.txt" oracle_nodes
fab_check_eq "oracle_nodes: 54 switches and 648 HCAs" "54 648" \
	"$(grep -c ' Switch ' "$D/nodes.txt") $(grep -c ' CA ' "$D/nodes.txt")"
fab_check_eq "oracle_links: 2,592 ports (54 x 36 switch ports, 648 HCA ports), one line each" \
	"2592 2592" "$(grep -c . "$L") $(cut -d' ' -f1,2 "$L" | sort -u | grep -c .)"
fab_check_eq "every port Active/LinkUp (no port of this tree is uncabled)" 2592 "$(grep -c ' Active LinkUp ' "$L")"
h100=$(grep ' h100 mlx5_0$' "$D/nodes.txt" | cut -d' ' -f1)
h200=$(grep ' h200 mlx5_0$' "$D/nodes.txt" | cut -d' ' -f1)
leaf06=$(grep ' leaf06$' "$D/nodes.txt" | cut -d' ' -f1)
leaf12=$(grep ' leaf12$' "$D/nodes.txt" | cut -d' ' -f1)
fab_check_eq "h100's link (leaf06[10]) is 1X QDR, from both ends" \
	"$h100 1 Active LinkUp 1X QDR $leaf06 10"$'\n'"$leaf06 10 Active LinkUp 1X QDR $h100 1" \
	"$(grep ' 1X ' "$L")"
fab_check_eq "h200's link (leaf12[2]) is 4X SDR, from both ends" \
	"$h200 1 Active LinkUp 4X SDR $leaf12 2"$'\n'"$leaf12 2 Active LinkUp 4X SDR $h200 1" \
	"$(grep ' SDR ' "$L")"
fab_check_eq "the 2,588 other ports are 4X QDR" 2588 "$(grep -c ' 4X QDR ' "$L")"
spine07=$(grep ' spine07$' "$D/nodes.txt" | cut -d' ' -f1)
fab_check_eq "leaf12[25] goes to spine07[12]" "$spine07 12" \
	"$(grep "^$leaf12 25 " "$L" | cut -d' ' -f7,8)"
fab_check_eq "every link is listed from both ends, alike" "" "$(fab_links_asym "$L" | head -5)"

sock=$SIM_SOCK
fab_check "sim_stop" sim_stop
fab_check "pgrep: no ibsim or opensm with this run's IBSIM_SOCKNAME" sim_leftovers "$sock"
