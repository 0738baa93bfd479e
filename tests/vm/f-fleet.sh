#!/bin/bash
# Fleet scenario (every VM of run.sh --nodes N): rdma-fleet on what pdsh and
# srun bring back from every node, healthy, then with the last VM made bad for
# real (its netdev MTU lowered, so its rxe0 port MTU drops), then with a host
# listed that never answers. vm1 runs the engines; the last VM breaks itself
# on cue and repairs itself afterwards; the others only serve.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
# shellcheck source=tests/vm/fleet-lib.sh
. "$RD_ROOT/tests/vm/fleet-lib.sh"
set -u
B=$RD_ROOT/build
F=$B/rdma-fleet
N=$VM_NODES
HL=$(fleet_hostlist)
BAD=vm$N
PORT=/sys/class/infiniband/$VM_RDMA_DEV/ports/1

if [ "$VM_ROLE" = "$BAD" ]; then
	vm_wait ff-make-bad 600 || exit 0
	# shellcheck disable=SC2317 # called through vm_retry
	port_mtu() { "$B/rdma-devinfo" -v -j -d "$VM_RDMA_DEV" | jq '.[0].ports[0].verbs.active_mtu'; }
	mtu_is() { [ "$(port_mtu)" = "$1" ]; }
	mtu_moved() { ! mtu_is "$before"; }
	before=$(port_mtu)
	ip link set "$VM_NETDEV" mtu 1000
	vm_check "$BAD: port MTU follows the netdev MTU down (was $before)" vm_retry 30 mtu_moved
	vm_signal ff-bad-ready
	vm_wait ff-repair 600
	ip link set "$VM_NETDEV" mtu 1500
	vm_check "$BAD: port MTU back to $before" vm_retry 30 mtu_is "$before"
	vm_retry 30 grep -q ACTIVE "$PORT/state"
	vm_signal ff-repaired
	exit 0
fi
[ "$VM_NODE" = 1 ] || exit 0

vm_check "Slurm: all $N nodes idle" fleet_slurm_ready 180 || fleet_logs

# --- healthy fleet
timeout 600 pdsh -R ssh -t 120 -w "$HL" "$B/rdma-devinfo" -v -j >/tmp/ff-pdsh-ok.txt 2>/tmp/ff-pdsh-ok.err
vm_check_output "healthy, pdsh rdma-devinfo -v -j | rdma-fleet: pass" "^result: pass: $N hosts agree" \
	"$F" -w "$HL" /tmp/ff-pdsh-ok.txt
timeout 600 pdsh -R ssh -t 120 -w "$HL" "$B/rdma-gids" --best -j >/tmp/ff-gids-ok.txt 2>/tmp/ff-gids-ok.err
# shellcheck disable=SC2016 # jq variables
"$F" -j -w "$HL" /tmp/ff-gids-ok.txt > /tmp/ff-gids-ok.json
vm_check "healthy, pdsh rdma-gids --best -j | rdma-fleet -j: every node, no outlier" \
	jq -e --argjson n "$N" '.result == "pass" and (.hosts | length) == $n and ([.facts[] | select(.fact == "gid_index")][0].agree == $n)' \
	/tmp/ff-gids-ok.json

# rdma-doctor on every node: the same verdict everywhere
timeout 600 pdsh -R ssh -t 120 -w "$HL" "$B/rdma-doctor" -j --interval 0 >/tmp/ff-doctor-ok.txt 2>/tmp/ff-doctor-ok.err
# shellcheck disable=SC2016 # jq variables
"$F" -j -w "$HL" /tmp/ff-doctor-ok.txt > /tmp/ff-doctor-ok.json
vm_check "healthy, pdsh rdma-doctor -j | rdma-fleet -j: every node, roce.gid passes on all, no problem" \
	jq -e --argjson n "$N" '(.hosts | length) == $n and (.problems | length) == 0 and ([.facts[] | select(.fact == "roce.gid")][0] | .majority == "pass" and .agree == $n)' \
	/tmp/ff-doctor-ok.json

