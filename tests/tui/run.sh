#!/bin/bash
# Screen tier: drive rdma-top's ncurses view in tmux (send-keys, capture-pane)
# on fixture sysroots: rows, sort, detail pane, help, pause, interval,
# absolute, resize, error highlighting (colour and NO_COLOR), devices
# vanishing, quitting by key, by signal and by -n.  A private tmux server
# (-L) is used and killed at the end; every wait polls capture-pane with a
# deadline (10 s), nothing asserts a time.
#
# usage: tests/tui/run.sh BUILD_DIR RESULT_FILE
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
build=$1 result=$2
top=$PWD/$build/rdma-top
F=$PWD/tests/fixtures
pass=0 fail=0
sock=rdtop-tui-$$
tmp=$(mktemp -d)
T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
	T kill-server 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
unset NO_COLOR

ok() { pass=$((pass + 1)); [ -z "${V:-}" ] || echo "ok: $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $1${2:+: $2}"
	[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/  | /'
}

if ! command -v tmux > /dev/null; then
	bad "tmux is not installed (apt-get install tmux)"
	mkdir -p "$(dirname "$result")"
	tier_secs=$(( $(date +%s) - tier_t0 ))
	echo "$pass $fail $tier_secs" > "$result"
	echo "tui: $pass passed, $fail failed (${tier_secs} s)"
	exit 1
fi

# A session that lives as long as the tier: tmux ends its server when the
# last session goes, and a new-session racing that exit found "no server
# running" under load (a kill-session, then at once the next start).
T new-session -d -s keep "sleep 3600"

# start NAME WIDTH HEIGHT ENV-AND-ARGS...: rdma-top in a fresh session; its
# exit status lands in $tmp/NAME.exit
start() {
	local name=$1 w=$2 h=$3; shift 3
	rm -f "$tmp/$name.exit"
	T new-session -d -s "$name" -x "$w" -y "$h" \
		"env TERM=screen $* ; echo \$? > $tmp/$name.exit; sleep 600"
	session=$name
}
screen() { T capture-pane -p -t "$session" "$@"; }
keys() { T send-keys -t "$session" "$@"; }
# wait_for NAME ERE [capture-pane options]: until a line of the screen matches
wait_for() {
	local name=$1 re=$2; shift 2
	local end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		if screen "$@" | grep -Eq -- "$re"; then
			ok "$name"
			return 0
		fi
		sleep 0.1
	done
	bad "$name" "no line matches /$re/" "$(screen "$@")"
	return 1
}
# wait_gone NAME ERE: until no line matches
wait_gone() {
	local end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		if ! screen | grep -Eq -- "$2"; then
			ok "$1"
			return 0
		fi
		sleep 0.1
	done
	bad "$1" "still on screen: /$2/" "$(screen)"
	return 1
}
# wait_exit NAME STATUS: the program ended with STATUS
wait_exit() {
	local end=$((SECONDS + 10)) st
	while [ $SECONDS -lt $end ]; do
		if [ -s "$tmp/$session.exit" ]; then
			st=$(cat "$tmp/$session.exit")
			if [ "$st" = "$2" ]; then ok "$1"; else bad "$1" "exit status $st, expected $2" "$(screen)"; fi
			return
		fi
		sleep 0.1
	done
	bad "$1" "still running" "$(screen)"
}

# ---- a copy we can change under it
cp -a "$F/mlx5-roce-dual" "$tmp/root"
C=$tmp/root/sys/class/infiniband

# bump FILE: keep a counter moving (every 0.1 s, for at most 20 s) until unbump
bump() {
	( v=100; for ((i = 0; i < 200; i++)); do v=$((v + 3)); printf '%s\n' $v > "$1"; sleep 0.1; done ) &
	bumper=$!
}
unbump() { kill "$bumper" 2> /dev/null; wait "$bumper" 2> /dev/null; }

# ---- rows, first refresh, header
start main 120 60 "$top" --sysroot "$tmp/root" -i 0.3 --color=never
wait_for "header: name, interval, port count" '^rdma-top - [0-9:]+ - every 0.3s - 2 ports - sort: DEV'
wait_for "column header" '^DEV +PORT +NETDEV +STATE +SPEED +TX Gb/s +RX Gb/s +TX pkt/s +RX pkt/s +UTIL% +ERR/s +CNP/s +ECN/s'
wait_for "row: mlx5_0 up at 100G" '^mlx5_0 +1 +ens1f0 +ACTIVE +100G'
wait_for "row: mlx5_1 down" '^mlx5_1 +1 +ens1f1 +DOWN +-'
wait_for "rates after the second sample" '^mlx5_0 +1 +ens1f0 +ACTIVE +100G +0\.00 +0\.00 +0 +0 +0\.0 +0 +0 +0'
wait_for "key hints on the last line" 'Enter detail +s sort'

# ---- sort: s walks the columns, S back
keys s
wait_for "s: sort by TX Gb/s" 'sort: TX Gb/s$'
keys s
wait_for "s again: RX Gb/s" 'sort: RX Gb/s$'
keys S S
wait_for "S S: back to the name" 'sort: DEV$'

# ---- error counters that move stand out; the sort by ERR/s puts them first
keys g
bump "$C/mlx5_1/ports/1/counters/port_rcv_errors"
keys s s s s s s
wait_for "sort: ERR/s" 'sort: ERR/s$'
wait_for "the port with errors first" '^mlx5_1 +1 +ens1f1 +DOWN .* [1-9][0-9.]* +0 +0$' -S 2 -E 2
# NO_COLOR style: bold + reverse (SGR 1 and 7) on the ERR/s cell (the
# selection stayed on mlx5_0, now second)
wait_for "errors/s in bold reverse without colour" $'mlx5_1.*\e\\[1;7m *[1-9][0-9.]*\e' -e -S 2 -E 2
unbump
keys S S S S S S g

# ---- selection and the detail pane
keys j
keys Enter
wait_for "Enter: detail of the selected port" '^mlx5_1 port 1 +ens1f1 +RoCE +DOWN +link -'
wait_for "detail: counter columns" '^COUNTER +DIR +VALUE +RATE +NOTE'
wait_for "detail: error counters first" '^(VL15_dropped|excessive_buffer|link_)' -S 3 -E 3
wait_for "detail: PMA data in 4-octet words" '^port_xmit_data +counters +[0-9]+ +[0-9.<]+ Gb/s +4-octet words'
wait_for "detail: hw counters too" '^rx_write_requests +hw_counters +[0-9]+ +'
keys z
wait_gone "z hides counters that did not move" '^port_xmit_data '
keys z
wait_for "z again shows them" '^port_xmit_data '
keys Escape
wait_for "Esc: back to the table" '^DEV +PORT +NETDEV'
keys d
wait_for "d opens the detail too" '^mlx5_1 port 1 '
keys d
wait_for "d closes it" '^DEV +PORT +NETDEV'

# ---- help
keys h
wait_for "h: help" 'rdma-top keys'
wait_for "help lists the keys" 'Enter, d +detail: every counter of the port'
keys x
wait_gone "any key closes the help" 'rdma-top keys'

# ---- pause, interval, absolute
keys p
wait_for "p: paused" ' - PAUSED$'
keys p
wait_gone "p again: running" 'PAUSED'
keys +
wait_for "+: longer interval" 'every 0\.5s'
keys -
wait_for "-: shorter interval" 'every 0\.2s'
keys a
wait_for "a: absolute totals" '^DEV +PORT +NETDEV +STATE +SPEED +TX bytes +RX bytes +TX pkts +RX pkts +UTIL% +ERRORS +CNP +ECN'
wait_for "a: totals in SI units" '^mlx5_0 +1 +ens1f0 +ACTIVE +100G +8\.61T +9\.12T +2\.10G +2\.23G'
keys a
wait_for "a again: rates" 'TX Gb/s'

# ---- resize: narrower drops columns from the right, nothing breaks
T resize-window -t main -x 60 -y 12
wait_for "narrow: header still there" '^rdma-top - '
wait_for "narrow: first columns kept" '^mlx5_0 +1 +ens1f0 +ACTIVE +100G'
wait_gone "narrow: ECN/s left out" 'ECN/s'
keys Enter
wait_for "narrow detail" '^COUNTER '
keys G
wait_for "detail scrolls to the end (G)" '^rx_write_requests '
keys g
wait_for "and back to the top (g)" '^VL15_dropped '
keys Escape
T resize-window -t main -x 120 -y 30
wait_for "wide again: ECN/s back" 'ECN/s'
wait_for "wide again: the header repainted" '^rdma-top - [0-9:]+ - every'

# ---- a device vanishing while it runs: marked gone, then dropped
dir=$(readlink -f "$C/mlx5_1")
rm "$C/mlx5_1" && rm -rf "$dir"
wait_for "vanished device marked gone" '^mlx5_1 +1 +ens1f1 +gone'
wait_for "header counts the live ports" ' - 1 port - '
wait_gone "gone row dropped after a while" '^mlx5_1 '
keys q
wait_exit "q quits with status 0" 0
T kill-session -t main

# ---- colour: red for errors/s (SGR 31)
cp -a "$F/mlx5-roce-dual" "$tmp/root2"
start colour 120 20 "$top" --sysroot "$tmp/root2" -i 0.3 --color=always
wait_for "colour view up" '^mlx5_0 '
printf '9\n' > "$tmp/root2/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_errors"
wait_for "errors/s in red" $'\e\\[1m\e\\[31m *[1-9]' -e
wait_for "ACTIVE in green" $'\e\\[32mACTIVE' -e
keys C-c
wait_exit "SIGINT (Ctrl-C) ends it cleanly" 0
T kill-session -t colour

# ---- NO_COLOR wins over --color=auto
start nocolor 120 20 NO_COLOR=1 "$top" --sysroot "$F/mlx5-roce-dual" -i 0.3
wait_for "NO_COLOR view up" '^mlx5_0 '
if screen -e | grep -q $'\e\\[3[0-7]m'; then bad "NO_COLOR: no colour codes" "" "$(screen -e)"; else ok "NO_COLOR: no colour codes"; fi
keys q
wait_exit "q (NO_COLOR)" 0
T kill-session -t nocolor

# ---- -n: ends by itself; rxe (no byte counter) shows "-" for Gb/s
start count 120 20 "$top" --sysroot "$F/rxe-plain" -i 0.5 -n 5
wait_for "rxe: no Gb/s, packets/s shown" '^rxe0 +1 +eth0 +ACTIVE +- +- +- +0 +0 +- +0$'
wait_exit "-n 5 ends after five refreshes" 0
T kill-session -t count

# ---- SIGTERM
start term 100 20 "$top" --sysroot "$F/ib-edr-hca" -i 0.3
wait_for "IB: link speed from the port rate" '^mlx5_0 +1 +ib0 +ACTIVE +100G'
# The pane's shell runs rdma-top as its one child: signal that pid only.
pane=$(T display-message -p -t term '#{pane_pid}')
kid=$(ps -o pid= --ppid "$pane" | head -1)
[ -n "$kid" ] && kill -TERM $kid
wait_exit "SIGTERM ends it cleanly" 0
T kill-session -t term

# ---- no keyboard (stdin /dev/null): runs to -n all the same
start nokbd 100 20 "$top" --sysroot "$F/rxe-plain" -i 0.3 -n 4 "< /dev/null"
wait_for "stdin /dev/null: the screen still runs" '^rxe0 +1 +eth0'
wait_exit "stdin /dev/null: -n 4 ends it" 0
T kill-session -t nokbd

# ---- a terminal ncurses cannot drive: one clear error, status 1
rm -f "$tmp/badterm.exit"
T new-session -d -s badterm -x 100 -y 20 \
	"env TERM=no-such-terminal $top --sysroot $F/rxe-plain; echo \$? > $tmp/badterm.exit; sleep 600"
session=badterm
wait_for "unknown TERM: says so and points to -b" '^rdma-top: cannot drive this terminal \(TERM=no-such-terminal\); -b prints'
wait_exit "unknown TERM: exit status 1" 1
T kill-session -t badterm

# ---- text tables on a terminal (issue #45): rdma-doctor's table fits a
# 100-column pane, DETAIL and FIX wrapped inside their columns; in a pipe the
# same run prints the CLI tier's text byte for byte
doctor=$PWD/$build/rdma-doctor
exp=$PWD/tests/cli/expected/doctor-roce-config.out
start tables 100 60 "$doctor" --sysroot "$F/doctor-roce-config" --interval 0 --color=never
wait_for "table on a terminal: the summary line" '^WARN: 52 checks on 2 devices'
wait_for "table on a terminal: the header" '^CHECK +OBJECT +STATUS +DETAIL +FIX$'
wait_for "table on a terminal: DETAIL wraps inside its column" '^ {32}[a-z(].*[^ ] +[^ ]'
if long=$(screen -J -S - | awk 'length($0) > 100'); [ -z "$long" ]; then
	ok "table on a terminal: no line wider than the terminal"
else
	bad "table on a terminal: no line wider than the terminal" "" "$long"
fi
if screen -J -S - | grep -q 'for p in 0 1 2 3 4 5 6 7; do echo'; then
	ok "table on a terminal: the ECN fix's first words on one line"
else
	bad "table on a terminal: the ECN fix's first words on one line" "" "$(screen -J -S -)"
fi
wait_exit "table on a terminal: exit status 0" 0
T kill-session -t tables
start tablespipe 100 20 "$doctor" --sysroot "$F/doctor-roce-config" --interval 0 "| cmp - $exp && echo SAME-AS-PIPE"
wait_for "table in a pipe on the same terminal: the CLI tier's text" '^SAME-AS-PIPE$'
T kill-session -t tablespipe
start tablescolor 100 60 "$doctor" --sysroot "$F/doctor-roce-config" --interval 0
wait_for "table on a terminal: STATUS in colour (auto)" $'^sys\\.memlock +node +\e\\[33mWARN' -e
T kill-session -t tablescolor
start tableso 100 40 "$doctor" --sysroot "$F/doctor-roce-config" --interval 0 -o check,fix --color=never
wait_for "-o on a terminal: FIX has the room" '^roce\.cm_mode +echo .RoCE v2. > /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode$'
T kill-session -t tableso

# rdma-gids on an 80-column terminal: the 39-character GIDs (and their
# addresses) wrap inside their columns, broken after a ':'; no line is wider
# than the terminal.
start gids80 80 40 "$PWD/$build/rdma-gids" --sysroot "$F/mlx5-roce-dual" --color=never
wait_for "rdma-gids at 80 columns: the header" '^DEV +PORT +INDEX +GID +ADDRESS +VER +NETDEV +VLAN$'
wait_for "rdma-gids at 80 columns: a GID broken after a ':', the row's other cells beside it" \
	'^mlx5_0 +1 +0 +fe80:[0-9a-f:]*: +fe80::[0-9a-f:]* +v1 +ens1f0 +-$'
if long=$(screen -J -S - | awk 'length($0) > 80'); [ -z "$long" ]; then
	ok "rdma-gids at 80 columns: no line wider than the terminal"
else
	bad "rdma-gids at 80 columns: no line wider than the terminal" "" "$long"
fi
wait_exit "rdma-gids at 80 columns: exit status 0" 0
T kill-session -t gids80

mkdir -p "$(dirname "$result")"
tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "tui$(case $build in *san*) echo "(asan+ubsan)";; esac): $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
