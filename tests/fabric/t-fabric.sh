#!/bin/bash
# Fabric scenario: rdma-fabric proven on the small fabric (gen-net.sh small,
# h005's link written 1X and h006's SDR), every check driven by a real fault
# and infiniband-diags as the oracle: --links, --errors and --sm agree with
# oracle_links, oracle_counters and oracle_sms; the healthy fabric has only
# the two link.degraded FAILs (--nhc, --expect-rate, --skip); the master's
# port moved to another LID drives sm.lid; PerformanceSet drives port.errors
# (WARN, FAIL when rising over --interval), port.xmitwait and --errors'
# delta; an unlinked HCA leaves discovery and comes back after ReLink; ibsim
# dropping every MAD of an HCA drives node.answer; bad device, short
# timeouts; --save/--load round trip, byte-equal to ibnetdiscover --cache,
# --save refusing a symlink and a FIFO; a second SM (OpenSM hands over to
# it), no SM (sm.master); with the SM stopped, a duplicate LID (id.lid), an
# HCA given another's GUID, one given the GUID of the node the sweep runs
# from, and a switch given another's (libibnetdisc merges the two without a
# word): id.guid names every position where the GUID answers and nothing
# else, and the links are the oracle's but for the copy's position.
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
net=$D/small.net
"$GEN_NET" small --1x h005 --sdr h006 > "$net"

fab_check "sim_start: ibsim ready on the small fabric" sim_start "$D/sim" "$net" || exit 1
fab_check "sim_sm_start: OpenSM (h001, priority 0) reaches SUBNET UP" sim_sm_start || exit 1

# rf OUT ARGS...: rdma-fabric ARGS under the fabric, stdout in OUT, stderr
# in OUT.err, its status in rf_rc, its time in rf_secs.
rf_rc=0 rf_secs=0
rf() {
	local out=$1 t0
	shift
	t0=$EPOCHREALTIME
	sim_run "$B/rdma-fabric" "$@" > "$out" 2> "$out.err"
	rf_rc=$?
	rf_secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a + 0.999 }')
}
# The FAIL (or STATUS) results of a default -j view: "check|object|host" lines.
fails() {
	jq -r --arg s "${2:-fail}" '.results[] | select(.status == $s) |
		"\(.check)|\(.object)|\(.host // "-")"' "$1" | sort
}
# One check's results: "status|object|detail" lines.
results_of() {
	jq -r --arg c "$2" '.results[] | select(.check == $c) | "\(.status)|\(.object)|\(.detail)"' "$1"
}
# --links -j as oracle_links' canonical lines (JSON's state "ACTIVE" is iblinkinfo's "Active").
links_canon() {
	jq -r '.ports[] | "\(.guid) \(.port) \(.state | ascii_downcase | (.[0:1] | ascii_upcase) + .[1:]) \(.phys_state) \(.width // "-") \(.speed // "-") \(.peer_guid // "-") \(.peer_port // "-")"' "$1" |
		LC_ALL=C sort
}

leaf01=$(oracle_guid leaf01) leaf02=$(oracle_guid leaf02) h001=$(oracle_guid 'h001 mlx5_0')
h002=$(oracle_guid 'h002 mlx5_0') h003=$(oracle_guid 'h003 mlx5_0') h004=$(oracle_guid 'h004 mlx5_0')
h005=$(oracle_guid 'h005 mlx5_0') h006=$(oracle_guid 'h006 mlx5_0')

### 1. Oracle agreement: links, SMs.
fab_check "oracle_links" fab_save "$D/links.oracle" oracle_links
rf "$D/links.json" --links -j
fab_check_eq "rdma-fabric --links -j: exit 0" 0 "$rf_rc"
# The same set of ports: every switch port and every cabled CA port. The
# small fabric has no uncabled CA port (each HCA has one, cabled), so
# nothing is excluded from either side.
fab_check_eq "--links -j, in oracle_links' canonical lines, equals oracle_links (31 ports)" \
	"$(cat "$D/links.oracle")" "$(links_canon "$D/links.json")"
# could_be is the best both ends *enable* when the link runs below it;
# gen-net.sh writes w=1 / s=1 on both ends of the degraded links, so none
# could be more and no port has could_be (the usual-rate rule catches them).
fab_check_eq "--links -j: no port has could_be (the degraded links' ends enable only 1X / SDR)" "" \
	"$(jq -r '.ports[] | select(.could_be != null) | "\(.guid) \(.port) \(.could_be)"' "$D/links.json")"
