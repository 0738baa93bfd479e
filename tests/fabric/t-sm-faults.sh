#!/bin/bash
# Fabric scenario: the subnet-manager and MAD faults t-fabric.sh cannot make
# in its own fabric.  Two masters: two OpenSMs started with -d0 (each ignores
# the other, as two SMs that cannot elect would), sm.master FAILs naming both
# LIDs, and --sm agrees with sminfo (oracle_sms).  A master below a standby's
# priority: the master started with -d0 never hands over, sm.master WARNs.  PortInfo lost: ibsim drops
# only h005's PortInfo answers (console "Error ... 21"): the node is found
# without a usable port (node.answer or id.lid names it) and the sweep ends.
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
"$GEN_NET" small > "$D/small.net"
fab_check "sim up" sim_start "$D/sim" "$D/small.net" || exit 1
sock=$SIM_SOCK
fab_check "OpenSM 1 (-d0, priority 0) on h001: master" sim_sm_start -d0 || exit 1
fab_check_eq "its state" master "$SIM_SM_STATE"
SIM_HOST=login01 fab_check "OpenSM 2 (-d0, priority 5) on login01" sim_sm_start -d0 -p 5
fab_check_eq "it is master too" master "$SIM_SM_STATE"
fab_check "rdma-fabric --sm -j" fab_save "$D/sm.json" sim_run "$B/rdma-fabric" --sm -j
fab_check "oracle_sms" fab_save "$D/sm.oracle" oracle_sms
fab_check_eq "--sm equals sminfo: two masters, LIDs, GUIDs, priorities" "$(cat "$D/sm.oracle")" \
	"$(jq -r '.sms[] | "\(.lid) \(.guid) \(.priority) \(.state)"' "$D/sm.json" | LC_ALL=C sort)"
sim_run "$B/rdma-fabric" --only sm.master -j > "$D/two.json"
fab_check_eq "sm.master: one FAIL, '2 masters (LID 1, LID 12)', no priority WARN beside it" \
	"fail|2 masters (LID 1, LID 12)" \
	"$(jq -r '.results[] | select(.status != "pass") | "\(.status)|\(.detail | split(":")[0])"' "$D/two.json")"
fab_check "stop both SMs" sim_sm_stop all

# The master not the highest priority: OpenSM 1 (-d0: it ignores other SMs,
# so it never hands over) is master at priority 0; OpenSM 2 of priority 5
# finds a master while it discovers and joins as standby.  sm.master WARNs
# naming both priorities, and --sm agrees with sminfo.
fab_check "OpenSM 1 (-d0, priority 0) on h001 again: master" sim_sm_start -d0 || exit 1
SIM_HOST=login01 fab_check "OpenSM 2 (priority 5) on login01" sim_sm_start -p 5
fab_check_eq "it is standby" standby "$SIM_SM_STATE"
fab_check "rdma-fabric --sm -j" fab_save "$D/prio.json" sim_run "$B/rdma-fabric" --sm -j
fab_check "oracle_sms" fab_save "$D/prio.oracle" oracle_sms
fab_check_eq "--sm equals sminfo: a master of priority 0, a standby of 5" "$(cat "$D/prio.oracle")" \
	"$(jq -r '.sms[] | "\(.lid) \(.guid) \(.priority) \(.state)"' "$D/prio.json" | LC_ALL=C sort)"
fab_check_eq "sminfo itself: one master (0), one standby (5)" "0 master|5 standby" \
	"$(cut -d' ' -f3,4 "$D/prio.oracle" | LC_ALL=C sort | paste -sd'|')"
sim_run "$B/rdma-fabric" --only sm.master -j > "$D/prio2.json"
fab_check_eq "sm.master: exit 0, one WARN: the master's priority 0 below the standby's 5, with the fix" \
	"0|warn|the master has priority 0, but the SM at LID 12 has priority 5 and is standby|yes" \
	"$?|$(jq -r '.results[] | select(.status != "pass") | "\(.status)|\(.detail)|\(.fix | test("hand over.*ignore_other_sm") | if . then "yes" else "no" end)"' "$D/prio2.json")"
fab_check_eq "sm.master's WARN names the master in -j as in its text: h001's node GUID, port 1, host h001" \
	"SM at LID 1 (h001 mlx5_0 port 1)|$(oracle_guid 'h001 mlx5_0')|1|h001" \
	"$(jq -r '.results[] | select(.status == "warn") | "\(.object)|\(.guid)|\(.port)|\(.host)"' "$D/prio2.json")"
fab_check "stop both SMs" sim_sm_stop all

fab_check "OpenSM again, alone" sim_sm_start || exit 1
fab_check 'Error "h005"[1] 100 21: h005 drops every PortInfo' sim_console 'Error "h005"[1] 100 21'
t0=$SECONDS
sim_run "$B/rdma-fabric" -j > "$D/pi.json" 2> "$D/pi.err"
fab_check_eq "the sweep ends with a verdict (exit 1) in bounded time" "1 yes" \
	"$? $([ $((SECONDS - t0)) -lt 60 ] && echo yes)"
fab_check_grep "h005 is named: a node without PortInfo, or a port without a LID" \
	"h005 mlx5_0" jq -r '.results[] | select(.status == "fail") | "\(.check) \(.object) \(.detail)"' "$D/pi.json"
fab_log "PortInfo lost: $(jq -c '[.results[] | select(.status == "fail" or .status == "warn") | [.check, .object, .detail]]' "$D/pi.json")"
fab_check "Error \"h005\"[1] 0: back" sim_console 'Error "h005"[1] 0'

sim_stop
fab_check_eq "nothing left running" "" "$(sim_leftovers "$sock" 2> /dev/null || true)"
