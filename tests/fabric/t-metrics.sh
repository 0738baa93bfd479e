#!/bin/bash
# Fabric scenario: rdma-fabric --format openmetrics|prometheus on the small
# fabric with counters set through ibsim's console (PerformanceSet, the
# 64-bit PortCountersExtended data counter too).  Both scrapes are
# well-formed (tests/cli/top-check-metrics.sh), parse with the reference
# parsers (python3-prometheus-client's OpenMetrics and text parsers, promtool
# for the Prometheus text), carry the names of guilbaults/infiniband-exporter
# (infiniband_<counter>_total, component/local_*/remote_* labels), and every
# error counter's value equals perfquery's (oracle_counters).  h007's node
# description holds UTF-8 ("été"), a byte that is not UTF-8 and a control
# character, and a node name map saved in Latin-1 names spine01 "spine01
# r\xe9seau": label values keep the UTF-8, a byte that is not UTF-8 and a
# control character become U+FFFD, and both scrapes still parse.  A switch
# that stops answering: every unanswered query is counted (-j and metrics).
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
"$GEN_NET" small > "$D/small.net"
desc7=$'h007 \xc3\xa9t\xc3\xa9\xff\x01 mlx5_0'
sed -i "s/# \"h007 mlx5_0\"/# \"$desc7\"/" "$D/small.net"
fab_check "sim and OpenSM up" sim_start "$D/sim" "$D/small.net" || exit 1
fab_check "OpenSM: SUBNET UP" sim_sm_start || exit 1
sock=$SIM_SOCK

sim_console 'PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=250' > /dev/null
sim_console 'PerformanceSet "leaf01"[2] PortCounters.LinkDownedCounter=3' > /dev/null
sim_console 'PerformanceSet "h004"[1] PortCounters.PortRcvErrors=17' > /dev/null
sim_console 'PerformanceSet "spine01"[1] PortCounters.PortXmitWait=5000' > /dev/null
sim_console 'PerformanceSet "h003"[1] PortCountersExtended.PortXmitData=123456789012' > /dev/null

printf '%s "spine01 r\xe9seau"\n' "$(oracle_guid spine01)" > "$D/latin1.map"
fab_check "--format openmetrics" fab_save "$D/om.txt" sim_run "$B/rdma-fabric" --format openmetrics --node-name-map "$D/latin1.map"
fab_check "--format prometheus" fab_save "$D/prom.txt" sim_run "$B/rdma-fabric" --format prometheus --node-name-map "$D/latin1.map"
fab_check_grep "OpenMetrics: well-formed, ends in # EOF" '^openmetrics: 23 families, [0-9]+ samples, well-formed$' \
	bash -c "'$RD_ROOT/tests/cli/top-check-metrics.sh' openmetrics < '$D/om.txt'"
fab_check_grep "Prometheus text: well-formed" '^prometheus: 23 families, [0-9]+ samples, well-formed$' \
	bash -c "'$RD_ROOT/tests/cli/top-check-metrics.sh' prometheus < '$D/prom.txt'"
if command -v promtool > /dev/null; then
	fab_check "promtool check metrics accepts the Prometheus text" bash -c "promtool check metrics < '$D/prom.txt'"
fi
# The reference parsers: both scrapes hold the same samples.
parse='
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
from prometheus_client.parser import text_string_to_metric_families as pr
def rows(fams):
    return sorted("%s %s %d" % (s.name, ",".join("%s=%s" % kv for kv in sorted(s.labels.items())), s.value)
                  for f in fams for s in f.samples)
a = rows(om(open(sys.argv[1]).read()))
b = rows(pr(open(sys.argv[2]).read()))
# Traffic (the SM, the sweeps) moves the data and packet counters between the two scrapes.
moving = ("infiniband_portxmitdata", "infiniband_portrcvdata", "infiniband_portxmitpkts", "infiniband_portrcvpkts")
fixed = lambda rs: [r for r in rs if not r.startswith(moving)]
assert len(a) == len(b) and fixed(a) == fixed(b), "the two formats differ"
print("\n".join(a))
'
fab_check "python3-prometheus-client parses both, the same samples" \
	fab_save "$D/samples.txt" /usr/bin/python3 -c "$parse" "$D/om.txt" "$D/prom.txt"
