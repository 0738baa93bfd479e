# shellcheck shell=bash
# sim.sh -- a simulated InfiniBand fabric for the fabric tier (source it).
#
#   . tests/fabric/sim.sh
#   sim_trap                          # sim_stop on every exit of the script
#   sim_start "$dir" "$dir/small.net" # ibsim, console FIFO, private socket
#   sim_sm_start                      # OpenSM on the first node, SUBNET UP
#   SIM_HOST=login01 sim_sm_start -p 10   # a second SM on another node
#   sim_run iblinkinfo -l             # any libibumad program, under ibsim
#   sim_console 'Unlink "leaf01"[7]'  # a console command, once processed
#   sim_stop                          # SMs (SIGINT), ibsim, the sleeper
#
# ibsim-utils 0.10 + OpenSM 3.3.23 (see "The simulator" in tests/fabric/README.md).
# One simulated fabric per shell: its state is in the SIM_* variables below.
# Every program runs with the fabric's DIR as its cwd (umad2sim writes
# ./sys-<pid>/ there). Start and stop SMs from the script's own shell, not
# from a $(...) subshell: their pids must be this shell's children. Every
# wait polls with a deadline; functions return non-zero (and say why on
# stderr) when a deadline passes or a process dies.
#
# Settings (environment): SIM_RUN_TIMEOUT (sim_run, default 120 s),
# SIM_START_TIMEOUT (ibsim ready, 30 s), SIM_SM_TIMEOUT (OpenSM up, 60 s),
# SIM_STOP_TIMEOUT (each process to end after its signal, 20 s).

# shellcheck disable=SC2034 # SIM_SM_STATE, SIM_SM_LOGS are read by scenarios
SIM_DIR=""		# the fabric's directory (absolute)
SIM_SOCK=""		# its IBSIM_SOCKNAME (exported while it runs)
SIM_IBSIM_PID=""	# ibsim
SIM_SLEEPER_PID=""	# holds DIR/console open for writing
SIM_SM_PIDS=()		# OpenSM pids, index 0 = SM 1; "" once stopped
SIM_SM_LOGS=()		# their logs
SIM_SM_STATE=""		# what the last sim_sm_start saw: master | standby
_sim_count=0

_sim_err() { echo "sim: $*" >&2; }