# --- the last VM made bad for real
vm_signal ff-make-bad
if vm_wait ff-bad-ready 120; then
	timeout 600 pdsh -R ssh -t 120 -w "$HL" "$B/rdma-devinfo" -v -j >/tmp/ff-pdsh-bad.txt 2>/tmp/ff-pdsh-bad.err
	"$F" -w "$HL" /tmp/ff-pdsh-bad.txt >/tmp/ff-pdsh-bad.out 2>&1; rc=$?
	vm_check_eq "MTU fault, pdsh | rdma-fleet: exit 1" 1 "$rc" "/tmp/ff-pdsh-bad.out"
	vm_check_output "MTU fault, pdsh | rdma-fleet: active_mtu outlier is $BAD" \
		"^active_mtu +$VM_RDMA_DEV +1 +[0-9]+ +$((N - 1))/$N +$BAD: [0-9]+\$" cat /tmp/ff-pdsh-bad.out
	# rdma-devinfo -v carries the netdev's MTU as well as the port's active_mtu: both differ.
	vm_check_output "MTU fault, pdsh | rdma-fleet: netdev_mtu outlier is $BAD" \
		"^netdev_mtu +$VM_RDMA_DEV +1 +[0-9]+ +$((N - 1))/$N +$BAD: [0-9]+\$" cat /tmp/ff-pdsh-bad.out
	vm_check_output "MTU fault: nothing else differs" "^result: fail: 2 facts with outliers, 0 problems" cat /tmp/ff-pdsh-bad.out

	# the doctor held to the fleet's MTU (--expect from the shared scratch directory)
	printf 'mtu = 1500\n' >"$VM_SCRATCH/ff-expect"
	timeout 600 pdsh -R ssh -t 120 -w "$HL" "$B/rdma-doctor" -j --interval 0 --expect "$VM_SCRATCH/ff-expect" \
		>/tmp/ff-doctor-bad.txt 2>/tmp/ff-doctor-bad.err
	"$F" --outliers -w "$HL" /tmp/ff-doctor-bad.txt >/tmp/ff-doctor-bad.out 2>&1; rc=$?
	vm_check_eq "MTU fault, pdsh rdma-doctor --expect | rdma-fleet -o: exit 1" 1 "$rc" "/tmp/ff-doctor-bad.out"
	vm_check_output "MTU fault, doctor: roce.mtu outlier is $BAD (fail)" \
		"^roce\.mtu +$VM_RDMA_DEV +1 +(pass|warn) +$((N - 1))/$N +$BAD: fail\$" cat /tmp/ff-doctor-bad.out
	vm_check_output "MTU fault, doctor: the problem names $BAD, the netdev MTU and the expected one" \
		"^$BAD +.* roce\.mtu $VM_RDMA_DEV/1: $VM_NETDEV MTU 1000, expected 1500\$" cat /tmp/ff-doctor-bad.out

	timeout 600 srun -N "$N" -n "$N" sh -c "$B/rdma-devinfo -v -j | $B/rdma-fleet --prefix" >/tmp/ff-srun-bad.txt 2>/tmp/ff-srun-bad.err
	"$F" -j /tmp/ff-srun-bad.txt >/tmp/ff-srun-bad.json; rc=$?
	vm_check_eq "MTU fault, srun ... --prefix | rdma-fleet -j: exit 1" 1 "$rc" "/tmp/ff-srun-bad.json"
	vm_check_eq "MTU fault, srun: outlier hosts" "active_mtu [\"$BAD\"] netdev_mtu [\"$BAD\"]" \
		"$(jq -r '[.facts[] | select(.outliers | length > 0) | "\(.fact) \(.outliers[0].hosts | tojson)"] | sort | join(" ")' /tmp/ff-srun-bad.json)"
	vm_check_eq "MTU fault, srun: every host read" "$N" "$(jq '.hosts | length' /tmp/ff-srun-bad.json)"

	timeout 600 srun -N "$N" -n "$N" -l "$B/rdma-devinfo" -v -j >/tmp/ff-srun-l.txt 2>/tmp/ff-srun-l.err
	vm_check_eq "srun -l (rank labels): one outlier rank" "1" \
		"$("$F" -j /tmp/ff-srun-l.txt | jq '[.facts[] | select(.fact == "active_mtu") | .outliers[].hosts[]] | length')"

	# a listed host that never runs anything: named, the others intact
	"$F" -w "vm[1-$((N + 1))]" /tmp/ff-pdsh-ok.txt >/tmp/ff-missing.out 2>&1; rc=$?
	vm_check_eq "host listed but absent: exit 1" 1 "$rc" "/tmp/ff-missing.out"
	vm_check_output "host listed but absent: named" "^vm$((N + 1)) +- +- +expected, but sent nothing" cat /tmp/ff-missing.out
	vm_check_output "host listed but absent: the others still agree" "^rate +$VM_RDMA_DEV +1 .* $N/$N +-\$" cat /tmp/ff-missing.out

	# one host's lines mangled in transit: reported with its name, the rest kept
	awk -v bad="vm2" '$1 == bad":" && !done && /"state"/ {print bad": \"state\": ACTIVE\","; done=1; next} {print}' \
		/tmp/ff-pdsh-bad.txt >/tmp/ff-mangled.txt
	"$F" -j /tmp/ff-mangled.txt >/tmp/ff-mangled.json
	vm_check "mangled vm2 output: problem names vm2 and its line" \
		jq -e '[.problems[] | select(.host == "vm2" and .line > 0 and (.problem | startswith("malformed JSON")))] | length == 1' /tmp/ff-mangled.json
	# vm2's document is lost: the other two are still compared (a tie, which one wins is pdsh's order)
	vm_check "mangled vm2 output: the other hosts' MTUs are still compared (a tie of vm1 and $BAD)" \
		jq -e --arg bad "$BAD" '[.facts[] | select(.fact == "active_mtu")][0] | .reporting == 2 and .tie and (.outliers[0].hosts[0] == "vm1" or .outliers[0].hosts[0] == $bad)' /tmp/ff-mangled.json
else
	vm_fail "$BAD never made itself bad"
fi
vm_signal ff-repair
vm_wait ff-repaired 120 || vm_fail "$BAD did not repair itself"
# VMENV_FLEET_SAVE=DIR (a directory under the repository): keep the real
# multi-host outputs, the source of tests/fixtures/fleet/vm-*.txt.
if [ -n "${VMENV_FLEET_SAVE:-}" ]; then
	mkdir -p "$VMENV_FLEET_SAVE"
	cp /tmp/ff-pdsh-bad.txt "$VMENV_FLEET_SAVE/vm-pdsh-mtu.txt"
	cp /tmp/ff-srun-l.txt "$VMENV_FLEET_SAVE/vm-srun-l-mtu.txt"
	cp /tmp/ff-pdsh-ok.txt "$VMENV_FLEET_SAVE/vm-pdsh-ok.txt"
	cp /tmp/ff-gids-ok.txt "$VMENV_FLEET_SAVE/vm-pdsh-gids-ok.txt"
	cp /tmp/ff-doctor-bad.txt "$VMENV_FLEET_SAVE/vm-pdsh-doctor-mtu.txt"
fi
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/ff-pdsh-bad.out /tmp/ff-doctor-bad.out /tmp/ff-missing.out; fi
