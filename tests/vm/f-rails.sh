#!/bin/bash
# Fleet scenario: rails.  Every VM gets a second RDMA port -- rxe1 on rail1,
# a macvlan of eth0 with its own MAC and 10.11.0.I -- so each host has two
# rails on one L2 fabric, as a node with two NICs on one RoCE fabric has
# (arp_ignore=1 and arp_announce=2: each NIC answers for its own address, the
# setting NIC vendors give for several ports on one subnet).  Then:
#   rdma-selftest --mesh --devices all under srun: every ordered pair on each
#     rail (rxe0 -> rxe0, rxe1 -> rxe1) passes; rdma-fleet counts the rails;
#   --cross --pairs ring under pdsh: every rail to every rail of the next host;
#   one rail down for real (vmN's rail1): the pairs of vmN's rxe1 FAIL -- from
#     it "DOWN on this host", to it "the server refused: ... DOWN here" --
#     every other pair passes, and rdma-fleet names vmN rxe1/1 as the rail
#     that failed with every peer;
#   an address that resolves late (vm1's rail1 silent to ARP for a while):
#     the QP bring-up fails with ETIMEDOUT, the mesh tries again, both pass;
#   --peer-dev: one pair by hand, the server's device by name, and a name the
#     server does not have (the REJECT lists what it has);
#   --devices with a device this host lacks: the error names the known ones.
# vm1 drives through the engines; the others only serve them.  The rails are
# removed at the end.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
# shellcheck source=tests/vm/fleet-lib.sh
. "$RD_ROOT/tests/vm/fleet-lib.sh"
set -u
B=$RD_ROOT/build
N=$VM_NODES
HL=$(fleet_hostlist)
[ "$VM_NODE" = 1 ] || exit 0
ST=("$B/rdma-selftest" --mesh -n 20 --pings 10 --timeout 10)
PD=(pdsh -R ssh -t 120 -w "$HL")

# ---- the second rail on every host
# shellcheck disable=SC2016 # expanded on each host
"${PD[@]}" 'i=$(hostname | tr -dc 0-9)
	sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2 &&
	ip link add rail1 link eth0 address 52:54:00:0b:0b:$(printf %02x "$i") type macvlan mode bridge &&
	ip addr add 10.11.0.$i/24 dev rail1 && ip link set rail1 up &&
	rdma link add rxe1 type rxe netdev rail1 && echo rails-ready' >/tmp/fr-setup.txt 2>&1
rails_active() {
	[ "$("${PD[@]}" 'cat /sys/class/infiniband/rxe1/ports/1/state' 2>/dev/null | grep -c ': 4: ACTIVE')" = "$N" ]
}
vm_check "rxe1 on rail1 (macvlan of eth0, 10.11.0.I) ACTIVE on all $N hosts" vm_retry 30 rails_active ||
	sed 's/^/    | /' /tmp/fr-setup.txt

# ---- every ordered pair on each rail, under Slurm
vm_check "Slurm: all $N nodes idle" fleet_slurm_ready 180 || fleet_logs
t0=$SECONDS
timeout 900 srun -N "$N" -n "$N" "${ST[@]}" --devices all -j >/tmp/fr-srun.jsonl 2>/tmp/fr-srun.err
rc=$?
vm_log "srun --mesh --devices all, $N hosts x 2 rails: $((SECONDS - t0)) s"
vm_check_eq "srun --mesh --devices all: exit 0" 0 "$rc" "/tmp/fr-srun.jsonl" "/tmp/fr-srun.err"
rail_pairs=$(for i in $(seq "$N"); do for j in $(seq "$N"); do [ "$i" = "$j" ] ||
	printf 'vm%s rxe0 vm%s rxe0\nvm%s rxe1 vm%s rxe1\n' "$i" "$j" "$i" "$j"; done; done | sort)
vm_check_eq "... one line per ordered pair and rail, rail to the same rail ($((2 * N * (N - 1))))" \
	"$rail_pairs" "$(jq -r '"\(.src) \(.dev) \(.dst) \(.dst_dev)"' /tmp/fr-srun.jsonl 2>&1 | sort)"
