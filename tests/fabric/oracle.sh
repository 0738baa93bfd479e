# shellcheck shell=bash
# oracle.sh -- infiniband-diags as the oracle of the fabric tier (source it
# after sim.sh). Each function runs the tools under the simulated fabric
# (through $ORACLE_RUN, default sim_run; ORACLE_RUN= runs them directly, on
# a real fabric) and prints canonical lines, sorted (LC_ALL=C sort), one
# fact a line, fields separated by one space:
#
#   oracle_links     NODEGUID PORT STATE PHYSSTATE WIDTH SPEED PEER_NODEGUID PEER_PORT
#   oracle_counters  NODEGUID PORT COUNTER VALUE
#   oracle_sms       LID GUID PRIORITY STATE
#   oracle_nodes     NODEGUID TYPE NPORTS DESCRIPTION
#
# GUIDs are 0x and 16 lower-case hex digits. NODEGUID is the node's GUID
# (iblinkinfo prints a CA's *port* GUID; ibnetdiscover maps it back). STATE
# is PortInfo's state as iblinkinfo prints it, but "Initialize" is written
# "Init" (the IBA name): Down, Init, Armed, Active. PHYSSTATE as iblinkinfo
# prints it: Polling, LinkUp, Disabled, ... WIDTH: 1X 2X 4X 8X 12X. SPEED:
# the lane speed's name, from iblinkinfo's "10.0 Gbps": SDR (2.5), DDR (5.0),
# QDR (10.0), FDR (14.0625), EDR (25.78125), HDR (53.125), NDR (106.25),
# FDR10. A field that does not apply (a Down port's width and speed, an
# uncabled port's peer) is "-".
#
# The lines cover what discovery reaches: every port of every switch, and
# each CA's ports that are cabled (libibnetdisc never reads PortInfo of a
# CA port it did not come through, so iblinkinfo does not list them).
#
# Each function fails (status 1, a message on stderr) if a tool fails, prints
# nothing, or prints a line the parser does not know: never an empty answer.

ORACLE_RUN=${ORACLE_RUN-sim_run}

# The PortCounters fields oracle_counters reports: every error counter of
# the IBA's PortCounters, and PortXmitWait (congestion).
ORACLE_COUNTERS=${ORACLE_COUNTERS:-"SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors PortRcvRemotePhysicalErrors PortRcvSwitchRelayErrors PortXmitDiscards PortXmitConstraintErrors PortRcvConstraintErrors LocalLinkIntegrityErrors ExcessiveBufferOverrunErrors VL15Dropped PortXmitWait"}

_oracle_err() { echo "oracle: $*" >&2; }

# _oracle_tool OUTFILE CMD...: run an infiniband-diags tool into OUTFILE;
# fails if it fails or prints nothing.
_oracle_tool() {
	local out=$1 rc
	shift
	if [ -n "$ORACLE_RUN" ]; then
		"$ORACLE_RUN" "$@" > "$out"
	else
		"$@" > "$out"
	fi
	rc=$?
	if [ "$rc" != 0 ]; then
		_oracle_err "$*: exit status $rc"
		return 1
	fi
	if [ ! -s "$out" ]; then
		_oracle_err "$*: printed nothing"
		return 1
	fi
}