fab_check "oracle_sms" fab_save "$D/sms.oracle" oracle_sms
rf "$D/sm.json" --sm -j
fab_check_eq "--sm -j agrees with oracle_sms (LID GUID priority state)" \
	"$(cat "$D/sms.oracle")" "$(jq -r '.sms[] | "\(.lid) \(.guid) \(.priority) \(.state)"' "$D/sm.json" | sort -n)"

### 2. The healthy fabric, but for its two degraded links.
rf "$D/base.json" -j
fab_check_eq "baseline: exit status 1 (a FAIL)" 1 "$rf_rc"
fab_check_eq "baseline: the FAILs are exactly link.degraded of the 1X (h005) and SDR (h006) links" \
	"link.degraded|leaf02 port 1 <-> h005 mlx5_0 port 1|h005"$'\n'"link.degraded|leaf02 port 2 <-> h006 mlx5_0 port 1|h006" \
	"$(fails "$D/base.json")"
# route.degraded ranks those two links by the routes that cross them: each
# HCA link carries its HCA's routes both ways, 2 x 8 of the 9 x 8 CA-to-CA routes.
fab_check_eq "baseline: the WARNs are route.degraded on those two links only, 16 of the 72 routes each" \
	"route.degraded|leaf02 port 1 <-> h005 mlx5_0 port 1|h005|16 of the 72"$'\n'"route.degraded|leaf02 port 2 <-> h006 mlx5_0 port 1|h006|16 of the 72" \
	"$(jq -r '.results[] | select(.status == "warn") | "\(.check)|\(.object)|\(.host // "-")|\(.detail | split(" CA-to-CA")[0])"' "$D/base.json" | sort)"
fab_check_eq "baseline: verdict fail, 12 nodes (3 switches, 9 CAs), 15 links" "fail 12 3 9 15" \
	"$(jq -r '"\(.verdict) \(.summary.nodes) \(.summary.switches) \(.summary.cas) \(.summary.links)"' "$D/base.json")"
fab_check_eq "baseline: the degraded links' GUIDs and ports (leaf02[1]<->h005[1], leaf02[2]<->h006[1])" \
	"$leaf02 1 $h005 1|$leaf02 2 $h006 1" \
	"$(jq -r '.results[] | select(.status == "fail") | "\(.guid) \(.port) \(.peer_guid) \(.peer_port)"' "$D/base.json" | sort | paste -sd'|')"
fab_check_eq "baseline: the 1X link's fix says lanes are missing, the SDR link's that it trained slow" \
	"1X QDR where|lanes are missing"$'\n'"4X SDR where|the link trained slow" \
	"$(jq -r '.results[] | select(.status == "fail") | "\(.detail | .[0:12])|\(.fix | split(":")[0])"' "$D/base.json" | sort)"
rf "$D/nhc.txt" --nhc
fab_check_eq "--nhc: exit 1" 1 "$rf_rc"
fab_check_eq "--nhc: one line, ERROR naming link.degraded (and the other failure)" "1|1" \
	"$(grep -c . "$D/nhc.txt")|$(grep -c '^ERROR: rdma-fabric: link\.degraded: .*(and 1 more failure)$' "$D/nhc.txt")"
rf "$D/rate.json" --expect-rate 4xQDR -j
fab_check_eq "--expect-rate 4xQDR: exit 1, still only the two link.degraded FAILs" \
	"1|link.degraded|leaf02 port 1 <-> h005 mlx5_0 port 1|h005"$'\n'"link.degraded|leaf02 port 2 <-> h006 mlx5_0 port 1|h006" \
	"$rf_rc|$(fails "$D/rate.json")"
rf "$D/skip.txt" --skip link.degraded,route.degraded --nhc
fab_check_eq "--skip link.degraded,route.degraded --nhc: exit 0, no output" "0|" "$rf_rc|$(cat "$D/skip.txt")"
rf "$D/skip.json" --skip link.degraded,route.degraded -j
fab_check_eq "--skip link.degraded,route.degraded -j: exit 0, verdict pass" "0|pass" "$rf_rc|$(jq -r .verdict "$D/skip.json")"
fab_check_eq "sm.master PASS with one master (h001's SM)" "pass" \
	"$(jq -r '.results[] | select(.check == "sm.master") | .status' "$D/base.json")"

### 7a. The ports' SMLid does not name the master: the master's own port
# (h001, LID 1) moved to LID 40 behind OpenSM's back; every port still names
# LID 1 as its SM. OpenSM repairs it at its next sweep (~10 s), so the
# fault is set again if a sweep came between it and rdma-fabric.
smlid_fault() {
	sim_console 'Baselid "h001"[1] 40' > /dev/null || return 1
	rf "$D/smlid.json" -j
	[ "$(jq -r '[.results[] | select(.check == "sm.lid" and .status == "fail")] | length' "$D/smlid.json")" = 12 ]
}
fab_check_wait "master's port moved to LID 40: sm.lid FAILs on all 12 ports (switch port 0, HCA port 1)" 30 smlid_fault
fab_check_eq "sm.lid: each FAIL says its SMLid is 1 where no SM answers, the master is LID 40" 12 \
	"$(jq -r '.results[] | select(.check == "sm.lid" and .status == "fail") | .detail' "$D/smlid.json" |
		grep -c '^its SMLid is 1, where no SM answers; the master is LID 40$')"
