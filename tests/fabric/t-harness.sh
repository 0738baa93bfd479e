#!/bin/bash
# Fabric scenario: the harness proves itself on the small fabric (gen-net.sh
# small, with h005's link written 1X and h006's SDR). ibsim and OpenSM start
# and stop; before the SM every cabled port is Init and the oracles that need
# LIDs or an SA fail loudly; after SUBNET UP oracle_links has every cabled
# port Active at its rate, from both ends, and the uncabled leaf01[8] Down;
# PerformanceSet shows in oracle_counters; Unlink and ReLink show in
# oracle_links; a killed client's ibsim slot is freed by sim_reap; the
# oracles refuse output they cannot parse; with no SM sminfo gets no answer;
# an SM of higher priority on login01 is master and h001's standby
# (oracle_sms); nothing of the run is left after sim_stop.
set -u
# shellcheck source=tests/fabric/lib.sh
. "$(dirname "$0")/lib.sh"

D=$FABRIC_DIR
net=$D/small.net
"$GEN_NET" small --1x h005 --sdr h006 > "$net"
fab_check_eq "gen-net.sh: h005's 1X link on both ends (w=1)" 2 "$(grep -c 'w=1$' "$net")"
fab_check_eq "gen-net.sh: h006's SDR link on both ends (s=1)" 2 "$(grep -c 's=1$' "$net")"

fab_check "sim_start: ibsim ready on the small fabric, private socket" sim_start "$D/sim" "$net" || exit 1
sock=$SIM_SOCK
fab_check_grep "IBSIM_SOCKNAME is exported, ours alone" "^$sock\$" printenv IBSIM_SOCKNAME

# Before any SM: links trained (Init), no LIDs, no SA.
oracle_links > "$D/links-nosm.txt"
fab_check_eq "before the SM: oracle_links lists 31 ports (22 switch, 9 HCA)" 31 "$(grep -c . "$D/links-nosm.txt")"
fab_check_eq "before the SM: every cabled port Init/LinkUp" 30 "$(grep -c ' Init LinkUp ' "$D/links-nosm.txt")"
fab_check_fails "before the SM: oracle_counters fails (no LIDs)" oracle_counters
fab_check_fails "before the SM: oracle_sms fails (no SA)" oracle_sms

fab_check "sim_sm_start: OpenSM reaches SUBNET UP" sim_sm_start || exit 1
fab_check_eq "the first SM is master" master "$SIM_SM_STATE"

fab_check "oracle_links" fab_save "$D/links.txt" oracle_links
fab_check "oracle_nodes" fab_save "$D/nodes.txt" oracle_nodes
fab_check_eq "oracle_nodes: 3 switches and 9 HCAs" "3 9" \
	"$(grep -c ' Switch ' "$D/nodes.txt") $(grep -c ' CA ' "$D/nodes.txt")"
fab_check_eq "oracle_nodes: an HCA's description is host and device" "h005 mlx5_0" \
	"$(grep "^$(oracle_guid 'h005 mlx5_0') " "$D/nodes.txt" | cut -d' ' -f4-)"
leaf01=$(oracle_guid leaf01) leaf02=$(oracle_guid leaf02) spine01=$(oracle_guid spine01)
h001=$(oracle_guid 'h001 mlx5_0') h005=$(oracle_guid 'h005 mlx5_0') h006=$(oracle_guid 'h006 mlx5_0')
login01=$(oracle_guid 'login01 mlx5_0')
L=$D/links.txt
fab_check_eq "oracle_links: 31 ports" 31 "$(grep -c . "$L")"
fab_check_eq "the uncabled leaf01[8] is Down/Polling, no rate, no peer" "$leaf01 8 Down Polling - - - -" \
	"$(grep "^$leaf01 8 " "$L")"
fab_check_eq "every other port is Active/LinkUp" 30 "$(grep -c ' Active LinkUp ' "$L")"
fab_check_eq "h005's link is 1X QDR, from both ends" \
	"$h005 1 Active LinkUp 1X QDR $leaf02 1"$'\n'"$leaf02 1 Active LinkUp 1X QDR $h005 1" \
	"$(grep ' 1X ' "$L")"
fab_check_eq "h006's link is 4X SDR, from both ends" \
	"$h006 1 Active LinkUp 4X SDR $leaf02 2"$'\n'"$leaf02 2 Active LinkUp 4X SDR $h006 1" \
	"$(grep ' SDR ' "$L")"
