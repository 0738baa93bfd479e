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
	return "$rc"
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
	return "$rc"
}

# sim_run CMD [ARG...]: run CMD under ibsim-run in DIR with a timeout
# (SIM_RUN_TIMEOUT, default 120 s). stdout as it is (written when CMD has
# ended), stderr without umad2sim's "sim_connect: attached" lines; CMD's
# status (124 on a timeout). A CMD still running at the deadline first has
# its threads' stacks written to stderr and the scenario's log (gdb, and the
# kernel's view from /proc), so a wait that never ends says where it waits;
# then SIGTERM, and SIGKILL 5 s later. A client that did not end cleanly
# keeps its ibsim slot (there are 10): sim_reap frees them.
#
# Two faults of ibsim's umad2sim (see tests/fabric/README.md), told apart
# from the program's own by their stacks and logged in the scenario's log:
# its exit handler deadlocked after the program called exit(N) (status N);
# its reader thread crashed on a late reply (CMD runs again, at most twice
# more). The tier's programs are single-threaded, so a fault in another
# thread is the reader's: FABRIC_SEGV_REPORT (segv-report.so, preloaded)
# names the thread in a build without sanitizers, ASan's report in one with.
sim_run() {
	local out rc try=1
	[ -n "$SIM_DIR" ] || { _sim_err "sim_run before sim_start"; return 1; }
	out=$(mktemp "$SIM_DIR/.run-out.XXXXXX") || return 1
	while :; do
		_sim_run_once "$out" "$@"
		rc=$?
		if [ "$_sim_rerun" != 1 ] || [ $try -ge 3 ]; then break; fi
		try=$((try + 1))
	done
	cat "$out"
	rm -f "$out"
	return "$rc"
}

# _sim_note TEXT FILE: a note about ibsim for the scenario's log (lib.sh's
# FAB_LOG_FD, else stderr), FILE's lines under it.
_sim_note() {
	{
		echo "# sim_run: $1"
		[ ! -s "$2" ] || sed 's/^/#     /' "$2"
	} >&"${FAB_LOG_FD:-2}"
}

# _sim_run_once OUT CMD...: one run of sim_run, stdout into OUT; sets
# _sim_rerun=1 when umad2sim's reader crashed and took the run with it.
_sim_run_once() {
	local out=$1 err stacks rc pid wd st san t=${SIM_RUN_TIMEOUT:-120}
	shift
	_sim_rerun=0
	err=$(mktemp "$SIM_DIR/.run-err.XXXXXX") || return 1
	stacks=$(mktemp -u "$SIM_DIR/.run-stacks.XXXXXX") || return 1
	# stdin kept: without job control a background command would read /dev/null
	if [ -n "${FABRIC_SEGV_REPORT:-}" ]; then
		# shellcheck disable=SC2016 # the inner shell's $LD_PRELOAD (ibsim-run's) and $0
		(cd "$SIM_DIR" && exec ibsim-run sh -c 'LD_PRELOAD="$LD_PRELOAD:$0" exec "$@"' \
			"$FABRIC_SEGV_REPORT" "$@") 0<&0 > "$out" 2> "$err" &
	else
		(cd "$SIM_DIR" && exec ibsim-run "$@") 0<&0 > "$out" 2> "$err" &
	fi
	pid=$!
	_sim_watchdog "$pid" "$t" "$stacks" > /dev/null 2>&1 < /dev/null &
	wd=$!
	wait "$pid"
	rc=$?
	kill "$wd" 2> /dev/null
	wait "$wd" 2> /dev/null
	rm -f "$stacks.tmp"
	if [ -e "$stacks" ]; then
		st=$(_sim_umad2sim_exit "$stacks")
		if [ -n "$st" ]; then
			rc=$st
			_sim_note "$1: exited with status $st, but umad2sim's exit handler deadlocked (an ibsim bug); counted as status $st. Its stacks:" "$stacks"
		else
			rc=124
			_sim_err "$1: timed out after $t s; where it was:"
			sed 's/^/    /' "$stacks" >&2
			[ -z "${FAB_LOG_FD:-}" ] || _sim_note "$1: timed out after $t s; where it was:" "$stacks"
		fi
		rm -f "$stacks"
		sim_reap > /dev/null
	elif san=$(_sim_asan_report "$pid") && [ -n "$san" ] && _sim_reader_fault "$san"; then
		# ASan's report of the reader's fault: not the program's; kept aside, not counted
		mkdir -p "${san%/*}/../san-ibsim" && mv "$san" "${san%/*}/../san-ibsim/"
		case $rc in
		0 | 1 | 2) _sim_note "$1: umad2sim's reader thread faulted as the program ended (an ibsim bug); status $rc stands. ASan's report, set aside:" "${san%/*}/../san-ibsim/${san##*/}" ;;
		*) _sim_rerun=1
		   _sim_note "$1: umad2sim's reader thread crashed (an ibsim bug), status $rc; run again. ASan's report, set aside:" "${san%/*}/../san-ibsim/${san##*/}" ;;
		esac
	elif _sim_reader_fault "$err"; then
		if [ "$rc" = 139 ] || [ "$rc" = 135 ]; then
			_sim_rerun=1
			_sim_note "$1: umad2sim's reader thread crashed (an ibsim bug), status $rc; run again. Its report:" "$err"
		else
			# the program's exit ended the process while the reader's report was written
			_sim_note "$1: umad2sim's reader thread faulted as the program ended (an ibsim bug); status $rc stands. Its report:" "$err"
			awk '/^segv-report: / { skip = 1; next } skip && /^[^ ]*\(.*\) *\[0x[0-9a-f]+\]$/ { next } { skip = 0; print }' \
				"$err" > "$err.kept" && mv "$err.kept" "$err"
		fi
	fi
	if [ "$_sim_rerun" = 1 ]; then
		sim_reap > /dev/null
	else
		grep -v 'sim_connect: attached' "$err" >&2
		[ "$rc" -lt 124 ] || sim_reap > /dev/null
	fi
	rm -f "$err"
	return "$rc"
}

