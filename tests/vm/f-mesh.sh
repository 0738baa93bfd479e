#!/bin/bash
# Fleet scenario (every VM of run.sh --nodes N): rdma-selftest --mesh started
# on every node by the cluster's engines -- srun under Slurm, pdsh over ssh --
# never by itself.  Every ordered pair (or the ring) passes with data
# verified; a host that is listed but never started is a FAIL for its pairs
# within the wait, not a hang.  vm1 drives; the others only serve the engines.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
# shellcheck source=tests/vm/fleet-lib.sh
. "$RD_ROOT/tests/vm/fleet-lib.sh"
set -u
B=$RD_ROOT/build
N=$VM_NODES
HL=$(fleet_hostlist)
[ "$VM_NODE" = 1 ] || exit 0
# Short stages: the emulated link has a ~22 ms round trip.
ST=("$B/rdma-selftest" --mesh -n 20 --pings 10 --timeout 10)

vm_check "Slurm: all $N nodes idle" fleet_slurm_ready 180 || fleet_logs

# ---- every ordered pair, under Slurm (the hosts come from SLURM_JOB_NODELIST)
t0=$SECONDS
timeout 900 srun -N "$N" -n "$N" "${ST[@]}" -j >/tmp/fm-srun.jsonl 2>/tmp/fm-srun.err
rc=$?
vm_log "srun mesh of $N hosts: $((SECONDS - t0)) s"
vm_check_eq "srun --mesh: exit 0" 0 "$rc" "/tmp/fm-srun.jsonl" "/tmp/fm-srun.err"
all_pairs=$(for i in $(seq "$N"); do for j in $(seq "$N"); do [ "$i" = "$j" ] || echo "vm$i vm$j"; done; done | sort)
vm_check_eq "srun --mesh: one JSON line per ordered pair ($((N * (N - 1))))" "$all_pairs" \
	"$(jq -r '"\(.src) \(.dst)"' /tmp/fm-srun.jsonl 2>&1 | sort)"
vm_check_eq "srun --mesh: every pair passes" "$((N * (N - 1)))" \
	"$(jq -s '[.[] | select(.result == "pass" and .dev == "rxe0" and .latency_us > 0 and .gbps > 0)] | length' /tmp/fm-srun.jsonl 2>&1)"
vm_check_eq "srun --mesh: $((N - 1)) rounds, each host a client once a round" \
	"$(seq "$N" | while read -r _; do seq $((N - 1)); done | sort -n | uniq -c | awk '{print $1, $2}')" \
	"$(jq -r .round /tmp/fm-srun.jsonl | sort -n | uniq -c | awk '{print $1, $2}')"

"$B/rdma-fleet" -w "$HL" /tmp/fm-srun.jsonl >/tmp/fm-fleet.out 2>&1; rc=$?
vm_check_eq "srun --mesh | rdma-fleet: exit 0" 0 "$rc" "/tmp/fm-fleet.out"
vm_check_output "srun --mesh | rdma-fleet: a full PASS matrix" \
	"^mesh: $((N * (N - 1))) pairs of $N hosts, $((N * (N - 1))) pass( \([0-9]+ with a warning\))?, 0 fail" cat /tmp/fm-fleet.out
# (w: passed, with the counters stage's warning: rxe under TCG often retransmits)
vm_check_output "... vm1's row: - then . or w" "^vm1 +- +[.w] +[.w]" cat /tmp/fm-fleet.out
vm_check "... every w has its warning line" \
	test "$(grep -E '^vm[0-9]+( +[-.wX?])+$' /tmp/fm-fleet.out | grep -o w | wc -l)" = "$(grep -c '^warning: vm' /tmp/fm-fleet.out)"
vm_check_output "... the slowest pairs against the median" "^vm[0-9]+ -> vm[0-9]+ +latency +[0-9.]+ us +[0-9.]+ us +[0-9.]+x$" \
	cat /tmp/fm-fleet.out

# ---- the ring, through pdsh (the hosts from --hosts), text output
timeout 600 pdsh -R ssh -t 120 -w "$HL" "${ST[@]}" --hosts "$HL" --pairs ring >/tmp/fm-pdsh.txt 2>&1
ring_ok() {
	local i
	for ((i = 1; i <= N; i++)); do
		grep -Eq "^vm$i: vm$i -> vm$((i % N + 1))  rxe0/1  PASS  latency [0-9.]+ us  bandwidth [0-9.]+ Gb/s" /tmp/fm-pdsh.txt || return 1
	done
	[ "$(grep -c ' -> ' /tmp/fm-pdsh.txt)" = "$N" ]
}
vm_check "pdsh --mesh --pairs ring: vmI -> vmI+1 PASS on each of $N hosts" ring_ok || sed 's/^/    | /' /tmp/fm-pdsh.txt