fab_check_eq "sm.lid: the FAILs name leaf01/leaf02/spine01 port 0 and h002's port 1 among them" 4 \
	"$(jq -r '.results[] | select(.check == "sm.lid" and .status == "fail") | .object' "$D/smlid.json" |
		grep -Ecx 'leaf01 port 0|leaf02 port 0|spine01 port 0|h002 mlx5_0 port 1')"
rf "$D/smlid-sm.json" --sm -j
fab_check_eq "--sm -j: the master at LID 40 (h001), LID 1 'no answer'" "1 no answer|40 master h001 mlx5_0" \
	"$(jq -r '.sms[] | "\(.lid) \(.state)\(if .state == "master" then " " + .node else "" end)"' "$D/smlid-sm.json" | sort | paste -sd'|')"
fab_check "Baselid \"h001\"[1] 1 (back)" sim_console 'Baselid "h001"[1] 1'
# Answers relayed towards the unroutable LID 40 counted PortRcvSwitchRelayErrors
# on the way: clear every port's counters, as an admin would after a repair
# (rdma-fabric --reset), and the oracle sees every counter at 0.
fab_check "rdma-fabric --reset" fab_save "$D/reset.txt" sim_run "$B/rdma-fabric" --only port.errors --reset
fab_check_grep "--reset: says how many ports it cleared" '^counters cleared on [0-9]+ ports after this reading' cat "$D/reset.txt"
fab_check_eq "after --reset, oracle_counters: every counter 0" "" "$(oracle_counters | awk '$4 != 0')"
clean_again() {
	rf "$D/poll.json" -j
	[ "$(fails "$D/poll.json" | grep -vc '^link\.degraded|')" = 0 ] &&
		[ "$(fails "$D/poll.json" warn | grep -vc '^route\.degraded|')" = 0 ]
}
fab_check_wait "and the fabric is clean again (only the link.degraded FAILs, no WARN but their route.degraded)" 30 clean_again

### 4. Error counters (first: no link moved yet, so all else is 0).
fab_check 'PerformanceSet "leaf01"[2] SymbolErrorCounter=250' \
	sim_console 'PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=250'
fab_check 'PerformanceSet "leaf02"[4] PortXmitWait=5000' \
	sim_console 'PerformanceSet "leaf02"[4] PortCounters.PortXmitWait=5000'
fab_check 'PerformanceSet "spine01"[2] LinkDownedCounter=3' \
	sim_console 'PerformanceSet "spine01"[2] PortCounters.LinkDownedCounter=3'
fab_check 'PerformanceSet "h007"[1] PortRcvErrors=17' \
	sim_console 'PerformanceSet "h007"[1] PortCounters.PortRcvErrors=17'
fab_check 'PerformanceSet "leaf02"[6] PortXmitDiscards=9' \
	sim_console 'PerformanceSet "leaf02"[6] PortCounters.PortXmitDiscards=9'
fab_check "oracle_counters" fab_save "$D/counters.oracle" oracle_counters
rf "$D/errors.json" --errors -j
fab_check_eq "--errors -j: exit 0" 0 "$rf_rc"
# The counters both report: every error counter of PortCounters and
# PortXmitWait (rdma-fabric's man page), the same 13 as oracle_counters.
# (The SMLid fault above left PortRcvSwitchRelayErrors=6 on the ports that
# relayed answers to the unroutable LID 40: both must show it.)
RF_COUNTERS=" SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors PortRcvRemotePhysicalErrors PortRcvSwitchRelayErrors PortXmitDiscards PortXmitConstraintErrors PortRcvConstraintErrors LocalLinkIntegrityErrors ExcessiveBufferOverrunErrors VL15Dropped PortXmitWait "
fab_check_eq "--errors -j lists exactly oracle_counters' nonzero counters of those rdma-fabric reads (the 5 set)" \
	"$(awk -v c="$RF_COUNTERS" '$4 != 0 && index(c, " " $3 " ")' "$D/counters.oracle")" \
	"$(jq -r '.errors[] | "\(.guid) \(.port) \(.counter) \(.value)"' "$D/errors.json" | LC_ALL=C sort)"