# _oracle_guid VAR HEX: set VAR to HEX as 0x and 16 lower-case hex digits
# (no subshell: the parsers call it for every line of a 2,600-port fabric).
_oracle_guid() {
	local h=${2#0[xX]}
	printf -v "$1" '0x%016x' "$((16#$h))"
}

# _oracle_bad TOOL LINE: report a line a parser does not know.
_oracle_bad() { _oracle_err "$1: cannot parse: $2"; return 1; }

declare -A _O_NODE=()	# port GUID (and a switch's node GUID) -> node GUID
declare -A _O_TYPE=()	# node GUID -> CA | Switch | Router
declare -A _O_NPORTS=()	# node GUID -> number of ports
declare -A _O_DESC=()	# node GUID -> NodeDescription

# _oracle_discover TMPFILE: read ibnetdiscover's topology into _O_*.
_oracle_discover() {
	local f=$1 line cur="" n=0 t g p
	_O_NODE=() _O_TYPE=() _O_NPORTS=() _O_DESC=()
	_oracle_tool "$f" ibnetdiscover || return 1
	local re_node='^(Switch|Ca|Rt)[[:space:]]+([0-9]+)[[:space:]]+"([SHR])-([0-9a-fA-F]+)"[[:space:]]*#[[:space:]]*"(.*)"'
	# [1]\t"H-...."[1](100001)   or   [1](100001)\t"S-..."[1]   (a CA's own port GUID in parentheses)
	local re_port='^\[([0-9]+)\](\(([0-9a-fA-F]+)\))?[[:space:]]*"([SHR])-([0-9a-fA-F]+)"\[([0-9]+)\](\(([0-9a-fA-F]+)\))?'
	while IFS= read -r line; do
		case $line in
		''|'#'*|vendid=*|devid=*|sysimgguid=*|switchguid=*|caguid=*|rtguid=*) continue ;;
		esac
		if [[ $line =~ $re_node ]]; then
			case ${BASH_REMATCH[1]} in Switch) t=Switch ;; Ca) t=CA ;; *) t=Router ;; esac
			_oracle_guid cur "${BASH_REMATCH[4]}"
			_O_TYPE[$cur]=$t
			_O_NPORTS[$cur]=${BASH_REMATCH[2]}
			_O_DESC[$cur]=${BASH_REMATCH[5]}
			_O_NODE[$cur]=$cur
			n=$((n + 1))
		elif [[ $line =~ $re_port ]] && [ -n "$cur" ]; then
			if [ -n "${BASH_REMATCH[3]}" ]; then
				_oracle_guid p "${BASH_REMATCH[3]}"
				_O_NODE[$p]=$cur
			fi
			if [ -n "${BASH_REMATCH[8]}" ]; then
				_oracle_guid g "${BASH_REMATCH[5]}"
				_oracle_guid p "${BASH_REMATCH[8]}"
				_O_NODE[$p]=$g
			fi
		else
			_oracle_bad ibnetdiscover "$line"
			return 1
		fi
	done < "$f"
	[ "$n" -gt 0 ] || { _oracle_err "ibnetdiscover: no node"; return 1; }
}

# iblinkinfo's lane speeds -> their names.
declare -A _O_SPEED=([2.5 Gbps]=SDR [5.0 Gbps]=DDR [10.0 Gbps]=QDR [14.0625 Gbps]=FDR
	[25.78125 Gbps]=EDR [53.125 Gbps]=HDR [106.25 Gbps]=NDR [FDR10]=FDR10)

# _oracle_linkinfo TMPFILE: iblinkinfo -l (one line a port), parsed into
# _OL_* arrays: the port's own GUID as printed, its LID, the rest canonical.
_oracle_linkinfo() {
	local f=$1 line inner peer right state width speed i=0
	_OL_GUID=() _OL_LID=() _OL_PORT=() _OL_STATE=() _OL_PHYS=() _OL_WIDTH=() _OL_SPEED=()
	_OL_PGUID=() _OL_PPORT=()
	_oracle_tool "$f" iblinkinfo -l || return 1
	# 0x0000000000200001 "   leaf01"   3    5[  ] ==( 4X   10.0 Gbps Active/  LinkUp)==>  PEER
	local re='^(0x[0-9a-fA-F]+) "(.*)" +([0-9]+) +([0-9]+)\[[^]]*\] ==\(([^)]*)\)==> +(.*)$'
	# PEER: 0x0000000000200000      2    1[  ] "spine01" ( ... )   or   [  ] "" ( )
	local re_peer='^(0x[0-9a-fA-F]+) +([0-9]+) +([0-9]+)\[[^]]*\] "(.*)" \((.*)\)$'
	local re_none='^\[[^]]*\] "" \((.*)\)$'
	local re_inner='^[[:space:]]*(([0-9]+X)[[:space:]]+([^[:space:]]+( [^[:space:]]+)?)[[:space:]]+)?([A-Za-z]+)/[[:space:]]*([A-Za-z]+)[[:space:]]*$'
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		[[ $line =~ $re ]] || { _oracle_bad iblinkinfo "$line"; return 1; }
		_oracle_guid '_OL_GUID[i]' "${BASH_REMATCH[1]}"
		_OL_LID[i]=${BASH_REMATCH[3]}
		_OL_PORT[i]=${BASH_REMATCH[4]}
		inner=${BASH_REMATCH[5]} peer=${BASH_REMATCH[6]}
		# inner: "[WIDTH SPEED ]STATE/ PHYS", e.g. " 4X   10.0 Gbps Active/  LinkUp"
		[[ $inner =~ $re_inner ]] || { _oracle_bad iblinkinfo "$line"; return 1; }
		width=${BASH_REMATCH[2]:--} speed=${BASH_REMATCH[3]} state=${BASH_REMATCH[5]}
		right=${BASH_REMATCH[6]}
		case $state in
		Initialize) state=Init ;;
		Down|Init|Armed|Active) ;;
		*) _oracle_bad iblinkinfo "$line (state $state)"; return 1 ;;
		esac
		if [ "$width" = - ]; then
			speed=-
		else
			speed=${_O_SPEED[$speed]:-}
			[ -n "$speed" ] || { _oracle_bad iblinkinfo "$line (speed '${BASH_REMATCH[3]}')"; return 1; }
		fi
		_OL_STATE[i]=$state _OL_PHYS[i]=$right _OL_WIDTH[i]=$width _OL_SPEED[i]=$speed
		if [[ $peer =~ $re_peer ]]; then
			_oracle_guid '_OL_PGUID[i]' "${BASH_REMATCH[1]}"
			_OL_PPORT[i]=${BASH_REMATCH[3]}
		elif [[ $peer =~ $re_none ]]; then
			_OL_PGUID[i]=- _OL_PPORT[i]=-
		else
			_oracle_bad iblinkinfo "$line (peer)"
			return 1
		fi
		i=$((i + 1))
	done < "$f"
	[ "$i" -gt 0 ] || { _oracle_err "iblinkinfo: no port"; return 1; }
}

