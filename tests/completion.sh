#!/bin/bash
# Shell completion tier: drive the bash completion functions the way bash
# does (COMP_WORDS/COMP_CWORD) and check COMPREPLY; parse the zsh ones.
# usage: tests/completion.sh RESULT_FILE
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/.." || exit 1
result=$1
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sys/class/infiniband/mlx5_0" "$tmp/sys/class/infiniband/rxe0"

# expect TOOL "WORDS..." EXPECTED-WORDS...: completing the last word of WORDS
expect() {
	local tool=$1 line=$2; shift 2
	local got
	got=$(bash -c '
		. /usr/share/bash-completion/bash_completion 2>/dev/null || exit 3
		. completions/bash/'"$tool"'
		COMP_LINE=$1; COMP_POINT=${#1}
		read -ra COMP_WORDS <<< "$1"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		fn=$(complete -p '"$tool"' | sed "s/.*-F \([^ ]*\) .*/\1/")
		"$fn" '"$tool"' "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$line")
	local want
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: complete '$line': got '$got', want '$want'"
	fi
}

for f in completions/bash/rdma-*; do
	t=$(basename "$f")
	# rdma-fleet reads no devices; rdma-fabric reads the fabric, never a --sysroot
	if [ "$t" != rdma-fleet ] && [ "$t" != rdma-fabric ]; then
		expect "$t" "$t --sysroot $tmp -d " mlx5_0 rxe0
		expect "$t" "$t --sysroot $tmp --device m" mlx5_0
	fi
	expect "$t" "$t --colo" --color
	expect "$t" "$t --color=" auto always never
	expect "$t" "$t --color=al" always
	expect "$t" "$t --json" --json
done
# the table options: -o's columns, a comma list
expect rdma-doctor "rdma-doctor -o check,st" check,status
expect rdma-gids "rdma-gids --output dev,po" dev,port
expect rdma-fabric "rdma-fabric -o peer_" peer_port
expect rdma-devinfo "rdma-devinfo --nohead" --noheadings
expect rdma-top "rdma-top --ra" --raw
# rdma-top's metrics options
touch "$tmp/a.prom" "$tmp/b.txt"
expect rdma-top "rdma-top --format n" node-exporter
expect rdma-top "rdma-top --format=node" node-exporter
expect rdma-top "rdma-top --textf" --textfile
expect rdma-top "rdma-top --textfile $tmp/" "$tmp/a.prom" "$tmp/sys"

# rdma-fleet: files to read, hostfiles, options
mkdir -p "$tmp/in" && touch "$tmp/in/pdsh-out.txt" "$tmp/in/racks.hosts"
expect rdma-fleet "rdma-fleet $tmp/in/pd" "$tmp/in/pdsh-out.txt"
expect rdma-fleet "rdma-fleet --hostfile $tmp/in/ra" "$tmp/in/racks.hosts"
expect rdma-fleet "rdma-fleet --host" --hosts --hostfile
expect rdma-fleet "rdma-fleet --pre" --prefix
# rdma-doctor: check ids and groups, comma lists, --expect files
expect rdma-doctor "rdma-doctor --only roce.e" roce.ecn
expect rdma-doctor "rdma-doctor --skip pci.link,fw" pci.link,fw pci.link,fw.uniform
expect rdma-doctor "rdma-doctor --se" --selftest
expect rdma-doctor "rdma-doctor --ti" --timeout
expect rdma-doctor "rdma-doctor --timeout 6" 60
expect rdma-doctor "rdma-doctor --expect $tmp/in/pd" "$tmp/in/pdsh-out.txt"
# rdma-fabric: check ids and groups, rates, saved fabrics
expect rdma-fabric "rdma-fabric --only link.d" link.degraded
expect rdma-fabric "rdma-fabric --skip sm,id.g" sm,id.guid
expect rdma-fabric "rdma-fabric --expect-rate 4xH" 4xHDR
expect rdma-fabric "rdma-fabric --load $tmp/in/pd" "$tmp/in/pdsh-out.txt"
expect rdma-fabric "rdma-fabric --l" --links --list --load
expect rdma-fabric "rdma-fabric --format o" openmetrics
# rdma-selftest --op: a comma list of operations; its value is no PEER
expect rdma-selftest "rdma-selftest --o" --once --op
expect rdma-selftest "rdma-selftest --op " send write read atomic all
expect rdma-selftest "rdma-selftest --op=a" atomic all
expect rdma-selftest "rdma-selftest --op write,re" write,read
expect rdma-selftest "rdma-selftest --server --deny read,a" read,atomic
# rdma-selftest --tc, --sl: their values are no PEER
expect rdma-selftest "rdma-selftest --t" --tc --timeout
expect rdma-selftest "rdma-selftest --tc 10" 104
expect rdma-selftest "rdma-selftest --sl 1" 1 10 11 12 13 14 15
expect rdma-selftest "rdma-selftest --no" --no-counters
# rdma-selftest --qp: rc or ud, and its value is no PEER
expect rdma-selftest "rdma-selftest --qp " rc ud
expect rdma-selftest "rdma-selftest --qp=u" ud
expect rdma-selftest "rdma-selftest --q" --qp --qp-timeout --quick
# rdma-selftest --mcast: a group (its value is no PEER)
expect rdma-selftest "rdma-selftest --mc" --mcast
expect rdma-selftest "rdma-selftest --mcast 2" 239.1.1.1
# rdma-selftest --devices (mesh rails): all or this host's devices, a comma list; --peer-dev
expect rdma-selftest "rdma-selftest --sysroot $tmp --mesh --devices " all mlx5_0 rxe0
expect rdma-selftest "rdma-selftest --sysroot $tmp --mesh --devices mlx5_0,r" mlx5_0,rxe0
expect rdma-selftest "rdma-selftest --cr" --cross
expect rdma-selftest "rdma-selftest --sysroot $tmp --peer-dev m" mlx5_0
expect rdma-selftest "rdma-selftest --dev" --device --devices
for f in completions/zsh/_rdma-*; do
	if zsh -n "$f" 2>"$tmp/err" && grep -q "^#compdef $(basename "$f" | cut -c2-)\$" "$f"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: zsh completion $f does not parse or lacks its #compdef line"
		cat "$tmp/err"
	fi
done

mkdir -p "$(dirname "$result")"
tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "completion: $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