fab_check_eq "--errors -j: the 5 counters set, by name" \
	"$leaf01 2 SymbolErrorCounter 250|$leaf02 4 PortXmitWait 5000|$leaf02 6 PortXmitDiscards 9" \
	"$(jq -r '.errors[] | "\(.guid) \(.port) \(.counter) \(.value)"' "$D/errors.json" | grep -E '^0x00000000002000(01|02) ' |
		grep -E ' (SymbolErrorCounter|PortXmitWait|PortXmitDiscards) ' | LC_ALL=C sort | paste -sd'|')"
fab_log "oracle_counters' nonzero counters rdma-fabric does not read: $(awk -v c="$RF_COUNTERS" '$4 != 0 && !index(c, " " $3 " ") { print $3 }' "$D/counters.oracle" | sort | uniq -c | paste -sd, )"
rf "$D/cnt.json" -j
fab_check_eq "SymbolErrorCounter on leaf01[2]: port.errors WARN naming the link leaf01[2] <-> h002" \
	"warn|leaf01 port 2 <-> h002 mlx5_0 port 1|SymbolErrorCounter=250" \
	"$(results_of "$D/cnt.json" port.errors | grep 'leaf01 port 2 ')"
fab_check_eq "PortXmitWait on leaf02[4]: port.xmitwait WARN (leaf02[4] <-> h008), not port.errors" \
	"warn|leaf02 port 4 <-> h008 mlx5_0 port 1|PortXmitWait=5000|" \
	"$(results_of "$D/cnt.json" port.xmitwait)|$(results_of "$D/cnt.json" port.errors | grep 'leaf02 port 4 ')"
fab_check_eq "port.errors: one WARN on each of the 4 error counters set (and no FAIL)" \
	"4 warn" "$(results_of "$D/cnt.json" port.errors | cut -d'|' -f1 | sort | uniq -c | awk '{ print $1, $2 }' | paste -sd,)"
# Rising: the counter goes 250 -> 400 between --interval's two readings.
(rf "$D/rise.json" --only port.errors --interval 2 -j; echo "$rf_rc" > "$D/rise.rc") &
rise=$!
sleep 1
fab_check 'while it waits: PerformanceSet "leaf01"[2] SymbolErrorCounter=400' \
	sim_console 'PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=400'
wait "$rise"
fab_check_eq "--interval 2: exit 1, port.errors FAIL on leaf01[2] with '+150 in 2 s'" \
	"1|fail|leaf01 port 2 <-> h002 mlx5_0 port 1|yes" \
	"$(cat "$D/rise.rc")|$(results_of "$D/rise.json" port.errors | grep 'leaf01 port 2 ' | cut -d'|' -f1,2)|$(results_of "$D/rise.json" port.errors | grep 'leaf01 port 2 ' | grep -q '+150 in 2 s' && echo yes)"
fab_check_eq "--interval 2: the counters that did not move stay WARN" "3" \
	"$(results_of "$D/rise.json" port.errors | grep -c '^warn|')"
# --errors --interval: the rise of each counter in delta.
(rf "$D/errdelta.json" --errors --interval 2 -j; echo "$rf_rc" > "$D/errdelta.rc") &
rise=$!
sleep 1
fab_check 'while it waits: PerformanceSet "leaf02"[6] PortXmitDiscards=20' \
	sim_console 'PerformanceSet "leaf02"[6] PortCounters.PortXmitDiscards=20'
wait "$rise"
fab_check_eq "--errors --interval 2 -j: exit 0, leaf02[6] PortXmitDiscards 20 delta 11, leaf01[2] SymbolErrorCounter 400 delta 0" \
	"0|$leaf02 6 PortXmitDiscards 20 11|$leaf01 2 SymbolErrorCounter 400 0" \
	"$(cat "$D/errdelta.rc")|$(jq -r '.errors[] | "\(.guid) \(.port) \(.counter) \(.value) \(.delta)"' "$D/errdelta.json" | grep -E ' (PortXmitDiscards|SymbolErrorCounter) ' | sort -r | paste -sd'|')"
fab_check_eq "--errors: host is named for an HCA's port (h007's PortRcvErrors), absent for a switch's" \
	"h007|-" \
	"$(jq -r '.errors[] | select(.counter == "PortRcvErrors") | .host // "-"' "$D/errdelta.json")|$(jq -r '.errors[] | select(.counter == "PortXmitWait") | .host // "-"' "$D/errdelta.json")"