fab_check_eq "the 26 other cabled ports are 4X QDR" 26 "$(grep -c ' 4X QDR ' "$L")"
fab_check_eq "peers: leaf01[1] is h001[1], leaf02[8] login01[1], spine01[4] leaf02[5]" \
	"$(printf '%s\n' "$leaf01 1 $h001 1" "$leaf02 8 $login01 1" "$spine01 4 $leaf02 5" | sort | paste -sd'|')" \
	"$(awk -v a="$leaf01" -v b="$leaf02" -v c="$spine01" \
		'($1 == a && $2 == 1) || ($1 == b && $2 == 8) || ($1 == c && $2 == 4) { print $1, $2, $7, $8 }' "$L" |
		sort | paste -sd'|')"
fab_check_eq "every link is listed from both ends, alike" "" "$(fab_links_asym "$L")"

# Counters (before any link was unlinked: every other counter stays 0).
fab_check 'sim_console: PerformanceSet "leaf01"[2] SymbolErrorCounter=250' \
	sim_console 'PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=250'
fab_check 'sim_console: PerformanceSet "leaf02"[4] PortXmitWait=5000' \
	sim_console 'PerformanceSet "leaf02"[4] PortCounters.PortXmitWait=5000'
C=$D/counters.txt
fab_check "oracle_counters" fab_save "$C" oracle_counters
fab_check_eq "oracle_counters: 13 counters on each of the 31 ports" 403 "$(grep -c . "$C")"
fab_check_eq "oracle_counters: leaf01[2] SymbolErrorCounter 250" "$leaf01 2 SymbolErrorCounter 250" \
	"$(grep "^$leaf01 2 SymbolErrorCounter " "$C")"
fab_check_eq "oracle_counters: leaf02[4] PortXmitWait 5000" "$leaf02 4 PortXmitWait 5000" \
	"$(grep "^$leaf02 4 PortXmitWait " "$C")"
fab_check_eq "oracle_counters: every other counter is 0" 401 "$(grep -c ' 0$' "$C")"

# A cable pulled and put back.
fab_check 'sim_console: Unlink "leaf01"[7]' sim_console 'Unlink "leaf01"[7]'
fab_check_wait "oracle_links: leaf01[7] is Down" 30 fab_links_match "^$leaf01 7 Down Polling - - - -\$"
fab_check_eq "oracle_links: its far end spine01[3] is Down too, the rest still Active" \
	"$spine01 3 Down Polling - - - -|28" \
	"$(grep "^$spine01 3 " "$D/.links")|$(grep -c ' Active ' "$D/.links")"
fab_check 'sim_console: ReLink "leaf01"[7]' sim_console 'ReLink "leaf01"[7]'
fab_check_wait "after ReLink and the SM's sweep, leaf01[7] is Active 4X QDR to spine01[3]" 30 \
	fab_links_match "^$leaf01 7 Active LinkUp 4X QDR $spine01 3\$"
fab_check_fails "sim_console: an unknown node is an error" sim_console 'Unlink "nosuch"[1]'