# ---- the schedules that scale (lib/selftest/plan.c), for real: random:1 (each
# host one peer from the shuffle, and tested once) and leaves:2 (vm1 vm2 behind
# one leaf, vm3 behind another: the leaves crossed both ways, then each leaf's
# own ring; vm3 sits that round out and serves one peer only)
t0=$SECONDS
timeout 600 pdsh -R ssh -t 120 -w "$HL" "${ST[@]}" --hosts "$HL" --pairs random:1:7 -j >/tmp/fm-random.txt 2>&1
vm_log "pdsh --mesh --pairs random:1:7: $((SECONDS - t0)) s"
sed -n 's/^vm[0-9]*: //p' /tmp/fm-random.txt >/tmp/fm-random.jsonl
vm_check_eq "--pairs random:1:7: $N pairs, all pass, all in round 1" "$N pass 1" \
	"$(jq -s -r '"\(length) \(map(.result) | unique | join(",")) \(map(.round) | unique | join(","))"' /tmp/fm-random.jsonl 2>&1)" ||
	sed 's/^/    | /' /tmp/fm-random.txt
vm_check_eq "... each host a client once and a server once, never of itself" \
	"$(seq "$N" | sed 's/^/vm/' | sort | tr '\n' ' ')/$(seq "$N" | sed 's/^/vm/' | sort | tr '\n' ' ')/0" \
	"$(jq -r .src /tmp/fm-random.jsonl | sort | tr '\n' ' ')/$(jq -r .dst /tmp/fm-random.jsonl | sort | tr '\n' ' ')/$(jq -s '[.[] | select(.src == .dst)] | length' /tmp/fm-random.jsonl)"
t0=$SECONDS
timeout 600 pdsh -S -R ssh -t 120 -w "$HL" "${ST[@]}" --hosts "$HL" --pairs leaves:2 -j >/tmp/fm-leaves.txt 2>&1
rc=$?
vm_log "pdsh --mesh --pairs leaves:2: $((SECONDS - t0)) s"
sed -n 's/^vm[0-9]*: //p' /tmp/fm-leaves.txt >/tmp/fm-leaves.jsonl
# (leaf 1: hosts 1-2, leaf 2: 3-4, ...): the k-th hosts of each two leaves, then the next in the leaf
leaves_want() {
	local i j L=$(((N + 1) / 2)) r
	for ((r = 1; r < L; r++)); do
		for ((i = 1; i <= N; i++)); do
			j=$(((((i - 1) / 2 + r) % L) * 2 + (i - 1) % 2 + 1))
			[ "$j" -le "$N" ] && echo "vm$i vm$j $r pass"
		done
	done
	for ((i = 1; i <= N; i++)); do
		j=$(((i - 1) % 2 == 0 ? i + 1 : i - 1))
		[ "$j" -le "$N" ] && echo "vm$i vm$j $L pass"
	done
}
vm_check_eq "--pairs leaves:2: the leaves crossed, then each leaf's own pair, all pass" \
	"$(leaves_want | sort)" "$(jq -r '"\(.src) \(.dst) \(.round) \(.result)"' /tmp/fm-leaves.jsonl 2>&1 | sort)" ||
	sed 's/^/    | /' /tmp/fm-leaves.txt
vm_check_eq "... every host ends with exit 0 (pdsh -S)" 0 "$rc" /tmp/fm-leaves.txt

# ---- a host listed but never started: FAIL for its pairs within the wait, the others pass
t0=$SECONDS
timeout 300 pdsh -R ssh -t 120 -w "vm[1-$((N - 1))]" "${ST[@]}" --hosts "$HL" --pairs ring --mesh-wait 8 -j \
	>/tmp/fm-missing.txt 2>/tmp/fm-missing.err
took=$((SECONDS - t0))
sed -n 's/^vm[0-9]*: //p' /tmp/fm-missing.txt >/tmp/fm-missing.jsonl
vm_check_eq "vm$N listed, never started: vm$((N - 1)) -> vm$N FAILs at connect" "fail connect" \
	"$(jq -r "select(.dst == \"vm$N\") | \"\(.result) \(.failed_stage)\"" /tmp/fm-missing.jsonl 2>&1)"
vm_check "... with the diagnosis that nobody answered" \
	jq -e -s "[.[] | select(.dst == \"vm$N\") | .diagnosis | test(\"no rdma-selftest server|no answer\")] | length > 0 and all" /tmp/fm-missing.jsonl