for pc in 'leaf01"[2] PortCounters.SymbolErrorCounter' 'leaf02"[4] PortCounters.PortXmitWait' \
	'spine01"[2] PortCounters.LinkDownedCounter' 'h007"[1] PortCounters.PortRcvErrors' \
	'leaf02"[6] PortCounters.PortXmitDiscards'; do
	sim_console "PerformanceSet \"$pc=0" > /dev/null
done
rf "$D/errors0.json" --errors -j
fab_check_eq "counters set back to 0: --errors lists none" "0" "$(jq '.errors | length' "$D/errors0.json")"

### 3. A link down: h002's cable pulled, then put back.
nodes_are() { rf "$D/poll.json" -j && :; [ "$(jq -r .summary.nodes "$D/poll.json" 2> /dev/null)" = "$1" ]; }
fab_check 'Unlink "leaf01"[2] (h002)' sim_console 'Unlink "leaf01"[2]'
fab_check_wait "after Unlink: 11 nodes discovered (h002 gone)" 30 nodes_are 11
rf "$D/unlinked.json" --links -j
fab_check_eq "after Unlink: h002 is in no line of --links, leaf01[2] Down" \
	"0|leaf01 2 DOWN Polling" \
	"$(grep -c "$h002" "$D/unlinked.json")|$(jq -r --arg g "$leaf01" '.ports[] | select(.guid == $g and .port == 2) | "\(.node) \(.port) \(.state) \(.phys_state)"' "$D/unlinked.json")"
fab_check 'ReLink "leaf01"[2]' sim_console 'ReLink "leaf01"[2]'
h002_active() {
	rf "$D/poll.json" --links -j
	[ "$(jq -r --arg g "$h002" '.ports[] | select(.guid == $g) | "\(.state) \(.width) \(.speed) \(.peer)"' "$D/poll.json")" = "ACTIVE 4X QDR leaf01" ]
}
fab_check_wait "after ReLink and OpenSM's sweep: h002 Active 4X QDR to leaf01 again" 30 h002_active
fab_check_wait "and 12 nodes again" 10 nodes_are 12

### 5. MAD loss: ibsim drops every MAD to h003.
fab_check 'Error "h003"[1] 100 (every MAD lost)' sim_console 'Error "h003"[1] 100'
SIM_RUN_TIMEOUT=60 rf "$D/loss.json" -j
fab_check_eq "MAD loss: rdma-fabric finishes (not killed by the 60 s timeout), exit 1" 1 "$rf_rc"
fab_check_eq "MAD loss: within 30 s" yes "$([ "$rf_secs" -le 30 ] && echo yes || echo "no ($rf_secs s)")"
fab_check_eq "MAD loss: node.answer FAIL naming leaf01 port 3 (h003's switch port)" "1" \
	"$(jq -r '.results[] | select(.check == "node.answer" and .status == "fail") | .object' "$D/loss.json" | grep -c '^leaf01 port 3')"
fab_check_eq "MAD loss: that FAIL's guid/port is leaf01[3]" "$leaf01 3" \
	"$(jq -r '.results[] | select(.check == "node.answer" and .status == "fail") | "\(.guid) \(.port)"' "$D/loss.json" | head -1)"
fab_check_eq "MAD loss: 11 nodes (h003 not discovered)" 11 "$(jq -r .summary.nodes "$D/loss.json")"
fab_check 'Error "h003"[1] 0 (cleared)' sim_console 'Error "h003"[1] 0'
rf "$D/noloss.json" -j
fab_check_eq "MAD loss cleared: 12 nodes, node.answer PASS" "12 pass" \
	"$(jq -r '"\(.summary.nodes) \(.results[] | select(.check == "node.answer") | .status)"' "$D/noloss.json")"

### 8. Bad conditions.
rf "$D/nodev.txt" -d nosuch
fab_check_eq "-d nosuch: exit 1" 1 "$rf_rc"
fab_check_eq "-d nosuch: 'no such device (known: ibsim0)'" 1 \
	"$(cat "$D/nodev.txt" "$D/nodev.txt.err" | grep -c 'no such device (known: ibsim0)')"
