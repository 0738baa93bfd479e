#!/bin/bash
# VM tier for `make check`: few boots, many checks in each.
#   one VM:   every single-host scenario in one boot
#   two VMs:  the paired scenarios in one boot of the pair
#   N VMs:    the fleet scenarios (tests/vm/f-*.sh) in one boot of
#             FLEET_NODES (default 3) VMs on a vde_switch
# usage: tests/vm/check.sh BUILD_DIR RESULT_FILE [single|pair|fleet...]
#        (default: all three)
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
result=$2
shift 2
parts=" ${*:-single pair fleet} "
mkdir -p "$(dirname "$result")"
log=build/vm/logs
mkdir -p "$log"

# Single-host scenarios, in order.  smoke proves the stack before the tools.
# Each scenario leaves the VM as it found it (rxe0 on eth0, no extra links).
# Tools add theirs as tests/vm/t-<tool>.sh; pairs as tests/vm/p-<tool>-a.sh
# and p-<tool>-b.sh.
SINGLE=(tests/vm/smoke.sh tests/vm/devinfo.sh tests/vm/gids.sh)
for f in tests/vm/t-*.sh; do [ -e "$f" ] && SINGLE+=("$f"); done
# Pairs: A-side then B-side.
PAIR=(tests/vm/smoke-pair-a.sh tests/vm/smoke-pair-b.sh tests/vm/gids-pair-a.sh tests/vm/gids-pair-b.sh)
for f in tests/vm/p-*-a.sh; do
	[ -e "$f" ] && [ -e "${f%-a.sh}-b.sh" ] && PAIR+=("$f" "${f%-a.sh}-b.sh")
done
# Last, what `make demo` shows (VM a) with its peer, and its checks.
PAIR+=(tests/vm/demo.sh tests/vm/demo-peer.sh)

pass=0 fail=0 skip=0
count() { # file: add the run's closing "N passed, N failed, N skipped"
	local line p f k
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" | tail -1)
	if [ -z "$line" ]; then
		fail=$((fail + 1))
		echo "FAIL: VM run produced no result line"
		return
	fi
	p=${line%% passed*} f=${line#*passed, } f=${f%% failed*} k=${line#*failed, } k=${k%% skipped*}
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + k))
}

# Fleet scenarios: every VM runs each of them (tests/vm/fleet-lib.sh).
FLEET=()
for f in tests/vm/f-*.sh; do [ -e "$f" ] && FLEET+=("$f"); done

# A wedged VM is one that stops writing: --stall ends its run after 10 minutes
# of silence, --script-timeout a scenario that takes 20 minutes (the longest
# take about 4 beside the host tiers); --timeout is the last resort, set for
# a host where other work takes half the CPU and the tier runs twice as long.
LIMITS=(--stall 600 --script-timeout 1200)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
case $parts in *" single "*)
tests/vm/run.sh --name single "${LIMITS[@]}" --timeout 7200 "${SINGLE[@]}" > "$tmp" 2>&1
cat "$tmp"; count "$tmp" ;;
esac
case $parts in *" pair "*)
tests/vm/run.sh --pair --name pair "${LIMITS[@]}" --timeout 4800 "${PAIR[@]}" > "$tmp" 2>&1
cat "$tmp"; count "$tmp" ;;
esac
case $parts in *" fleet "*)
if [ ${#FLEET[@]} -gt 0 ]; then
	tests/vm/run.sh --nodes "${FLEET_NODES:-3}" --name fleet "${LIMITS[@]}" --timeout 4800 "${FLEET[@]}" > "$tmp" 2>&1
	cat "$tmp"; count "$tmp"
fi ;;
esac

tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs" "$skip"
fail=$tier_failed
echo "vm: $pass passed, $fail failed, $skip skipped (${tier_secs} s)"
[ "$fail" -eq 0 ]