# _sim_umad2sim_exit STACKS: the exit status, if the main thread's stack (the
# thread whose LWP is the first pid of STACKS) is umad2sim's exit handler
# joining its reader thread: frames pthread_join, then one in libumad2sim.so
# called by __run_exit_handlers (status=N). That is ibsim's own deadlock:
# umad2sim_cleanup holds global_devices_mutex while it cancels and joins the
# reader, and a reader that got a late reply waits for that mutex, which is
# no cancellation point. The program had already returned from main (or
# called exit) with N, and its own exit handlers, which run first, had
# flushed its output. Prints nothing for any other stack.
_sim_umad2sim_exit() {
	awk '
		!pid && match($0, /^ *pid [0-9]+:/) { pid = $2; sub(/:/, "", pid) }
		/^ *Thread / { main = pid && index($0, "(LWP " pid ")"); next }
		!main || !/^ *#[0-9]/ { next }
		/pthread_(clock)?join/ { joined = 1; prev = ""; next }
		joined && prev == "umad2sim" && match($0, /__run_exit_handlers \(status=[0-9]+/) {
			s = substr($0, RSTART, RLENGTH); sub(/.*=/, "", s); print s; exit
		}
		{ prev = (joined && /from [^ ]*libumad2sim\.so/) ? "umad2sim" : "" }
	' "$1"
}

# _sim_asan_report PID: the path of ASan's report for PID, if the program ran
# with ASAN_OPTIONS log_path=P (run.sh's sanitizer mode) and one was written.
_sim_asan_report() {
	local lp
	lp=$(printf '%s\n' "${ASAN_OPTIONS:-}" | tr ':' '\n' | sed -n 's/^log_path=//p' | tail -1)
	[ -n "$lp" ] && [ -s "$lp.$1" ] && echo "$lp.$1"
	return 0
}

# _sim_reader_fault FILE: FILE (segv-report.so's lines, or an ASan report)
# shows a fault in a thread other than the main one, and where it names
# frames, one of them is libumad2sim.so's.
_sim_reader_fault() {
	awk '
		/^segv-report: pid [0-9]+ thread [0-9]+ \(not the main thread\)/ { other = 1; next }
		/ERROR: AddressSanitizer: SEGV on unknown address .* T[1-9][0-9]*\)$/ { other = 1; next }
		other && /libumad2sim\.so/ { umad = 1 }
		other && (/^ *#[0-9]+ / || /^[^ ]*\(.*\) *\[0x[0-9a-f]+\]$/) { frames = 1 }
		END { exit !(other && (umad || !frames)) }
	' "$1"
}

# _sim_watchdog PID SECS OUT: if PID still runs after SECS, write its
# threads' stacks (and those of its children: LeakSanitizer's tracer is one)
# to OUT, then SIGTERM it, and SIGKILL 5 s later.
_sim_watchdog() {
	local pid=$1 out=$3 end=$((SECONDS + $2)) p task
	while kill -0 "$pid" 2> /dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			{
				for p in "$pid" $(pgrep -P "$pid"); do
					echo "pid $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)"
					for task in /proc/"$p"/task/*; do
						[ -d "$task" ] || continue
						echo "  thread ${task##*/} $(awk '{ print "state " $3 }' "$task/stat" 2> /dev/null)" \
							"wchan $(cat "$task/wchan" 2> /dev/null)"
						sed 's/^/    kernel: /' "$task/stack" 2> /dev/null
					done
					if command -v gdb > /dev/null; then
						timeout 60 gdb -batch -nx -p "$p" -ex 'thread apply all bt' 2>&1 |
							grep -E '^(Thread|#)|ptrace|[Cc]ould not' | head -n 200 | sed 's/^/  /'
					fi
				done
			} > "$out.tmp" 2>&1
			mv "$out.tmp" "$out"
			kill -TERM "$pid" 2> /dev/null
			sleep 5
			kill -KILL "$pid" 2> /dev/null
			return 0
		fi
		sleep 0.2
	done
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
	return "$rc"
}

# sim_trap: make every exit of the calling script run sim_stop (SIGINT and
# SIGTERM become an exit with 130/143, so the EXIT trap runs).
sim_trap() {
	trap 'sim_stop' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