# Either the sweep gets far enough for a verdict, or the first SMP's answer (the
# port's own NodeInfo) came after 1 ms, and it says so on one line. Never killed.
SIM_RUN_TIMEOUT=60 rf "$D/short.json" --timeout 1ms --retries 0 -j
short_outcome() {
	case $rf_rc in
	0 | 1) ;;
	*) echo "exit $rf_rc"; return ;;
	esac
	if jq -e .verdict "$D/short.json" > /dev/null 2>&1; then
		echo "a verdict"
	elif [ "$rf_rc" = 1 ] && [ ! -s "$D/short.json" ] && [ "$(grep -c '^rdma-fabric: ' "$D/short.json.err")" = 1 ] &&
		grep -q '^rdma-fabric: ibsim0 port 1: discovery failed' "$D/short.json.err"; then
		echo "a verdict"	# of the other kind: exit 1, "discovery failed", no output
	else
		echo "exit $rf_rc, no verdict: $(head -c 300 "$D/short.json" "$D/short.json.err")"
	fi
}
fab_check_eq "--timeout 1ms --retries 0: finishes with a verdict (exit 0 or 1), or exit 1 'discovery failed'" \
	"a verdict" "$(short_outcome)"

### 9. --save / --load.
F=$D/saved.cache G=$D/ibnd.cache
rf "$D/save.txt" --save "$F"
fab_check_eq "--save: exit 1 (the degraded links FAIL), file written" "1 yes" "$rf_rc $([ -s "$F" ] && echo yes)"
rf "$D/live.json" --links -j
rf "$D/loaded.json" --load "$F" --links -j
fab_check_eq "--load F --links -j: exit 0" 0 "$rf_rc"
fab_check_eq "--load F --links -j equals the live --links -j" "$(jq -S . "$D/live.json")" "$(jq -S . "$D/loaded.json")"
fab_check "ibnetdiscover --cache G" fab_save "$D/ibnd.txt" sim_run ibnetdiscover --cache "$G"
fab_check "cmp F G: --save writes ibnetdiscover's cache byte for byte, then its forwarding tables" \
	cmp -n "$(stat -c %s "$G")" "$F" "$G"
fab_check_eq "--save: after the cache, the section RDLFTv1 with the 3 switches' tables" "RDLFTv1|3" \
	"$(tail -c +$(( $(stat -c %s "$G") + 1 )) "$F" | head -c 7)|$(tail -c +$(( $(stat -c %s "$G") + 9 )) "$F" | od -An -tu4 -N4 | tr -d ' ')"
fab_check_grep "iblinkinfo --load-cache F reads it (leaf02 port 1 1X)" '1X' sim_run iblinkinfo --load-cache "$F"
echo keep > "$D/target"
ln -s "$D/target" "$D/link"
rf "$D/savelink.txt" --save "$D/link"
fab_check_eq "--save onto a symlink: exit 1, link and target untouched" "1|keep|link" \
	"$rf_rc|$(cat "$D/target")|$([ -L "$D/link" ] && echo link)"
mkfifo "$D/fifo"
SIM_RUN_TIMEOUT=30 rf "$D/savefifo.txt" --save "$D/fifo"
fab_check_eq "--save onto a FIFO: exit 1, still a FIFO" "1|fifo" "$rf_rc|$([ -p "$D/fifo" ] && echo fifo)"

### 7. Subnet managers.
# A second SM of higher priority joins h001's master (priority 0): OpenSM
# hands over to it, or not; whatever arises, rdma-fabric must say what
# sminfo says, and sm.master must judge it (PASS when the master has the
# highest priority, WARN when it does not).
SIM_HOST=login01 fab_check "a second OpenSM on login01, priority 10, starts" sim_sm_start -p 10
fab_log "login01's SM came up as: $SIM_SM_STATE"
sleep 3
sms_agree() {
	local o
	o=$(oracle_sms 1 "$(jq -r --arg g "$(oracle_guid 'login01 mlx5_0')" '.ports[] | select(.guid == $g) | .lid' "$D/links.json")") || return 1
	rf "$D/sm2.json" --sm -j
	[ "$o" = "$(jq -r '.sms[] | "\(.lid) \(.guid) \(.priority) \(.state)"' "$D/sm2.json" | sort -n)" ]
}
fab_check_wait "two SMs: --sm -j agrees with sminfo of both SMs' LIDs" 30 sms_agree
fab_log "SMs: $(jq -c '[.sms[] | [.node, .priority, .state]]' "$D/sm2.json")"
rf "$D/sm2v.json" -v -j
want=$(jq -r '[.sms[] | select(.state == "master")] as $m | [.sms[].priority] | max as $p |
	if ($m | length) == 1 and $m[0].priority == $p then "pass" elif ($m | length) == 1 then "warn" else "fail" end' "$D/sm2.json")
fab_check_eq "two SMs: sm.master is $want (the master has$([ "$want" = pass ] || echo " not") the highest priority)" \
	"$want" "$(jq -r '.results[] | select(.check == "sm.master") | .status' "$D/sm2v.json")"
fab_check "stop every SM" sim_sm_stop all
rf "$D/nosm.json" -j
fab_check_eq "no SM: exit 1, an sm.master FAIL 'no subnet manager'" "1|1" \
	"$rf_rc|$(jq -r '.results[] | select(.check == "sm.master" and .status == "fail") | .detail' "$D/nosm.json" | grep -c 'no subnet manager')"
fab_check_eq "no SM: the SM LID the ports still name is a WARN (no answer to SMInfo)" "1" \
	"$(jq -r '.results[] | select(.check == "sm.master" and .status == "warn") | .detail' "$D/nosm.json" | grep -c 'no answer to SMInfo')"

### 6. Duplicate LID and GUID (no SM: nothing repairs them).
lid3=$(jq -r --arg g "$h003" '.ports[] | select(.guid == $g) | .lid' "$D/links.json")
fab_check "Baselid \"h002\"[1] $lid3 (h003's LID)" sim_console "Baselid \"h002\"[1] $lid3"
rf "$D/duplid.json" -j
fab_check_eq "duplicate LID: exit 1, id.lid FAIL" "1 fail" \
	"$rf_rc $(jq -r '[.results[] | select(.check == "id.lid") | .status] | unique | join(",")' "$D/duplid.json")"
fab_check_eq "duplicate LID: the id.lid FAIL names h002 and h003 and LID $lid3" "yes" \
	"$(jq -r '.results[] | select(.check == "id.lid" and .status == "fail") | "\(.object) \(.detail)"' "$D/duplid.json" |
		grep 'h002' | grep 'h003' | grep -qw "$lid3" && echo yes)"