# _oracle_node VAR GUID: set VAR to the node GUID of a port GUID iblinkinfo
# printed.
_oracle_node() {
	printf -v "$1" '%s' "${_O_NODE[$2]:-}"
	[ -n "${_O_NODE[$2]:-}" ] ||
		{ _oracle_err "GUID $2: not in ibnetdiscover's topology (did the fabric change?)"; return 1; }
}

_oracle_tmp() { mktemp "${TMPDIR:-/tmp}/oracle.XXXXXX"; }

# oracle_links: one line a port (see the top of this file), from iblinkinfo
# -l, with ibnetdiscover for the node GUIDs.
oracle_links() {
	local t1 t2 i n pn rc=0
	t1=$(_oracle_tmp) && t2=$(_oracle_tmp) || return 1
	if _oracle_discover "$t1" && _oracle_linkinfo "$t2"; then
		for i in "${!_OL_GUID[@]}"; do
			_oracle_node n "${_OL_GUID[i]}" || { rc=1; break; }
			pn=-
			if [ "${_OL_PGUID[i]}" != - ]; then
				_oracle_node pn "${_OL_PGUID[i]}" || { rc=1; break; }
			fi
			echo "$n ${_OL_PORT[i]} ${_OL_STATE[i]} ${_OL_PHYS[i]} ${_OL_WIDTH[i]} ${_OL_SPEED[i]} $pn ${_OL_PPORT[i]}"
		done > "$t1.out"
		[ $rc = 0 ] && LC_ALL=C sort "$t1.out"
	else
		rc=1
	fi
	rm -f "$t1" "$t2" "$t1.out"
	return $rc
}

# oracle_nodes: one line a node: NODEGUID TYPE NPORTS DESCRIPTION (the
# description last, as it is, spaces included), from ibnetdiscover.
oracle_nodes() {
	local t g rc=0
	t=$(_oracle_tmp) || return 1
	if _oracle_discover "$t"; then
		for g in "${!_O_TYPE[@]}"; do
			echo "$g ${_O_TYPE[$g]} ${_O_NPORTS[$g]} ${_O_DESC[$g]}"
		done | LC_ALL=C sort
	else
		rc=1
	fi
	rm -f "$t"
	return $rc
}

# oracle_guid DESCRIPTION: the GUID of the one node with that description
# ("leaf01", "h005 mlx5_0"); fails if there is none or more than one.
oracle_guid() {
	local d=$1 out
	out=$(oracle_nodes) || return 1
	out=$(awk -v d="$d" '{ g = $1; $1 = $2 = $3 = ""; sub(/^ +/, ""); if ($0 == d) print g }' <<< "$out")
	case $(printf '%s' "$out" | grep -c .) in
	1) echo "$out" ;;
	0) _oracle_err "no node described \"$d\""; return 1 ;;
	*) _oracle_err "more than one node described \"$d\": $(echo "$out" | tr '\n' ' ')"; return 1 ;;
	esac
}