vm_check "... and the mesh's hint: the peer's own --mesh" \
	jq -e -s "[.[] | select(.dst == \"vm$N\") | .diagnosis | test(\"mesh: [0-9]+ attempts in [0-9.]+ s: is 'rdma-selftest --mesh' running on vm$N\")] | length > 0 and all" /tmp/fm-missing.jsonl
vm_check_eq "... the pairs between started hosts pass" "$((N - 2))" \
	"$(jq -s "[.[] | select(.dst != \"vm$N\" and .result == \"pass\")] | length" /tmp/fm-missing.jsonl 2>&1)"
vm_check "... and it ended within the waits ($took s)" test "$took" -lt 120
"$B/rdma-fleet" -w "$HL" /tmp/fm-missing.txt >/tmp/fm-missing.out 2>&1
vm_check_output "rdma-fleet: vm$((N - 1))'s row has X under vm$N" "^vm$((N - 1)) .* X$" cat /tmp/fm-missing.out
vm_check_output "rdma-fleet: the problem names vm$((N - 1)) -> vm$N and the stage" \
	"^vm$((N - 1)) .* mesh vm$((N - 1)) -> vm$N: FAIL at connect: " cat /tmp/fm-missing.out
vm_check_output "rdma-fleet: vm$N sent nothing" "^vm$N +- +- +expected, but sent nothing" cat /tmp/fm-missing.out
# ---- a host without its RDMA device, for real (vmN's rxe0 deleted): its
# own pairs say why on its row (stage setup), its peers find no server
ssh "vm$N" rdma link delete rxe0
t0=$SECONDS
timeout 300 srun -N "$N" -n "$N" "${ST[@]}" --pairs ring --mesh-wait 8 -j >/tmp/fm-nodev.jsonl 2>/tmp/fm-nodev.err
took=$((SECONDS - t0))
vm_log "srun --mesh --pairs ring with vm$N's rxe0 deleted: $took s"
vm_check_eq "vm$N without rxe0: its pair FAILs at setup, saying there is no RDMA device" "fail setup" \
	"$(jq -r "select(.src == \"vm$N\") | \"\(.result) \(.failed_stage)\"" /tmp/fm-nodev.jsonl 2>&1)"
vm_check "... the diagnosis says how to get one" \
	jq -e -s "map(select(.src == \"vm$N\"))[0].diagnosis | test(\"^no RDMA devices found: no kernel RDMA driver has registered a device\")" /tmp/fm-nodev.jsonl
vm_check_eq "... vm$((N - 1)) -> vm$N fails at connect (no server there)" "fail connect" \
	"$(jq -r "select(.dst == \"vm$N\") | \"\(.result) \(.failed_stage)\"" /tmp/fm-nodev.jsonl 2>&1)"
vm_check_eq "... the other pairs pass" "$((N - 2))" \
	"$(jq -s "[.[] | select(.src != \"vm$N\" and .dst != \"vm$N\" and .result == \"pass\")] | length" /tmp/fm-nodev.jsonl 2>&1)"
"$B/rdma-fleet" -w "$HL" /tmp/fm-nodev.jsonl >/tmp/fm-nodev.out 2>&1
vm_check_output "rdma-fleet: vm$N's row says why" "^vm$N .* mesh vm$N -> vm1: FAIL at setup: no RDMA devices found" \
	cat /tmp/fm-nodev.out
vm_check_output "rdma-fleet: vm$N's row is X" "^vm$N +X" cat /tmp/fm-nodev.out
ssh "vm$N" rdma link add rxe0 type rxe netdev eth0
rxe_back() { [ "$(ssh "vm$N" cat /sys/class/infiniband/rxe0/ports/1/state 2>&1)" = "4: ACTIVE" ]; }
vm_check "vm$N: rxe0 back, ACTIVE" vm_retry 30 rxe_back

# VMENV_FLEET_SAVE=DIR: keep the real outputs (the source of tests/fixtures/fleet/vm-mesh-*.txt)
if [ -n "${VMENV_FLEET_SAVE:-}" ]; then
	mkdir -p "$VMENV_FLEET_SAVE"
	cp /tmp/fm-srun.jsonl "$VMENV_FLEET_SAVE/vm-mesh-srun.jsonl"
	cp /tmp/fm-pdsh.txt "$VMENV_FLEET_SAVE/vm-mesh-pdsh-ring.txt"
	cp /tmp/fm-missing.txt "$VMENV_FLEET_SAVE/vm-mesh-pdsh-missing.txt"
	cp /tmp/fm-leaves.txt "$VMENV_FLEET_SAVE/vm-mesh-pdsh-leaves.txt"
fi
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/fm-fleet.out /tmp/fm-pdsh.txt /tmp/fm-missing.out; fi
