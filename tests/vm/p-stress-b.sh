#!/bin/bash
# Two hosts, VM b (10.10.0.2): the stress on the rdma-selftest server of VM a
# (p-stress-a.sh): warm-up clients, 1000 bad TCP exchange connections (and
# bogus rdma_cm requests), 100 real clients SIGKILLed at random moments, then
# a real client of each kind must still PASS.
# The random kill delays and client kinds come from a seed printed at the
# start; PS_SEED=N in the environment repeats a run's choices.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest
D=/tmp/p-stress
rm -rf "$D"
mkdir -p "$D"
NGARBAGE=1000 NKILL=100 NCM=10
# Warm-up and killed clients: a short run (about 3 s under TCG), whose
# bandwidth stage lasts 1 s (-D 1; 10 messages would take 0.1 s), so that
# random kills spread over all its stages; the final clients do a little more.
K=(--timeout 30 -n 10 --pings 10 -D 1)
Q=(--timeout 30 -n 20 --pings 10)
trap '' PIPE	# a write to a connection the server has reset must not end us

seed=${PS_SEED:-$((SRANDOM % 1000000))}
RANDOM=$seed
vm_log "seed $seed (PS_SEED=$seed repeats the kill delays and client kinds)"

if ! PORT=$(vm_get ps-port 120); then
	vm_fail "server on $PEER_IP ready" "no signal from a"
	exit 0
fi
PEER=$PEER_IP

# ms MS: seconds with three decimals, for vm_sleep and the log.
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
now_ms() { local s=${EPOCHREALTIME/./}; echo $((s / 1000)); }

# ---- warm-up: one client of each kind, timed (their lengths set the window
# of the random kill delays)
declare -A runlen=()
for kind in cm verbs; do
	extra=()
	[ "$kind" = cm ] || extra=(--verbs)
	t0=$(now_ms)
	# A failed one (a timeout) would make the kill delays long: 3 s then.
	vm_check_output "warm-up $kind client PASS" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
		timeout 180 "$S" "$PEER" -P "$PORT" "${extra[@]}" "${K[@]}" && runlen[$kind]=$(($(now_ms) - t0))
	vm_log "warm-up $kind client: $(ms "$(($(now_ms) - t0))") s"
done
vm_signal ps-warm-done
vm_wait ps-baseline 120 || vm_fail "baseline taken on a" "no signal"

# ---- 1000 bad connections to the TCP exchange port, shell builtins only
# (a fork costs ~50 ms under TCG).  An exchange message is 112 bytes, all
# integers big-endian (man rdma-selftest, THE --verbs EXCHANGE); built here as
# printf escapes.
b8() { printf -v "$1" '\\x%02x' $(($2 & 255)); }
b16() { printf -v "$1" '\\x%02x\\x%02x' $(($2 >> 8 & 255)) $(($2 & 255)); }
b32() { printf -v "$1" '\\x%02x\\x%02x\\x%02x\\x%02x' $(($2 >> 24 & 255)) $(($2 >> 16 & 255)) $(($2 >> 8 & 255)) $(($2 & 255)); }
printf -v Z64 '\\x00%.0s' {1..64}
IFS=. read -r o1 o2 o3 o4 <<<"$VM_IP"
printf -v GID '\\x00%.0s' {1..10}
GID+='\xff\xff'
printf -v g '\\x%02x\\x%02x\\x%02x\\x%02x' "$o1" "$o2" "$o3" "$o4"
GID+=$g
# msg VAR MAGIC VERSION TYPE QPN PSN MTU KIND SIZE WINDOW ITERS: set VAR to
# the printf format of that message (with our own RoCE v2 GID).
msg() {
	local var=$1 a b c d e f g h i j
	b32 a "$2"; b16 b "$3"; b16 c "$4"; b32 d "$5"; b32 e "$6"
	b8 f "$7"; b8 g "$8"; b32 h "$9"; b32 i "${10}"; b32 j "${11}"
	printf -v "$var" '%s' "$a$b$c$d$e\\x00\\x00$f$g$GID$h$i$j$Z64"
}
M=0x52445354
msg HELLO $M 1 1 0x11 1 3 3 65536 8 100	# a valid HELLO of a small client
msg V5 $M 5 1 0x11 1 3 3 65536 8 100	# a newer version: refused at its header
msg V0 $M 0 1 0x11 1 3 3 65536 8 100
msg BIG $M 1 1 0x11 1 3 3 0x40000000 8 100
msg WIN $M 1 1 0x11 1 3 3 65536 100000 100
msg ACC $M 1 2 0x11 1 3 3 65536 8 100
msg T9 $M 1 9 0x11 1 3 3 65536 8 100
msg QPN $M 1 1 1 1 3 3 65536 8 100
msg PSN $M 1 1 0x11 0x1000000 3 3 65536 8 100
msg MTU $M 1 1 0x11 1 9 3 65536 8 100
msg KIND $M 1 1 0x11 1 3 7 65536 8 100
msg V1 $M 1 1 0x11 1 3 2 65536 8 100	# RoCE v1 against a v2 port
BAD=(ACC T9 QPN PSN MTU KIND)
printf -v A112 'A%.0s' {1..112}
printf -v X4K 'x%.0s' {1..4096}