fab_check_eq "the counter families are infiniband-exporter's names" \
	"infiniband_excessivebufferoverrunerrors_total infiniband_linkdownedcounter_total infiniband_linkerrorrecoverycounter_total infiniband_locallinkintegrityerrors_total infiniband_portrcvconstrainterrors_total infiniband_portrcvdata_total infiniband_portrcverrors_total infiniband_portrcvpkts_total infiniband_portrcvremotephysicalerrors_total infiniband_portrcvswitchrelayerrors_total infiniband_portxmitconstrainterrors_total infiniband_portxmitdata_total infiniband_portxmitdiscards_total infiniband_portxmitpkts_total infiniband_portxmitwait_total infiniband_symbolerrorcounter_total infiniband_vl15dropped_total" \
	"$(awk '{ print $1 }' "$D/samples.txt" | grep '_total$' | sort -u | paste -sd' ')"
leaf01=$(oracle_guid leaf01) h003=$(oracle_guid 'h003 mlx5_0')
fab_check_grep "labels: component, local and remote name, GUID, port" \
	"^infiniband_symbolerrorcounter_total component=switch,local_guid=$leaf01,local_name=leaf01,local_port=2,remote_guid=0x[0-9a-f]{16},remote_name=h002 mlx5_0,remote_port=1 250\$" \
	cat "$D/samples.txt"
fab_check_grep "PortXmitData from the 64-bit PortCountersExtended (past 2^32)" \
	"^infiniband_portxmitdata_total component=ca,local_guid=$h003,local_name=h003 mlx5_0,local_port=1,.* 1234567[0-9]{5}\$" \
	cat "$D/samples.txt"
fab_check_grep "a description in UTF-8 with a byte that is not and a control: the UTF-8 kept, the others U+FFFD" \
	"^infiniband_symbolerrorcounter_total component=switch,.*remote_name=h007 "$'\xc3\xa9t\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd'" mlx5_0,remote_port=1 0\$" \
	cat "$D/samples.txt"
fab_check_grep "a name map in Latin-1: its byte that is not UTF-8 is U+FFFD in the label" \
	"^infiniband_symbolerrorcounter_total component=switch,.*remote_name=spine01 r"$'\xef\xbf\xbd'"seau,remote_port=1 0\$" \
	cat "$D/samples.txt"
fab_check_eq "the raw scrapes hold no byte that is not UTF-8" "ok|ok" \
	"$(iconv -f UTF-8 -t UTF-8 "$D/om.txt" > /dev/null 2>&1 && echo ok)|$(iconv -f UTF-8 -t UTF-8 "$D/prom.txt" > /dev/null 2>&1 && echo ok)"
fab_check_grep "width and speed gauges: 4 lanes of 10 Gb/s" \
	"^infiniband_speed component=switch,local_guid=$leaf01,.*local_port=2,.* 10\$" cat "$D/samples.txt"

# Every error counter equals perfquery's, port by port (the oracle lists every
# port with a LID; the metrics only linked, Active ones).
fab_check "oracle_counters" fab_save "$D/oracle.txt" oracle_counters
declare -A iba=(
	[symbolerrorcounter]=SymbolErrorCounter [linkerrorrecoverycounter]=LinkErrorRecoveryCounter
	[linkdownedcounter]=LinkDownedCounter [portrcverrors]=PortRcvErrors
	[portrcvremotephysicalerrors]=PortRcvRemotePhysicalErrors
	[locallinkintegrityerrors]=LocalLinkIntegrityErrors
	[excessivebufferoverrunerrors]=ExcessiveBufferOverrunErrors [portxmitdiscards]=PortXmitDiscards
	[vl15dropped]=VL15Dropped [portxmitwait]=PortXmitWait
	[portrcvswitchrelayerrors]=PortRcvSwitchRelayErrors
	[portxmitconstrainterrors]=PortXmitConstraintErrors [portrcvconstrainterrors]=PortRcvConstraintErrors)
