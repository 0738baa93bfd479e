#!/bin/bash
# Fabric scenario: rdma-fabric --svg at scale. The 648-HCA fat tree (36
# leaves, 18 spines) and a 2,000-HCA one (112 leaves, 18 spines of 112
# ports), each with three faults: a host's link written 1X (link.degraded),
# a host's cable pulled after a baseline was saved (link.baseline: the node
# gone, the leaf's port down) and errors on a spine link (port.errors).
# rdma-fabric -j --baseline --svg draws the picture in the same run as the
# JSON; svgcheck.py then finds every FAIL and WARN of the JSON as a mark of
# its verdict in the SVG (its check, its object, a badge, a title), checks
# the picture's size against the man page's bounds, and headless Chromium
# renders it: the PNG is the SVG's size and every mark's colour is in the
# rendered pixels where the SVG puts its badge. FABRIC_PIC_DIR=DIR keeps the
# SVGs there, and the PNGs in 256 colours (docs/fabric-648.png and
# docs/fabric-2000.png are made so).
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
B=$FABRIC_BUILD
PY=/usr/bin/python3
CHECK=$RD_ROOT/tests/fabric/svgcheck.py

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# The host on leaf L port P of gen-net's fat tree: h((L-1)*18+P).
# picture HCAS ONE_X_HOST PULLED_LEAF PULLED_PORT PULLED_HOST SPINE SPINE_PORT MAX_WIDTH MAX_HEIGHT
picture() {
	local n=$1 onex=$2 pleaf=$3 pport=$4 phost=$5 spine=$6 sport=$7 maxw=$8 maxh=$9
	local d=$D/f$n net rc t0 t1 w h nodes k=$((10#${2#h}))
	local onex_at="leaf$(printf %02d $(((k - 1) / 18 + 1))) port $(((k - 1) % 18 + 1))"
	mkdir -p "$d"
	net=$d/fattree.net
	"$GEN_NET" fattree "$n" --1x "$onex" > "$net"
	nodes=$(( $(grep -c '^Hca' "$net") + $(grep -c '^Switch' "$net") ))
	fab_check "$n HCAs: sim_start" sim_start "$d/sim" "$net" -N 4096 -S 512 -P 40000 || return 1
	fab_check "$n HCAs: sim_sm_start: OpenSM reaches SUBNET UP" sim_sm_start || return 1
	fab_check "$n HCAs: rdma-fabric --save: the baseline" sim_run "$B/rdma-fabric" --save "$d/base.cache" --nhc \
		--only link.state
	fab_check "$n HCAs: Unlink \"$pleaf\"[$pport] ($phost's cable pulled)" sim_console "Unlink \"$pleaf\"[$pport]"
	gone() {
		sim_run "$B/rdma-fabric" --links -j > "$d/poll.json" 2> /dev/null
		[ "$(jq -r '[.ports[] | select(.type == "CA")] | length' "$d/poll.json")" = $((n - 1)) ]
	}
	fab_check_wait "$n HCAs: $phost gone from discovery" 60 gone
	fab_check "$n HCAs: PerformanceSet \"$spine\"[$sport] SymbolErrorCounter=250 (a spine link's errors)" \
		sim_console "PerformanceSet \"$spine\"[$sport] PortCounters.SymbolErrorCounter=250"

	t0=$EPOCHREALTIME
	sim_run "$B/rdma-fabric" -j --baseline "$d/base.cache" --svg "$d/fabric.svg" > "$d/fabric.json" 2> "$d/fabric.err"
	rc=$?
	t1=$EPOCHREALTIME
	fab_check_eq "$n HCAs: rdma-fabric -j --baseline --svg: exit 1 (FAILs), the SVG written" "1 yes" \
		"$rc $([ -s "$d/fabric.svg" ] && echo yes)"
	fab_check_eq "$n HCAs: the JSON has the three faults: $onex's 1X link, $phost gone and $pleaf[$pport] down, errors on $spine[$sport]" \
		"fail link.baseline $phost"$'\n'"fail link.baseline $pleaf port $pport"$'\n'"fail link.degraded $onex_at"$'\n'"warn port.errors $spine port $sport" \
		"$(jq -r '.results[] | select(.status != "pass" and .status != "skip") | select(.check != "route.degraded") |
			"\(.status) \(.check) \(.object)"' "$d/fabric.json" |
			sed -E 's/ mlx5_0.*//; s/ <-> .*//' | sort -u)"
	fab_check_grep "$n HCAs: every FAIL and WARN of the JSON is a mark of its verdict in the SVG" \
		'^[0-9]+ faults, [0-9]+ marks$' "$PY" "$CHECK" marks "$d/fabric.json" "$d/fabric.svg"
	read -r w h < <("$PY" "$CHECK" size "$d/fabric.svg")
	fab_log "$n HCAs: rdma-fabric -j --baseline --svg $(secs "$t0" "$t1") s; the SVG ${w}x${h} px," \
		"$(wc -c < "$d/fabric.svg") bytes; $(jq '[.results[] | select(.status == "fail" or .status == "warn")] | length' \
		"$d/fabric.json") faults"
	fab_check_eq "$n HCAs: the picture within ${maxw}x${maxh} px" yes \
		"$([ "${w%.*}" -le "$maxw" ] && [ "${h%.*}" -le "$maxh" ] && echo yes || echo "no: ${w}x${h}")"
	fab_check_eq "$n HCAs: the svg element counts the fabric: $n HCAs alive but $phost, $((nodes - n)) switches" \
		"$((n - 1)) $((nodes - n))" \
		"$(sed -n 's/.*<svg [^>]*data-hcas="\([0-9]*\)" data-switches="\([0-9]*\)".*/\1 \2/p' "$d/fabric.svg")"

	t0=$EPOCHREALTIME
	# tests/cli/svg-render.sh: Chromium with a profile of its own, at the picture's size
	"$RD_ROOT/tests/cli/svg-render.sh" "$d/fabric.svg" "$d/fabric.png" > "$d/chromium.log" 2>&1
	rc=$?
	t1=$EPOCHREALTIME
	fab_check_eq "$n HCAs: headless Chromium renders the SVG to a PNG" "0 yes" "$rc $([ -s "$d/fabric.png" ] && echo yes)"
	fab_log "$n HCAs: Chromium rendered it in $(secs "$t0" "$t1") s, the PNG $(wc -c < "$d/fabric.png") bytes"
	fab_check_grep "$n HCAs: the PNG is the SVG's size and every mark's colour is in its pixels at its badge" \
		'^[0-9]+ marks seen in the pixels' "$PY" "$CHECK" pixels "$d/fabric.svg" "$d/fabric.png"
	if [ -n "${FABRIC_PIC_DIR:-}" ]; then
		cp "$d/fabric.svg" "$FABRIC_PIC_DIR/fabric-$n.svg"
		"$PY" "$CHECK" palette "$d/fabric.png" "$FABRIC_PIC_DIR/fabric-$n.png"
	fi
	local sock=$SIM_SOCK
	fab_check "$n HCAs: sim_stop" sim_stop
	fab_check "$n HCAs: no ibsim or opensm left" sim_leftovers "$sock"
}

# 648: h100 1X (leaf06[10]); h300 on leaf17[12] pulled; spine03[7] (to leaf07[21]) erring.
picture 648 h100 leaf17 12 h300 spine03 7 2000 1300
# 2,000: h1500 1X (leaf84[6]); h1234 on leaf69[10] pulled; spine11[100] (to leaf100[29]) erring.
picture 2000 h1500 leaf69 10 h1234 spine11 100 4000 1300