sent=0 refused=0 replies=0 bad_replies=0
declare -A kinds=()
# conn KIND FORMAT [EXPECT]: one connection that sends FORMAT (printf
# escapes) and hangs up; with EXPECT, first reads the server's REJECT and
# checks that it carries EXPECT.
conn() {
	local fd reply=
	if ! exec {fd}<>"/dev/tcp/$PEER/$PORT"; then
		refused=$((refused + 1))
		return
	fi 2>/dev/null
	sent=$((sent + 1))
	kinds[$1]=$((${kinds[$1]:-0} + 1))
	# shellcheck disable=SC2059 # the format is the message
	[ -z "$2" ] || printf "$2" 1>&"$fd" 2>/dev/null
	if [ -n "${3:-}" ]; then
		# NULs are dropped by read: the magic, then the reason text remain.
		IFS= read -r -N 300 -t 20 -u "$fd" reply 2>/dev/null
		replies=$((replies + 1))
		if [[ $reply != RDST*"$3"* ]]; then
			bad_replies=$((bad_replies + 1))
			[ "$bad_replies" -gt 3 ] || vm_log "$1: reply '${reply//[^[:print:]]/.}', expected '$3'"
		fi
	fi
	exec {fd}>&-
}

# garbage_stream S N: N connections of the mix, with its own random sequence;
# leaves its counts in $D/garbage.S.  Two streams run at once.
garbage_stream() {
	local s=$1 n=$2 i f k
	RANDOM=$((seed + s))
	for ((i = 0; i < n; i++)); do
		case $(((i + s) % 12)) in
		0) conn empty "" ;;
		1) conn text 'GET / HTTP/1.0\r\n\r\n' ;;
		2) conn truncated "${HELLO:0:$((4 * (1 + RANDOM % 111)))}" ;;
		3) conn oversized-text "$A112$X4K" ;;
		4) conn oversized-hello "$BIG$X4K" ;;
		5) conn version-5 "$V5" "server speaks exchange version 4, client 5" ;;
		6) conn version-0 "$V0" "server speaks exchange version 4, client 0" ;;
		7) conn size-1GiB "$BIG" "message size" ;;
		8) conn window-100000 "$WIN" "window 100000" ;;
		9) f=${BAD[RANDOM % ${#BAD[@]}]}; conn "bad-field" "${!f}" ;;
		10) conn gid-v1 "$V1" "GID type mismatch" ;;
		11) conn truncated-after-magic "${V5:0:$((4 * (4 + RANDOM % 100)))}" ;;
		esac
	done
	{
		echo "total $sent $refused $replies $bad_replies"
		for k in "${!kinds[@]}"; do echo "kind ${kinds[$k]} $k"; done
	} >"$D/garbage.$s"
}

t0=$(now_ms)
garbage_stream 1 $(((NGARBAGE - 10) / 2)) &
g1=$!
garbage_stream 2 $(((NGARBAGE - 10) - (NGARBAGE - 10) / 2)) &
g2=$!
wait "$g1" "$g2"
for f in "$D"/garbage.*; do
	while read -r what a b c d; do
		if [ "$what" = total ]; then
			sent=$((sent + a)) refused=$((refused + b)) replies=$((replies + c)) bad_replies=$((bad_replies + d))
		else
			kinds[$b]=$((${kinds[$b]:-0} + a))
		fi
	done <"$f"
done
# The slow ones last, each costs the server its --timeout: a valid HELLO from
# a client that hangs up before the reply, and half-open connections that
# never say a word.
for ((i = 0; i < 6; i++)); do conn hello-hangup "$HELLO"; done
hold=()
for ((i = 0; i < 4; i++)); do
	{ exec {fd}<>"/dev/tcp/$PEER/$PORT"; } 2>/dev/null || { refused=$((refused + 1)); continue; }
	hold+=("$fd")
	sent=$((sent + 1))
	kinds[half-open]=$((${kinds[half-open]:-0} + 1))
done
vm_sleep 2
for fd in "${hold[@]}"; do exec {fd}>&-; done
took=$(($(now_ms) - t0))
vm_log "garbage: $sent connections in $(ms "$took") s, $refused refused;" \
	"$replies refusals read, $bad_replies without the expected reason"