mine=$(awk '$1 ~ /_total$/ { n = $1; sub(/^infiniband_/, "", n); sub(/_total$/, "", n)
	lab = $0; sub(/^[^ ]+ /, "", lab); sub(/ [^ ]+$/, "", lab)	# names hold blanks
	match(lab, /local_guid=[^,]*/); g = substr(lab, RSTART + 11, RLENGTH - 11)
	match(lab, /local_port=[^,]*/); p = substr(lab, RSTART + 11, RLENGTH - 11)
	print g, p, n, $NF }' "$D/samples.txt" |
	while read -r g p n v; do [ -n "${iba[$n]:-}" ] && echo "$g $p ${iba[$n]} $v"; done | sort)
theirs=$(while read -r g p c v; do
	for k in "${iba[@]}"; do [ "$k" = "$c" ] && echo "$g $p $c $v"; done
done < "$D/oracle.txt" | sort | join -j1 <(awk '{ print $1 "_" $2 }' <<< "$mine" | sort -u) \
	<(awk '{ print $1 "_" $2, $0 }' /dev/stdin | sort) 2> /dev/null | cut -d' ' -f2- | sort)
fab_check_eq "every error counter equals perfquery's ($(wc -l <<< "$mine") values)" "$theirs" "$mine"
fab_check_grep "the nonzero ones among them" "PortRcvErrors 17\$" echo "$mine"

# A switch stops answering, and with it every node behind it: each query
# that got no answer is counted, discovery's too (its "umad ... bad status"
# lines) and those of rdma-fabric's own probe of the dark ports (node.answer
# names each), in -j's summary and in the metrics alike.  Last, the subnet
# managers' gauges, with OpenSM up and stopped.
fab_check 'Error "leaf02" 100: leaf02 drops every MAD' sim_console 'Error "leaf02" 100'
sim_run "$B/rdma-fabric" -j > "$D/dark.json" 2> "$D/dark.err"
sim_run "$B/rdma-fabric" --format openmetrics > "$D/dark.om" 2> /dev/null
lost=$(( $(grep -c 'discovery: .*umad (.*) bad status' "$D/dark.err") + \
	$(jq '[.results[] | select(.check == "node.answer" and (.detail | test("no answer")))] | length' "$D/dark.json") ))
fab_log "leaf02 silent: $lost queries unanswered (discovery's and the probe's); summary: $(jq -c .summary "$D/dark.json")"
fab_check_eq "leaf02 silent: mads_unanswered in -j and rdma_fabric_mads_unanswered count every lost query ($lost), scrape_ok 0" \
	"$lost|$lost|0|yes" \
	"$(jq .summary.mads_unanswered "$D/dark.json")|$(awk '$1 == "rdma_fabric_mads_unanswered" { print $2 }' "$D/dark.om")|$(awk '$1 == "infiniband_scrape_ok" { print $2 }' "$D/dark.om")|$([ "$lost" -ge 6 ] && echo yes)"
sim_console 'Error "leaf02" 0' > /dev/null

# The subnet managers (rdma_fabric_sm_*, what an alert on a missing SM reads):
# the one OpenSM is the master; stopped, no master answers.
fab_check_grep "rdma_fabric_sm_masters 1 with OpenSM up" '^rdma_fabric_sm_masters 1$' cat "$D/prom.txt"
fab_check_grep "rdma_fabric_sm_info names the master, its port GUID and LID" \
	'^rdma_fabric_sm_info\{guid="0x[0-9a-f]{16}",lid="[1-9][0-9]*",priority="[0-9]+",state="master"\} 1$' cat "$D/prom.txt"
fab_check "OpenSM stopped" sim_sm_stop all
sim_run "$B/rdma-fabric" --format prometheus > "$D/nosm.txt" 2> /dev/null
fab_check_eq "OpenSM stopped: rdma_fabric_sm_masters 0, no sm_info says master" "0|0" \
	"$(awk '$1 == "rdma_fabric_sm_masters" { print $2 }' "$D/nosm.txt")|$(grep -c 'state="master"' "$D/nosm.txt")"

sim_stop
fab_check_eq "nothing left running" "" "$(sim_leftovers "$sock" 2> /dev/null || true)"
