#!/bin/bash
# Fleet scenario (every VM of run.sh --nodes N): the engines themselves.
# vm1 proves that a real Slurm runs a job step on every node and that pdsh
# and clush reach every node over ssh, each running our tools there; the
# other VMs check their own daemons and wait.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
# shellcheck source=tests/vm/fleet-lib.sh
. "$RD_ROOT/tests/vm/fleet-lib.sh"
set -u
B=$RD_ROOT/build
N=$VM_NODES
HL=$(fleet_hostlist)
want_hosts=$(for i in $(seq "$N"); do echo "vm$i"; done)

vm_check "$VM_ROLE: sshd listens on :22" vm_wait_listen 22 30
vm_check "$VM_ROLE: munge credential round trip" sh -c 'munge -n | unmunge'
vm_check "$VM_ROLE: ping vm$(( VM_NODE % N + 1 )) over the switch" vm_ping "10.10.0.$(( VM_NODE % N + 1 ))" 2

if [ "$VM_NODE" = 1 ]; then
	t0=$SECONDS
	vm_check "Slurm: all $N nodes idle" fleet_slurm_ready 180 || fleet_logs
	vm_log "Slurm nodes idle $((SECONDS - t0)) s into the scenario"
	# shellcheck disable=SC2016 # expanded on each node
	out=$(timeout 600 srun -N "$N" -n "$N" -l sh -c 'echo $(hostname) $SLURM_PROCID $SLURM_NTASKS $SLURM_JOB_NODELIST' 2>&1)
	vm_check_eq "srun -N$N runs once on each node" "$want_hosts" "$(awk '{print $2}' <<<"$out" | sort)"
	vm_check_eq "srun ranks 0..$((N - 1)), SLURM_JOB_NODELIST $HL" \
		"$(for i in $(seq 0 $((N - 1))); do echo "$i $N $HL"; done)" "$(awk '{print $3, $4, $5}' <<<"$out" | sort -n)"
	timeout 600 srun -N "$N" -n "$N" "$B/rdma-devinfo" -j >/tmp/srun-devinfo.json 2>/tmp/srun-devinfo.err
	vm_check_eq "srun rdma-devinfo -j: $N JSON documents" "$N" "$(jq -s length /tmp/srun-devinfo.json 2>&1)"
	vm_check_eq "srun rdma-devinfo -j: rxe0 on every node" "$N" \
		"$(jq -s '[.[] | .. | objects | select(.dev? == "rxe0")] | length' /tmp/srun-devinfo.json 2>&1)"

	out=$(timeout 600 pdsh -R ssh -t 120 -w "$HL" hostname 2>&1)
	vm_check_eq "pdsh -R ssh -w $HL reaches every node" "$want_hosts" "$(sed -n 's/^\(vm[0-9]*\): \(vm[0-9]*\)$/\1 \2/p' <<<"$out" | awk '$1 == $2 {print $1}' | sort)"
	[ "$(echo "$out" | wc -l)" = "$N" ] || vm_log "pdsh said: $out"
	timeout 600 pdsh -R ssh -t 120 -w "$HL" "$B/rdma-gids" --best -j >/tmp/pdsh-gids.txt 2>&1
	vm_check_eq "pdsh rdma-gids --best -j: one answer per node" "$want_hosts" "$(cut -d: -f1 /tmp/pdsh-gids.txt | sort -u)"
	own_gids() {
		local i
		for ((i = 1; i <= N; i++)); do
			sed -n "s/^vm$i: //p" /tmp/pdsh-gids.txt | jq -se --arg ip "10.10.0.$i" 'length == 1 and .[0][0].ipv4 == $ip' ||
				{ cat /tmp/pdsh-gids.txt; return 1; }
		done
	}
	vm_check "pdsh rdma-gids --best -j: each node's own IPv4 GID" own_gids
	out=$(timeout 600 clush -o "-oConnectTimeout=120" -w "$HL" -L hostname 2>/tmp/clush.err) # stderr: its progress meter
	vm_check_eq "clush -w $HL reaches every node" "$want_hosts" "$(sed -n 's/^\(vm[0-9]*\): *\(vm[0-9]*\)$/\1 \2/p' <<<"$out" | awk '$1 == $2 {print $1}' | sort)" ||
		printf '    | clush said: %s\n' "$out"
fi