for k in "${!kinds[@]}"; do vm_log "  ${kinds[$k]} $k"; done
vm_check_eq "$NGARBAGE garbage connections made" "$NGARBAGE" "$sent"
vm_check_eq "every refusal came with its reason" 0 "$bad_replies"

# Bogus rdma_cm requests: rping's connection request carries no
# rdma-selftest parameters.
cm=0
if command -v rping >/dev/null; then
	for ((i = 0; i < NCM; i++)); do
		timeout 20 rping -c -a "$PEER" -p "$PORT" -C 1 >/dev/null 2>&1
		cm=$((cm + 1))
	done
fi
vm_put ps-cm-garbage "$cm"
vm_put ps-garbage-done "$sent"
vm_wait ps-garbage-counted 300 || vm_fail "garbage counted on a" "no signal"

# ---- 100 real clients, each SIGKILLed after a random delay in 0..0.8 x the
# length of a whole run of its kind (from the warm-up, which is slower than
# later runs; a queued client is a little later), one after another
# (with two at a time, most kills hit a client queued behind the other).
# kill_stream S N: N clients one after another, their own random sequence;
# where each was when killed goes to $D/killed.S.
kill_stream() {
	local s=$1 n=$2 i kind extra full delay out pid rc last l where
	RANDOM=$((seed + 100 + s))
	for ((i = 0; i < n; i++)); do
		if ((RANDOM % 2)); then kind=verbs extra=(--verbs) full=${runlen[verbs]:-3000}
		else kind=cm extra=() full=${runlen[cm]:-3000}; fi
		delay=$((RANDOM * 32768 + RANDOM))
		delay=$((delay % (full * 8 / 10 + 1)))
		out=$D/kill.$s.$i.$kind
		"$S" "$PEER" -P "$PORT" "${extra[@]}" "${K[@]}" >"$out" 2>&1 </dev/null &
		pid=$!
		vm_sleep "$(ms "$delay")"
		kill -KILL "$pid" 2>/dev/null
		rc=0
		wait "$pid" 2>/dev/null || rc=$?
		# Where it was: the last stage it finished (stage lines are flushed).
		last=start
		while IFS= read -r l; do
			case $l in
			"rdma-selftest: PASS") last=finished ;;
			*"FAIL  "*) last=failed ;;
			"  PASS  "*) l=${l#  PASS  }; last=${l%% *} ;;
			esac
		done <"$out"
		case $last in
		start | address | route | exchange) where=connect ;;
		connect) where=pingpong ;;
		pingpong) where=latency ;;
		latency) where=bandwidth ;;
		bandwidth) where=close ;;
		*) where=$last ;;
		esac
		[ "$rc" = 137 ] || [ "$where" = finished ] || [ "$where" = failed ] || where="$where(rc=$rc)"
		echo "$where" >>"$D/killed.$s"
		[ "$where" != failed ] || vm_log "client $s.$i ($kind, killed after $(ms "$delay") s) failed on its own: $(grep FAIL "$out" | head -1)"
	done
}
declare -A at=()
t0=$(now_ms)
kill_stream 1 "$NKILL"
killed=0
for f in "$D"/killed.*; do
	while read -r where; do
		at[$where]=$((${at[$where]:-0} + 1))
		killed=$((killed + 1))
	done <"$f"
done
vm_check_eq "$NKILL clients started and stopped" "$NKILL" "$killed"
took=$(($(now_ms) - t0))
vm_log "$NKILL clients in $(ms "$took") s; killed in stage:"
for k in connect pingpong latency bandwidth close finished failed; do vm_log "  ${at[$k]:-0} $k"; done
for k in "${!at[@]}"; do
	case $k in connect | pingpong | latency | bandwidth | close | finished | failed) ;; *) vm_log "  ${at[$k]} $k" ;; esac
done
missing=
for k in connect pingpong latency bandwidth; do [ -n "${at[$k]:-}" ] || missing+=" $k"; done
vm_check_eq "kills landed in every stage" "" "$missing"
vm_signal ps-kills-done

# ---- the server still serves a real client of each kind
vm_wait ps-quiet 300 || vm_fail "server idle on a" "no signal"
vm_check_output "rdma_cm client PASS after the stress" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
	timeout 180 "$S" "$PEER" -P "$PORT" "${Q[@]}"
vm_check_output "--verbs client PASS after the stress" "^rdma-selftest: PASS(, with a warning at counters)?\$" \
	timeout 180 "$S" "$PEER" -P "$PORT" --verbs "${Q[@]}"
vm_signal ps-final-done
if n=$(vm_get ps-numbers 120); then vm_log "server (on a): $n"; fi
vm_wait ps-done 300
vm_check "no kernel warnings" vm_dmesg_clean
vm_log "p-stress-b: ${SECONDS} s"