# oracle_counters: NODEGUID PORT COUNTER VALUE for every port iblinkinfo
# lists that has a LID (a switch's ports through its LID), for each counter
# in ORACLE_COUNTERS, from perfquery (one call per LID: "perfquery LID
# p1,p2,..."). Needs LIDs, so an SM must have run.
oracle_counters() {
	local t1 t2 t3 i lid rc=0 line re_head c v cur_lid cur_port
	local -A ports=() guid_at=() seen=()
	t1=$(_oracle_tmp) && t2=$(_oracle_tmp) && t3=$(_oracle_tmp) || return 1
	if ! _oracle_discover "$t1" || ! _oracle_linkinfo "$t2"; then
		rm -f "$t1" "$t2" "$t3"
		return 1
	fi
	for i in "${!_OL_GUID[@]}"; do
		lid=${_OL_LID[i]}
		if [ "$lid" = 0 ]; then
			_oracle_err "port ${_OL_GUID[i]}/${_OL_PORT[i]} has no LID (is an SM running?)"
			rc=1
			break
		fi
		_oracle_node "guid_at[$lid.${_OL_PORT[i]}]" "${_OL_GUID[i]}" || { rc=1; break; }
		ports[$lid]+="${ports[$lid]:+,}${_OL_PORT[i]}"
	done
	# # Port counters: Lid 3 port 8 (CapMask: 0x1300)
	re_head='^# Port counters: Lid ([0-9]+) port ([0-9]+)'
	if [ $rc = 0 ]; then
		for lid in "${!ports[@]}"; do
			_oracle_tool "$t3" perfquery "$lid" "${ports[$lid]}" || { rc=1; break; }
			cur_lid="" cur_port=""
			while IFS= read -r line; do
				[ -n "$line" ] || continue
				if [[ $line =~ $re_head ]]; then
					cur_lid=${BASH_REMATCH[1]} cur_port=${BASH_REMATCH[2]}
					[ -n "${guid_at[$cur_lid.$cur_port]:-}" ] ||
						{ _oracle_bad perfquery "$line (a port not asked for)"; rc=1; break; }
					seen[$cur_lid.$cur_port]=1
				elif [[ $line =~ ^([A-Za-z0-9]+):\.*([0-9]+|0x[0-9a-fA-F]+)$ ]] && [ -n "$cur_port" ]; then
					c=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]}
					case " $ORACLE_COUNTERS " in
					*" $c "*) echo "${guid_at[$cur_lid.$cur_port]} $cur_port $c $((v))" ;;
					esac
				else
					_oracle_bad perfquery "$line"
					rc=1
					break
				fi
			done < "$t3" >> "$t1.out"
			[ $rc = 0 ] || break
		done
	fi
	if [ $rc = 0 ]; then
		# every port asked for answered, with every counter
		for i in "${!guid_at[@]}"; do
			[ -n "${seen[$i]:-}" ] || { _oracle_err "perfquery: no counters for LID ${i%.*} port ${i#*.}"; rc=1; }
		done
		for c in $ORACLE_COUNTERS; do
			[ "$(grep -c " $c " "$t1.out")" = ${#guid_at[@]} ] ||
				{ _oracle_err "perfquery: $c missing on some port"; rc=1; }
		done
	fi
	[ $rc = 0 ] && LC_ALL=C sort "$t1.out"
	rm -f "$t1" "$t2" "$t3" "$t1.out"
	return $rc
}

# oracle_sms [LID...]: LID GUID PRIORITY STATE of the SM at each LID (from
# "sminfo LID"); without LIDs, of every port saquery -s lists as IsSM (that
# needs a master SM: its SA answers). GUID is the SM's port GUID as SMInfo
# gives it; STATE is master, standby, discovering or notactive.
oracle_sms() {
	local t lid lids=() line inism=0 rc=0 smguid
	t=$(_oracle_tmp) || return 1
	if [ $# -gt 0 ]; then
		lids=("$@")
	else
		if ! _oracle_tool "$t" saquery -s; then
			rm -f "$t"
			return 1
		fi
		while IFS= read -r line; do
			case $line in
			'IsSM ports') inism=1 ;;
			'IsSMdisabled ports') inism=0 ;;
			esac
			if [ $inism = 1 ] && [[ $line =~ ^[[:space:]]*EndPortLid\.+([0-9]+)$ ]]; then
				lids+=("${BASH_REMATCH[1]}")
			fi
		done < "$t"
		[ ${#lids[@]} -gt 0 ] || { _oracle_err "saquery -s: no IsSM port"; rm -f "$t"; return 1; }
	fi
	# sminfo: sm lid 1 sm guid 0x100001, activity count 264 priority 0 state 3 SMINFO_MASTER
	local re='^sminfo: sm lid ([0-9]+) sm guid (0x[0-9a-fA-F]+), activity count [0-9]+ priority ([0-9]+) state [0-9]+ SMINFO_([A-Z]+)$'
	for lid in "${lids[@]}"; do
		_oracle_tool "$t" sminfo "$lid" || { rc=1; break; }
		line=$(cat "$t")
		if [[ $line =~ $re ]]; then
			_oracle_guid smguid "${BASH_REMATCH[2]}"
			echo "${BASH_REMATCH[1]} $smguid ${BASH_REMATCH[3]} ${BASH_REMATCH[4],,}"
		else
			_oracle_bad sminfo "$line"
			rc=1
			break
		fi
	done > "$t.out"
	[ $rc = 0 ] && LC_ALL=C sort -n "$t.out"
	rm -f "$t" "$t.out"
	return $rc
}