vm_check_eq "... every one passes, measured" "$((2 * N * (N - 1)))" \
	"$(jq -s '[.[] | select(.result == "pass" and .port == 1 and .dst_port == 1 and .latency_us > 0 and .gbps > 0)] | length' /tmp/fr-srun.jsonl 2>&1)"
vm_check_eq "... the rounds: each host a client of one peer a round, on both rails in turn" \
	"$(seq "$N" | while read -r _; do seq $((N - 1)); seq $((N - 1)); done | sort -n | uniq -c | awk '{print $1, $2}')" \
	"$(jq -r .round /tmp/fr-srun.jsonl | sort -n | uniq -c | awk '{print $1, $2}')"
"$B/rdma-fleet" -w "$HL" /tmp/fr-srun.jsonl >/tmp/fr-fleet.out 2>&1
rc=$?
vm_check_eq "srun --mesh --devices all | rdma-fleet: exit 0" 0 "$rc" "/tmp/fr-fleet.out"
vm_check_output "... the matrix counts the rails" \
	"^mesh: $((2 * N * (N - 1))) pairs of $N hosts on 2 rails, $((2 * N * (N - 1))) pass( \([0-9]+ with a warning\))?, 0 fail" \
	cat /tmp/fr-fleet.out
vm_check "... and no rail failed" sh -c '! grep -q "rails that failed" /tmp/fr-fleet.out'

# ---- every rail to every rail of the next host, through pdsh
t0=$SECONDS
timeout 600 "${PD[@]}" "${ST[@]}" --hosts "$HL" --devices all --cross --pairs ring -j >/tmp/fr-cross.txt 2>/tmp/fr-cross.err
vm_log "pdsh --devices all --cross --pairs ring: $((SECONDS - t0)) s"
sed -n 's/^vm[0-9]*: //p' /tmp/fr-cross.txt >/tmp/fr-cross.jsonl
cross_pairs=$(for i in $(seq "$N"); do for a in 0 1; do for b in 0 1; do
	echo "vm$i rxe$a vm$((i % N + 1)) rxe$b"; done; done; done | sort)
vm_check_eq "--cross --pairs ring: rxe0 and rxe1 to rxe0 and rxe1 of the next host ($((4 * N)))" \
	"$cross_pairs" "$(jq -r '"\(.src) \(.dev) \(.dst) \(.dst_dev)"' /tmp/fr-cross.jsonl 2>&1 | sort)"
vm_check_eq "... every one passes (the rails share one fabric)" "$((4 * N))" \
	"$(jq -s '[.[] | select(.result == "pass")] | length' /tmp/fr-cross.jsonl 2>&1)" ||
	sed 's/^/    | /' /tmp/fr-cross.txt

# ---- an address that resolves late: a QP's RTR on RoCE waits one second for
# ARP, so a peer that answers late fails the bring-up with ETIMEDOUT -- on the
# server (its REJECT ends "; retry") or on the client -- and the mesh tries the
# pair again.  vm1's rail1 answers no ARP (arp_ignore=8) until vm2 has probed
# for 10.11.0.1 past that second (three probes, or FAILED), then answers again;
# vm1 knows vm2's rail1 MAC statically, so no ARP request of its own teaches
# vm2 the address meanwhile.  Every attempt of either pair before that fails
# at vm2's resolution: without the retry, both pairs would FAIL.
ssh vm1 "sysctl -qw net.ipv4.conf.rail1.arp_ignore=8 &&
	ip neigh replace 10.11.0.2 lladdr 52:54:00:0b:0b:02 dev rail1 nud permanent"
ssh vm2 ip neigh flush to 10.11.0.1
t0=$SECONDS
timeout 300 pdsh -R ssh -t 120 -w vm1,vm2 "${ST[@]}" --hosts vm1,vm2 --devices rxe1 --mesh-wait 90 -j \
	>/tmp/fr-late.txt 2>/tmp/fr-late.err &
late=$!
late_probed() { ssh vm2 ip -s neigh show 10.11.0.1 2>/dev/null | grep -Eq 'FAILED|probes ([3-9]|[1-9][0-9])'; }
vm_check "vm2 probed for vm1's 10.11.0.1 past the RTR's second, unanswered" vm_retry 120 late_probed ||
	ssh vm2 ip -s neigh show 10.11.0.1