lid2=$(jq -r --arg g "$h002" '.ports[] | select(.guid == $g) | .lid' "$D/links.json")
fab_check "Baselid \"h002\"[1] $lid2 (its own again)" sim_console "Baselid \"h002\"[1] $lid2"
# The FAILs and WARNs a duplicated GUID adds: all but those of the fabric
# without it (its two degraded links, no SM, the error counters the faults
# above left) and libibnetdisc's own messages;
# "check|object|host|peer_guid|peer_port" lines.
faults() {
	jq -r '.results[] | select((.status == "fail" or .status == "warn") and .check != "link.degraded" and
		.check != "route.degraded" and
		.check != "sm.master" and .check != "fabric.discovery" and (.check | startswith("port.") | not)) |
		"\(.check)|\(.object)|\(.host // "-")|\(.peer_guid // "-")|\(.peer_port // "-")"' "$1" | LC_ALL=C sort
}
# One result's detail by check and object.
detail_of() { jq -r --arg c "$2" --arg o "$3" '.results[] | select(.check == $c and .object == $o) | .detail' "$1"; }

# An HCA given another's GUID: libibnetdisc takes the two for one node and
# hides one ("Duplicate Port"). Both positions are named, each by the
# description its node answers with, and nothing else.
fab_check "Guid \"h003\" $h004 (h004's node GUID)" sim_console "Guid \"h003\" $h004"
rf "$D/dupguid.json" -j
fab_log "duplicate GUID: $(jq -c '[.results[] | select(.status != "pass" and .status != "skip") | [.check, .status, .object, .detail]]' "$D/dupguid.json")"
fab_check_eq "h003 with h004's GUID: exit 1, id.guid FAILs at both positions (leaf01 ports 3 and 4, the copy's host and the original's), nothing else" \
	"1|id.guid|leaf01 port 3|h003|$h004|1"$'\n'"id.guid|leaf01 port 4|h004|$h004|1" \
	"$rf_rc|$(faults "$D/dupguid.json")"
fab_check_eq "h003 with h004's GUID: each position named by the description that answers there, with the other" \
	"GUID $h004 port 1 answers here as \"h003 mlx5_0\" (directed route 0,1,3); it also answers at leaf01 port 4 (\"h004 mlx5_0\")|GUID $h004 port 1 answers here as \"h004 mlx5_0\" (directed route 0,1,4); it also answers at leaf01 port 3 (\"h003 mlx5_0\")" \
	"$(detail_of "$D/dupguid.json" id.guid 'leaf01 port 3')|$(detail_of "$D/dupguid.json" id.guid 'leaf01 port 4')"
fab_check "Guid \"h003\" $h003 (its own again)" sim_console "Guid \"h003\" $h003"