# A client killed while attached keeps its slot until sim_reap frees it.
if command -v python3 > /dev/null; then
	(cd "$SIM_DIR" && exec ibsim-run python3 -c 'import ctypes, time
u = ctypes.CDLL("libibumad.so.3"); u.umad_init(); u.umad_open_port(None, 0); time.sleep(60)') \
		> /dev/null 2>&1 &
	cl=$!
	attached() { sim_console Attached | grep -q " pid $1 connected"; }
	fab_check_wait "a client that opened its umad port is attached" 10 attached "$cl"
	kill -KILL "$cl"
	wait "$cl" 2> /dev/null
	fab_check_grep "sim_reap frees the slot of the killed client" "^freed client [0-9]+ \(pid $cl\)\$" sim_reap
fi

# A command still running at SIM_RUN_TIMEOUT: its stacks on stderr, then it is
# ended, status 124, and its slot freed.
if command -v python3 > /dev/null; then
	hung() {
		FAB_LOG_FD="" SIM_RUN_TIMEOUT=2 sim_run python3 -c 'import ctypes, time
u = ctypes.CDLL("libibumad.so.3"); u.umad_init(); u.umad_open_port(None, 0); time.sleep(60)' \
			> /dev/null 2> "$D/hung.err"
	}
	clients() { sim_console Attached | grep -c '^Client [0-9]*: pid '; }
	n0=$(clients) t0=$SECONDS
	hung
	fab_check_eq "sim_run past SIM_RUN_TIMEOUT=2: status 124, within 10 s" "124 yes" \
		"$? $([ $((SECONDS - t0)) -le 10 ] && echo yes || echo "no ($((SECONDS - t0)) s)")"
	fab_check_grep "its stderr says it timed out and where it was" '^sim: python3: timed out after 2 s; where it was:$' \
		cat "$D/hung.err"
	fab_check_grep "... each thread's state and kernel wait channel, from /proc" '^ +thread [0-9]+ state [A-Z] wchan ' \
		cat "$D/hung.err"
	if command -v gdb > /dev/null; then
		fab_check_grep "... and its user-space stack, from gdb (frame #0)" '^ +#0 ' cat "$D/hung.err"
	fi
	fab_check_eq "its ibsim slot was freed (as many clients as before it)" "$n0" "$(clients)"
	fab_check_eq "that stack is not taken for umad2sim's exit deadlock" "" "$(_sim_umad2sim_exit "$D/hung.err")"
fi
# ibsim's own deadlock in umad2sim's exit handler (stacks the watchdog wrote
# when it happened): recognised, with the status the program exited with.
S=$RD_ROOT/tests/fabric/stacks-umad2sim-exit.txt
fab_check_eq "umad2sim's exit deadlock: recognised, the program's exit status 1" 1 "$(_sim_umad2sim_exit "$S")"
fab_check_eq "... not when that frame is another library's" "" \
	"$(sed 's/libumad2sim\.so/libother.so/' "$S" > "$D/stk" && _sim_umad2sim_exit "$D/stk")"
fab_check_eq "... nor when that stack is another thread's" "" \
	"$(sed 's/(LWP 23752)/(LWP 1)/' "$S" > "$D/stk" && _sim_umad2sim_exit "$D/stk")"
# All of this rests on rdma-fabric being single-threaded (a fault in another
# thread is then umad2sim's): it must not call pthread_create.
fab_bin=$FABRIC_BUILD/rdma-fabric
if ! head -c 4 "$fab_bin" | grep -q ELF; then	# the sanitizer mode's wrapper: its exec's target
	fab_bin=$(sed -n 's/.* exec \([^ ]*\) "\$@"$/\1/p' "$fab_bin")
fi
fab_check_eq "rdma-fabric ($fab_bin) does not call pthread_create" "ELF 0" \
	"$(head -c 4 "$fab_bin" | tail -c 3) $(nm -D --undefined-only "$fab_bin" | grep -cw pthread_create)"
# umad2sim's reader faulting on a late reply: ASan's report (as it was seen),
# and segv-report.so's lines, name a thread other than the main one.
A=$RD_ROOT/tests/fabric/asan-umad2sim-reader.txt
fab_check "ASan's report of the reader's fault (T1, no frames): umad2sim's" _sim_reader_fault "$A"
fab_check_fails "... not the main thread's (T0)" _sim_reader_fault <(sed 's/ T1)$/ T0)/' "$A")
fab_check_fails "... nor with frames none of which is libumad2sim.so's" _sim_reader_fault \
	<(cat "$A"; echo "    #0 0x7f4605aaa370 in rd_fab_probe lib/fabric/fabsweep.c:400")
# What sim_run does with such a report (a stand-in that writes it where
# ASAN_OPTIONS' log_path says, as ASan would): run again while it did not
# end with 0-2 (three runs at most), the report set aside either way.
fake_asan() {
	rm -rf "$D/fake"
	mkdir -p "$D/fake/san"
	# shellcheck disable=SC2016 # the inner shell's arguments
	ASAN_OPTIONS="exitcode=99:log_path=$D/fake/san/asan" FAB_LOG_FD="" sim_run \
		sh -c 'echo run >> "$1"; cp "$2" "$3.$$"; exit "$4"' sh "$D/fake/count" "$A" "$D/fake/san/asan" "$1" \
		> /dev/null 2>&1
	echo "$? $(wc -l < "$D/fake/count") $(find "$D/fake/san" -type f | wc -l) $(find "$D/fake/san-ibsim" -type f | wc -l)"
}
fab_check_eq "the reader's fault took the run (status 99): run 3 times, status 99, every report set aside" \
	"99 3 0 3" "$(fake_asan 99)"
fab_check_eq "the reader's fault as the run ended with 1: run once, 1 stands, the report set aside" \
	"1 1 0 1" "$(fake_asan 1)"
G=$RD_ROOT/tests/fabric/segv-umad2sim-reader.txt
fab_check "segv-report.so's lines of the reader's fault (another thread, a libumad2sim.so frame): umad2sim's" \
	_sim_reader_fault "$G"
fab_check_fails "... not when it is the main thread" _sim_reader_fault <(sed 's/(not the main thread)/(the main thread)/' "$G")
fab_check_fails "... nor when no frame is libumad2sim.so's" _sim_reader_fault <(sed 's/libumad2sim/libother/' "$G")
# ... and with segv-report.so's lines (a stand-in writes them to stderr): a
# crash (SIGSEGV) runs again, 3 runs at most; a run that ended with 1 stands,
# its stderr passed on without the report.
fake_segv() {
	rm -f "$D/fake-count"
	# shellcheck disable=SC2016 # the inner shell's arguments
	FAB_LOG_FD="" sim_run sh -c 'echo run >> "$1"; cat "$2" >&2; echo "tool: its own line" >&2
		if [ "$3" = segv ]; then kill -SEGV $$; fi; exit 1' sh "$D/fake-count" "$G" "$1" 2> "$D/fake.err"
	echo "$? $(wc -l < "$D/fake-count") $(grep -c '^segv-report: ' "$D/fake.err") $(grep -c '^tool: its own line$' "$D/fake.err")"
}
fab_check_eq "segv-report.so's report and SIGSEGV: run 3 times, status 139" "139 3 0 0" "$(fake_segv segv)"
fab_check_eq "segv-report.so's report as the run ended with 1: run once, 1 stands, stderr without the report" \
	"1 1 0 1" "$(fake_segv exit)"
if [ -n "${FABRIC_SEGV_REPORT:-}" ]; then
	# a live fault in a thread of the program's own (python's ctypes): reported,
	# not umad2sim's, so it stands (139) and is not run again
	crash() {
		sim_run python3 -c 'import ctypes, threading
t = threading.Thread(target=lambda: ctypes.string_at(0x40)); t.start(); t.join()' > /dev/null 2> "$D/crash.err"
	}
	crash
	fab_check_eq "a program's own thread that faults: status 139 (SIGSEGV), once" "139 1" \
		"$? $(grep -c '^segv-report: ' "$D/crash.err")"
	fab_check_grep "... segv-report.so names the thread and the address" \
		'^segv-report: pid [0-9]+ thread [0-9]+ \(not the main thread\) signal 11 address 0x40$' cat "$D/crash.err"
	fab_check_fails "... and it is not taken for umad2sim's" _sim_reader_fault "$D/crash.err"
fi

# The oracles never answer nothing.
_garbage() { echo "this is not what iblinkinfo prints"; }
_silent() { :; }
ORACLE_RUN=_garbage fab_check_fails "oracle_links fails on a line it cannot parse" oracle_links
ORACLE_RUN=_silent fab_check_fails "oracle_links fails on no output" oracle_links
ORACLE_RUN=_garbage fab_check_fails "oracle_sms fails on a line it cannot parse" oracle_sms 1

# SMs: with none left, nothing answers SMInfo; then login01's SM of priority
# 10 alone becomes master and h001's, of priority 0, joins as standby. (The
# master goes first: a higher-priority SM that joins as standby hangs in the
# handover under ibsim, see sim_sm_start; and no cable moves while two SMs
# run.)
fab_check "sim_sm_stop 1: the first SM ends on SIGINT" sim_sm_stop 1
fab_check_fails "with no SM: sminfo gets no answer from LID 1" oracle_sms 1
SIM_HOST=login01 fab_check "sim_sm_start: OpenSM on login01, priority 10" sim_sm_start -p 10
fab_check_eq "it is master" master "$SIM_SM_STATE"
SIM_HOST=h001 fab_check "sim_sm_start: another OpenSM on h001, priority 0" sim_sm_start
fab_check_eq "it is standby" standby "$SIM_SM_STATE"
gm=$(sed -n 's/^Using default GUID //p' "$D/sim/osm2.out")
gs=$(sed -n 's/^Using default GUID //p' "$D/sim/osm3.out")
printf -v gm '0x%016x' "$gm"
printf -v gs '0x%016x' "$gs"
# shellcheck disable=SC2119 # oracle_sms without LIDs: every IsSM port
sms_are() { [ "$(oracle_sms | cut -d' ' -f2- | sort)" = "$1" ]; }
fab_check_wait "oracle_sms: login01's SM master at priority 10, h001's standby at 0" 30 \
	sms_are "$gs 0 standby"$'\n'"$gm 10 master"
oracle_links > /dev/null
fab_check_eq "sminfo's GUIDs are the ports of login01 and h001" "$login01 $h001" \
	"${_O_NODE[$gm]:-?} ${_O_NODE[$gs]:-?}"
fab_check_eq "ibsim's client slots: only the two SMs (every sim_run client detached)" 2 \
	"$(sim_console Attached | grep -c '^Client [0-9]*: pid .* SM$')"

fab_check "sim_sm_stop 3: h001's SM ends on SIGINT" sim_sm_stop 3
fab_check "sim_stop: SMs, ibsim and the sleeper end" sim_stop
fab_check_eq "sim_pids: nothing this fabric started still runs" "" "$(sim_pids)"
fab_check "pgrep: no ibsim or opensm with this run's IBSIM_SOCKNAME" sim_leftovers "$sock"
fab_check_eq "no sys-<pid> tree left in the fabric's directory" "" "$(cd "$D/sim" && ls -d sys-* 2> /dev/null)"