ssh vm1 "sysctl -qw net.ipv4.conf.rail1.arp_ignore=0; ip neigh del 10.11.0.2 dev rail1"
wait "$late"
vm_log "pdsh --mesh vm1,vm2 rxe1 with vm1's ARP late: $((SECONDS - t0)) s"
sed -n 's/^vm[0-9]*: //p' /tmp/fr-late.txt >/tmp/fr-late.jsonl
vm_check_eq "ARP late: both pairs pass" "vm1 rxe1 vm2 rxe1 pass
vm2 rxe1 vm1 rxe1 pass" "$(jq -r '"\(.src) \(.dev) \(.dst) \(.dst_dev) \(.result)"' /tmp/fr-late.jsonl 2>&1 | sort)" ||
	sed 's/^/    | /' /tmp/fr-late.txt /tmp/fr-late.err
vm_check "... after more than one attempt (the bring-up failed while ARP was silent)" \
	jq -se 'map(.attempts) | max > 1' /tmp/fr-late.jsonl
vm_log "attempts: $(jq -r '"\(.src)->\(.dst) \(.attempts)"' /tmp/fr-late.jsonl 2>&1 | tr '\n' ' ')"

# ---- one rail down for real: vmN's rail1
ssh "vm$N" ip link set rail1 down
rail_down() { [ "$(ssh "vm$N" cat /sys/class/infiniband/rxe1/ports/1/state 2>&1)" = "1: DOWN" ]; }
vm_check "vm$N: rail1 down, rxe1 port 1 DOWN" vm_retry 20 rail_down
t0=$SECONDS
timeout 600 "${PD[@]}" "${ST[@]}" --hosts "$HL" --devices all --mesh-wait 15 -j >/tmp/fr-down.txt 2>/tmp/fr-down.err
took=$((SECONDS - t0))
vm_log "pdsh --devices all with vm$N's rxe1 down: $took s"
sed -n 's/^vm[0-9]*: //p' /tmp/fr-down.txt >/tmp/fr-down.jsonl
vm_check_eq "vm$N's own rxe1 pairs: FAIL at connect, DOWN on this host ($((N - 1)))" "$((N - 1))" \
	"$(jq -s "[.[] | select(.src == \"vm$N\" and .dev == \"rxe1\" and .result == \"fail\" and .failed_stage == \"connect\" and (.diagnosis | test(\"^rxe1 port 1 is DOWN on this host\")))] | length" /tmp/fr-down.jsonl 2>&1)" ||
	sed 's/^/    | /' /tmp/fr-down.txt
vm_check_eq "the pairs to vm$N's rxe1: the server refused, DOWN there ($((N - 1)))" "$((N - 1))" \
	"$(jq -s "[.[] | select(.dst == \"vm$N\" and .dst_dev == \"rxe1\" and .result == \"fail\" and .failed_stage == \"exchange\" and .diagnosis == \"the server refused: rxe1 port 1 is DOWN here\")] | length" /tmp/fr-down.jsonl 2>&1)"
vm_check_eq "... every other pair passes ($((2 * N * (N - 1) - 2 * (N - 1))))" "$((2 * N * (N - 1) - 2 * (N - 1)))" \
	"$(jq -s "[.[] | select(.result == \"pass\")] | length" /tmp/fr-down.jsonl 2>&1)"
vm_check "... within the waits ($took s)" test "$took" -lt 300
"$B/rdma-fleet" -w "$HL" /tmp/fr-down.txt >/tmp/fr-down.out 2>&1
rc=$?
vm_check_eq "rdma-fleet: exit 1" 1 "$rc" "/tmp/fr-down.out"
vm_check_output "rdma-fleet: vm$N rxe1/1 is the rail that failed with every peer" \
	"^  vm$N rxe1/1: $((2 * (N - 1))) of $((2 * (N - 1))) pairs failed$" cat /tmp/fr-down.out
vm_check_eq "... and the only one" 1 "$(grep -c '^  vm[0-9]* rxe[0-9]/[0-9]*: ' /tmp/fr-down.out)"
vm_check_output "... the problem names the hosts, the rails and the cause" \
	"^vm1 .* mesh vm1 -> vm$N \(rxe1/1 -> rxe1/1\): FAIL at exchange: the server refused: rxe1 port 1" \
	cat /tmp/fr-down.out
vm_check_output "... vm$N's row has X" "^vm$N +X +X" cat /tmp/fr-down.out
ssh "vm$N" ip link set rail1 up
rail_up() { [ "$(ssh "vm$N" cat /sys/class/infiniband/rxe1/ports/1/state 2>&1)" = "4: ACTIVE" ]; }
vm_check "vm$N: rail1 up again, rxe1 ACTIVE" vm_retry 20 rail_up

# ---- one pair by hand: the server's device by name
# shellcheck disable=SC2029 # $B is the same path on every host (the shared root)
ssh vm2 "timeout 120 $B/rdma-selftest --server --once --timeout 10" >/tmp/fr-srv.txt 2>&1 &
srv=$!
vm_retry 30 sh -c "ssh vm2 ss -Hltn | grep -q ':18515 '" || true
"$B/rdma-selftest" -d rxe1 --peer-dev rxe1 -n 20 --pings 10 --timeout 10 -j vm2 >/tmp/fr-pd.json 2>&1
rc=$?
wait "$srv"
vm_check_eq "--peer-dev rxe1 -d rxe1 vm2: exit 0" 0 "$rc" "/tmp/fr-pd.json"
vm_check_eq "... ours rxe1, the server's rxe1 (it said so), over the TCP exchange" "verbs rxe1 rxe1 1 pass" \
	"$(jq -r '"\(.mode) \(.dev) \(.peer_dev) \(.peer_port) \(.result)"' /tmp/fr-pd.json 2>&1)"
vm_check_output "... the server's log names rxe1" "verbs client .*: rxe1 port 1 GID" cat /tmp/fr-srv.txt
# shellcheck disable=SC2029
ssh vm2 "timeout 60 $B/rdma-selftest --server --once --timeout 10" >/tmp/fr-srv2.txt 2>&1 &
srv=$!
vm_retry 30 sh -c "ssh vm2 ss -Hltn | grep -q ':18515 '" || true
"$B/rdma-selftest" --peer-dev mlx5_7:1 --timeout 10 vm2 >/tmp/fr-pd2.txt 2>&1
rc=$?
wait "$srv"
vm_check_eq "--peer-dev mlx5_7:1 vm2: exit 1" 1 "$rc" "/tmp/fr-pd2.txt"
vm_check_output "... refused before any QP moved, naming what vm2 has" \
	"^  FAIL  exchange .*the server refused: no device mlx5_7 here \(it has rxe0, rxe1\)" cat /tmp/fr-pd2.txt

# ---- --devices naming a device this host lacks
"$B/rdma-selftest" --mesh --hosts "$HL" --devices rxe0,rxe5 >/tmp/fr-unk.txt 2>&1
rc=$?
vm_check_eq "--devices rxe0,rxe5: exit 1" 1 "$rc" "/tmp/fr-unk.txt"
vm_check_output "... the error names the known devices" \
	"^rdma-selftest: --devices: rxe5: no such device \(known: rxe0 rxe1\)$" cat /tmp/fr-unk.txt

# ---- leave the hosts as they were: rxe0 on eth0 only
"${PD[@]}" 'rdma link delete rxe1; ip link delete rail1;
	sysctl -qw net.ipv4.conf.all.arp_ignore=0 net.ipv4.conf.all.arp_announce=0' >/dev/null 2>&1
vm_check "the rails are gone from every host" \
	sh -c "! ${PD[*]} 'ls /sys/class/infiniband' 2>/dev/null | grep -q rxe1"
# VMENV_FLEET_SAVE=DIR: keep the real outputs (the source of tests/fixtures/fleet/vm-rails-*)
if [ -n "${VMENV_FLEET_SAVE:-}" ]; then
	mkdir -p "$VMENV_FLEET_SAVE"
	cp /tmp/fr-srun.jsonl "$VMENV_FLEET_SAVE/vm-rails-srun.jsonl"
	cp /tmp/fr-cross.txt "$VMENV_FLEET_SAVE/vm-rails-pdsh-cross.txt"
	cp /tmp/fr-down.txt "$VMENV_FLEET_SAVE/vm-rails-pdsh-down.txt"
fi
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/fr-fleet.out /tmp/fr-down.out /tmp/fr-pd2.txt; fi
