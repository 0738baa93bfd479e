#!/bin/bash
# make demo: every rdma-diag tool on the real soft-RoCE device of the VM.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
B=$RD_ROOT/build
NET=${VM_NETDEV:-eth0}

show() {
	echo
	echo "\$ $*"
	"$@"
	echo "(exit status $?)"
}

echo "== rdma-diag demo: kernel $(uname -r), soft-RoCE rxe0 on $NET ($VM_IP)"
# A richer GID table: a global IPv6 address and a VLAN with its own address.
modprobe 8021q
ip -6 addr add 2001:db8:10::1/64 dev "$NET" nodad
ip link add link "$NET" name "$NET.100" type vlan id 100
ip link set "$NET.100" up
ip addr add 10.100.0.1/24 dev "$NET.100"
sleep 1
show rdma link show
show "$B/rdma-devinfo"
show "$B/rdma-devinfo" -v
show "$B/rdma-devinfo" -j
show "$B/rdma-devinfo" -d nosuch
show "$B/rdma-gids"
show "$B/rdma-gids" --best
show "$B/rdma-gids" --best --vlan 100
show "$B/rdma-gids" --best -j
show "$B/rdma-gids" --compat
show "$B/rdma-devmap"
show "$B/rdma-devmap" -v
show "$B/rdma-devmap" "$VM_IP"
show "$B/rdma-devmap" "$NET.100" -j
# rdma-fleet: this VM's output labelled as two hosts (on a cluster, pdsh or
# srun gives one label per host; see make check-fleet for three real VMs).
fleet_in() {
	"$B/rdma-devinfo" -v -j | "$B/rdma-fleet" --prefix=node01
	"$B/rdma-devinfo" -v -j | "$B/rdma-fleet" --prefix=node02
	"$B/rdma-gids" --best -j | "$B/rdma-fleet" --prefix=node01
	"$B/rdma-gids" --best -j | "$B/rdma-fleet" --prefix=node02
}
fleet_in > /tmp/fleet-in.txt
show head -n 3 /tmp/fleet-in.txt
show "$B/rdma-fleet" -w 'node[01-03]' /tmp/fleet-in.txt
vm_pass "demo ran"