# Deadlines in microseconds of $EPOCHREALTIME; _sim_past and _sim_alive run
# in every poll of a wait loop, so they fork nothing.
_sim_deadline() { local t=${EPOCHREALTIME/./}; echo $((10#$t + $1 * 1000000)); }
_sim_past() { local t=${EPOCHREALTIME/./}; [ $((10#$t)) -gt "$1" ]; }

# _sim_alive PID: the process exists and is not a zombie.
_sim_alive() {
	local st=""
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
	read -r st < "/proc/$1/stat" 2>/dev/null || return 1
	st=${st##*) }	# "pid (comm) S ...": the state after the command name
	st=${st%% *}
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# _sim_record PID: note a pid this harness started (DIR/sim.pids, for the
# runner's check that nothing outlived the scenario).
_sim_record() { echo "$1" >> "$SIM_DIR/sim.pids"; }

# _sim_end PID SIGNAL NAME: send SIGNAL, wait with a deadline (SIGKILL
# after it, then fail), reap the child.
_sim_end() {
	local pid=$1 sig=$2 name=$3 dl rc=0
	[ -n "$pid" ] || return 0
	if _sim_alive "$pid"; then
		kill "-$sig" "$pid" 2>/dev/null
		dl=$(_sim_deadline "${SIM_STOP_TIMEOUT:-20}")
		while _sim_alive "$pid"; do
			if _sim_past "$dl"; then
				_sim_err "$name (pid $pid) still runs ${SIM_STOP_TIMEOUT:-20} s after SIG$sig: SIGKILL"
				kill -KILL "$pid" 2>/dev/null
				rc=1
				break
			fi
			sleep 0.05
		done
	fi
	wait "$pid" 2>/dev/null
	return $rc
}

# sim_wait SECONDS CMD [ARG...]: run CMD until it succeeds, every 0.1 s,
# for at most SECONDS; fails after that.
sim_wait() {
	local dl
	dl=$(_sim_deadline "$1")
	shift
	until "$@"; do
		_sim_past "$dl" && return 1
		sleep 0.1
	done
}

# _sim_sock_up NAME: ibsim has bound its control socket (@NAME:ctl).
_sim_sock_up() { grep -Eq " @$1:ctl(@|\$)" /proc/net/unix; }

# sim_start DIR NETFILE [IBSIM_ARGS...]: make DIR, start ibsim -s NETFILE
# there (extra arguments go to ibsim, e.g. -N/-S/-P for big fabrics) with
# its console on the FIFO DIR/console and its output in DIR/ibsim.log; wait
# until it is ready (its log says "Network simulator ready.", its prompt is
# out and its socket is bound). Exports IBSIM_SOCKNAME.
sim_start() {
	local dir=$1 net=$2 dl
	shift 2
	[ -z "$SIM_IBSIM_PID" ] || { _sim_err "a fabric already runs in $SIM_DIR"; return 1; }
	[ -r "$net" ] || { _sim_err "no net file $net"; return 1; }
	mkdir -p "$dir" || return 1
	SIM_DIR=$(cd "$dir" && pwd -P) || return 1
	net=$(cd "$(dirname "$net")" && pwd -P)/$(basename "$net")
	_sim_count=$((_sim_count + 1))
	# Short and unique: the script's pid and a counter ("@rf12345.1:out9").
	SIM_SOCK="rf$BASHPID.$_sim_count"
	if _sim_sock_up "$SIM_SOCK"; then
		_sim_err "socket name $SIM_SOCK is taken"
		return 1
	fi
	export IBSIM_SOCKNAME=$SIM_SOCK
	rm -f "$SIM_DIR/console" && mkfifo "$SIM_DIR/console" || return 1
	: > "$SIM_DIR/ibsim.log"
	: > "$SIM_DIR/sim.pids"
	echo "$SIM_SOCK" > "$SIM_DIR/sim.sock"
	# ibsim opens the FIFO for reading, the sleeper for writing (each open
	# waits for the other); the sleeper keeps it open so that ibsim never
	# reads end-of-file between two sim_console commands.
	(cd "$SIM_DIR" && exec ibsim -s "$net" "$@" < console > ibsim.log 2>&1) &
	SIM_IBSIM_PID=$!
	_sim_record "$SIM_IBSIM_PID"
	sleep infinity > "$SIM_DIR/console" 2>/dev/null &
	SIM_SLEEPER_PID=$!
	_sim_record "$SIM_SLEEPER_PID"
	dl=$(_sim_deadline "${SIM_START_TIMEOUT:-30}")
	until grep -q '^Network simulator ready' "$SIM_DIR/ibsim.log" &&
		grep -q 'sim> ' "$SIM_DIR/ibsim.log" && _sim_sock_up "$SIM_SOCK"; do
		if ! _sim_alive "$SIM_IBSIM_PID"; then
			_sim_err "ibsim ended while starting on $net:"
			grep -v 'cannot parse remote lid' "$SIM_DIR/ibsim.log" | tail -5 | sed 's/^/sim:   /' >&2
			sim_stop
			return 1
		fi
		if _sim_past "$dl"; then
			_sim_err "ibsim not ready after ${SIM_START_TIMEOUT:-30} s (see $SIM_DIR/ibsim.log)"
			sim_stop
			return 1
		fi
		sleep 0.05
	done
}

# _sim_prompts: how many console prompts ibsim has printed (one at start,
# one after each command it processed).
_sim_prompts() { grep -o 'sim> ' "$SIM_DIR/ibsim.log" | wc -l; }

# sim_console LINE: send one console command (Unlink "leaf01"[7], ReLink,
# PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=250, Error,
# Baselid, Guid, Attached, X N...) and wait until ibsim has processed it: it
# prints a new prompt after each command. Prints the command's answer (ibsim's
# asynchronous ibwarn lines left out); fails if the answer is an error
# ("# nodeid ... not found", "command ... unknown - skipped").
sim_console() {
	local line=$1 before dl answer
	if [ -z "$SIM_IBSIM_PID" ] || ! _sim_alive "$SIM_IBSIM_PID"; then
		_sim_err "no ibsim runs"
		return 1
	fi
	case $line in *$'\n'*) _sim_err "one line at a time: $line"; return 1 ;; esac
	# ibsim reads at most 127 bytes of a console line.
	[ ${#line} -le 120 ] || { _sim_err "console line too long (${#line} > 120): $line"; return 1; }
	before=$(_sim_prompts)
	# The FIFO has a reader (ibsim), so the open cannot block; the timeout
	# is for the case it died between the check and the write.
	# shellcheck disable=SC2016 # the inner shell's arguments
	timeout 5 bash -c 'printf "%s\n" "$1" > "$2"' sh "$line" "$SIM_DIR/console" ||
		{ _sim_err "cannot write to the console of ibsim"; return 1; }
	dl=$(_sim_deadline 10)
	while [ "$(_sim_prompts)" -le "$before" ]; do
		_sim_alive "$SIM_IBSIM_PID" || { _sim_err "ibsim ended on: $line"; return 1; }
		_sim_past "$dl" && { _sim_err "ibsim did not process '$line' within 10 s"; return 1; }
		sleep 0.02
	done
	# The answer: the text between the prompt before and the next one.
	answer=$(awk -v n="$before" 'BEGIN { RS = "sim> " } NR == n + 1 { printf "%s", $0 }' \
		"$SIM_DIR/ibsim.log" | grep -v '^ibwarn: ')
	[ -z "$answer" ] || printf '%s\n' "$answer"
	if printf '%s\n' "$answer" | grep -Ev '^# (Net status|  dumped)' |
		grep -Eq '^# |unknown - skipped'; then
		_sim_err "ibsim refused '$line': $(printf '%s' "$answer" | head -1)"
		return 1
	fi
	return 0
}

# sim_sm_start [OPENSM_ARGS...]: start OpenSM (ibsim-run opensm -d2 -f LOG
# ARGS) on the node SIM_HOST names (default: the first node of the net
# file). SM 1 logs to DIR/osm.log with OSM_CACHE_DIR=DIR, SM n > 1 to
# DIR/osm<n>.log with DIR/sm<n>/. Waits up to SIM_SM_TIMEOUT for "SUBNET UP"
# (it is master) or "Entering STANDBY state" in its log; SIM_SM_STATE says
# which. ibsim accepts one SM per node.
#
# Two SMs are fragile under ibsim 0.10 (see README.md): a standby OpenSM
# sends trap 144 to the master and ibsim drops the master's TrapRepress, so
# that transaction never ends (umad2sim has no MAD timeouts) and the standby,
# once made master, waits for it forever; and a TrapRepress makes ibsim
# forget the TID of the master's SMInfo query to the other SM, whose answer
# is then dropped. Start the SM meant to be master first, alone, and the
# others after it with a lower priority.
sim_sm_start() {
	local n=$((${#SIM_SM_PIDS[@]} + 1)) log cache out pid dl host=${SIM_HOST:-}
	[ -n "$SIM_IBSIM_PID" ] || { _sim_err "sim_sm_start before sim_start"; return 1; }
	if [ "$n" = 1 ]; then
		log=$SIM_DIR/osm.log cache=$SIM_DIR out=$SIM_DIR/osm.out
	else
		log=$SIM_DIR/osm$n.log cache=$SIM_DIR/sm$n out=$SIM_DIR/osm$n.out
		mkdir -p "$cache" || return 1
	fi
	: > "$log"
	(
		cd "$SIM_DIR" || exit 1
		if [ -n "$host" ]; then export SIM_HOST=$host; else unset SIM_HOST; fi
		OSM_CACHE_DIR=$cache OSM_TMP_DIR=$cache exec ibsim-run opensm -d2 -f "$log" "$@"
	) > "$out" 2>&1 < /dev/null &
	pid=$!
	_sim_record "$pid"
	SIM_SM_PIDS+=("$pid")
	SIM_SM_LOGS+=("$log")
	SIM_SM_STATE=""
	dl=$(_sim_deadline "${SIM_SM_TIMEOUT:-60}")
	while :; do
		if grep -q 'SUBNET UP' "$log"; then SIM_SM_STATE=master; return 0; fi
		if grep -q 'Entering STANDBY state' "$log"; then SIM_SM_STATE=standby; return 0; fi
		if ! _sim_alive "$pid"; then
			wait "$pid" 2>/dev/null
			SIM_SM_PIDS[n - 1]=""
			_sim_err "OpenSM $n${host:+ on $host} ended while starting:"
			{ grep -v 'sim_connect: attached' "$out"; tail -3 "$log"; } | tail -6 | sed 's/^/sim:   /' >&2
			return 1
		fi
		if _sim_past "$dl"; then
			_sim_err "OpenSM $n${host:+ on $host}: no SUBNET UP or STANDBY after ${SIM_SM_TIMEOUT:-60} s (see $log)"
			return 1
		fi
		sleep 0.05
	done
}

# sim_sm_stop [N|all]: stop SM N (1 = the first started) or all of them
# (default): SIGINT (OpenSM hangs on SIGTERM), wait with a deadline.
sim_sm_stop() {
	local which=${1:-all} i rc=0
	for i in "${!SIM_SM_PIDS[@]}"; do
		[ "$which" = all ] || [ "$which" = $((i + 1)) ] || continue
		[ -n "${SIM_SM_PIDS[i]}" ] || continue
		_sim_end "${SIM_SM_PIDS[i]}" INT "OpenSM $((i + 1))" || rc=1
		SIM_SM_PIDS[i]=""
	done
	return $rc
}

# sim_run CMD [ARG...]: run CMD under ibsim-run in DIR with a timeout
# (SIM_RUN_TIMEOUT, default 120 s; SIGKILL 5 s after it). stdout as it is,
# stderr without umad2sim's "sim_connect: attached" lines; CMD's status (124
# on a timeout). A client that did not end cleanly keeps its ibsim slot
# (there are 10): sim_reap frees them.
sim_run() {
	local err rc
	[ -n "$SIM_DIR" ] || { _sim_err "sim_run before sim_start"; return 1; }
	err=$(mktemp "$SIM_DIR/.run-err.XXXXXX") || return 1
	(cd "$SIM_DIR" && exec timeout -k 5 "${SIM_RUN_TIMEOUT:-120}" ibsim-run "$@") 2> "$err"
	rc=$?
	grep -v 'sim_connect: attached' "$err" >&2
	rm -f "$err"
	if [ "$rc" -ge 124 ]; then
		[ "$rc" != 124 ] || _sim_err "$1: timed out after ${SIM_RUN_TIMEOUT:-120} s"
		sim_reap > /dev/null
	fi
	return $rc
}

# sim_reap: free the ibsim slots of clients that are gone (console
# "Attached", then "X n" for each whose pid no longer runs). Prints the
# clients it freed.
sim_reap() {
	local line id pid
	while read -r line; do
		[[ $line =~ ^Client\ ([0-9]+):\ pid\ ([0-9]+)\  ]] || continue
		id=${BASH_REMATCH[1]} pid=${BASH_REMATCH[2]}
		_sim_alive "$pid" && continue
		sim_console "X $id" > /dev/null && echo "freed client $id (pid $pid)"
	done <<< "$(sim_console Attached)"
}

# sim_pids: the pids this fabric started that still run.
sim_pids() {
	local p
	[ -n "$SIM_DIR" ] && [ -f "$SIM_DIR/sim.pids" ] || return 0
	while read -r p; do
		_sim_alive "$p" && echo "$p"
	done < "$SIM_DIR/sim.pids"
	return 0
}

# sim_leftovers [SOCKNAME]: ibsim and opensm processes of that fabric
# (default: this one) that still run, found by pgrep and their exact
# IBSIM_SOCKNAME; prints "pid name", fails if there is one.
sim_leftovers() {
	local sock=${1:-$SIM_SOCK} p found=1
	[ -n "$sock" ] || return 0
	for p in $(pgrep -x ibsim) $(pgrep -x opensm); do
		_sim_alive "$p" || continue
		if tr '\0' '\n' 2>/dev/null < "/proc/$p/environ" | grep -qxF "IBSIM_SOCKNAME=$sock"; then
			echo "$p $(cat "/proc/$p/comm" 2>/dev/null)"
			found=0
		fi
	done
	[ $found = 1 ]
}

# sim_stop: stop everything this fabric started (SMs first, with SIGINT;
# then ibsim; then the sleeper), remove the FIFO and the sys-<pid>/ trees
# of clients that did not clean up. Safe to call twice. Logs stay in DIR.
sim_stop() {
	local rc=0
	sim_sm_stop all || rc=1
	if [ -n "$SIM_IBSIM_PID" ]; then
		_sim_end "$SIM_IBSIM_PID" TERM ibsim || rc=1
		SIM_IBSIM_PID=""
	fi
	if [ -n "$SIM_SLEEPER_PID" ]; then
		_sim_end "$SIM_SLEEPER_PID" TERM "console sleeper" || rc=1
		SIM_SLEEPER_PID=""
	fi
	if [ -n "$SIM_DIR" ]; then
		rm -f "$SIM_DIR/console" "$SIM_DIR"/.run-err.*
		rm -rf "$SIM_DIR"/sys-[0-9]*
	fi
	SIM_SM_PIDS=() SIM_SM_LOGS=()
	[ -z "${IBSIM_SOCKNAME:-}" ] || [ "$IBSIM_SOCKNAME" != "$SIM_SOCK" ] || unset IBSIM_SOCKNAME
	return $rc
}

# sim_trap: make every exit of the calling script run sim_stop (SIGINT and
# SIGTERM become an exit with 130/143, so the EXIT trap runs).
sim_trap() {
	trap 'sim_stop' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