# An HCA given the GUID of the node the sweep runs from (h001): discovery
# met that GUID again behind leaf02 and, linking it there, dropped leaf02's
# link to spine01 as well as h001's; rdma-fabric's probe then met leaf02
# over that cable and blamed it ("...which is also leaf02's"). Both
# positions are named, leaf02 is not, and the links are the oracle's but for
# the copy's position.
h007=$(oracle_guid 'h007 mlx5_0')
fab_check "Guid \"h007\" $h001 (the sweeping node's GUID)" sim_console "Guid \"h007\" $h001"
rf "$D/dupself.json" -j
fab_log "the sweeper's GUID copied: $(jq -c '[.results[] | select(.status != "pass" and .status != "skip") | [.check, .status, .object, .detail]]' "$D/dupself.json")"
fab_check_eq "h007 with h001's GUID: id.guid FAILs at leaf01 port 1 (h001) and leaf02 port 3 (h007), nothing else: no healthy switch blamed" \
	"1|id.guid|leaf01 port 1|h001|$h001|1"$'\n'"id.guid|leaf02 port 3|h007|$h001|1" \
	"$rf_rc|$(faults "$D/dupself.json")"
fab_check_grep "h007 with h001's GUID: leaf01 port 1 is said to be the port the sweep runs from, with the copy's place" \
	'^GUID 0x0000000000100000 port 1 answers here as "h001 mlx5_0" \(directed route 0,1,1: the port this sweep runs from\); it also answers at leaf02 port 3 \("h007 mlx5_0"\)$' \
	detail_of "$D/dupself.json" id.guid 'leaf01 port 1'
rf "$D/dupself-links.json" --links -j
fab_check_eq "h007 with h001's GUID: --links equals oracle_links of the healthy fabric but for h007 (hidden) and leaf02 port 3 (no peer)" \
	"$(awk -v h="$h007" -v l="$leaf02" '$1 == h { next } $1 == l && $2 == 3 { $7 = "-"; $8 = "-" } { print }' "$D/links.oracle" | LC_ALL=C sort)" \
	"$(links_canon "$D/dupself-links.json")"
fab_check_eq "h007 with h001's GUID: h001's port keeps its own LID (libibnetdisc had left h007's there)" \
	"$(jq -r --arg g "$h001" '.ports[] | select(.guid == $g) | .lid' "$D/links.json")" \
	"$(jq -r --arg g "$h001" '.ports[] | select(.guid == $g) | .lid' "$D/dupself-links.json")"
fab_check "Guid \"h007\" $h007 (its own again)" sim_console "Guid \"h007\" $h007"

# Two switches with one GUID: libibnetdisc merges them without a word
# (ibnetdiscover sees 6 nodes, leaf02 and its hosts gone). rdma-fabric
# names every position where the GUID answers: spine01 ports 1-3 (leaf01,
# whose own ports name them back) and 4-6 (leaf02, answering with leaf01's
# GUID), each with its description.
fab_check "Guid \"leaf02\" $leaf01 (leaf01's GUID)" sim_console "Guid \"leaf02\" $leaf01"
rf "$D/dupsw.json" -j
fab_check "oracle_nodes" fab_save "$D/dupsw.nodes" oracle_nodes
fab_check_eq "two switches, one GUID: rdma-fabric and ibnetdiscover both see 6 nodes (libibnetdisc merged)" \
	"$(grep -c . "$D/dupsw.nodes")" "$(jq -r .summary.nodes "$D/dupsw.json")"
fab_log "two switches, one GUID: $(jq -c '[.results[] | select(.status != "pass" and .status != "skip" and .check != "link.degraded" and .check != "sm.master") | [.check, .status, .object, .detail]]' "$D/dupsw.json")"
fab_check_eq "two switches, one GUID: id.guid FAILs at spine01 ports 1-6, leaf01's GUID and port behind each, nothing else" \
	"$(for p in 1 2 3 4 5 6; do echo "id.guid|spine01 port $p|-|$leaf01|$(( (p - 1) % 3 + 5 ))"; done)" \
	"$(faults "$D/dupsw.json")"
fab_check_eq "two switches, one GUID: spine01 port 4 answers as leaf02, port 1 as leaf01" \
	"as \"leaf02\" (directed route 0,1,5,4)|as \"leaf01\" (directed route 0,1,5,1)" \
	"$(detail_of "$D/dupsw.json" id.guid 'spine01 port 4' | grep -o 'as "[^"]*" ([^)]*)')|$(detail_of "$D/dupsw.json" id.guid 'spine01 port 1' | grep -o 'as "[^"]*" ([^)]*)')"
fab_check "Guid \"leaf02\" $leaf02 (its own again)" sim_console "Guid \"leaf02\" $leaf02"

sock=$SIM_SOCK
fab_check "sim_stop" sim_stop
fab_check "pgrep: no ibsim or opensm with this run's IBSIM_SOCKNAME" sim_leftovers "$sock"
