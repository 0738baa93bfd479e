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
# Metrics under node_exporter's infiniband collector names, and the textfile mode.
show "$B/rdma-top" --format node-exporter -d rxe0
show "$B/rdma-top" --textfile /tmp/rdma.prom -n 2 -i 0.5 -d rxe0
show grep -E '^(node_infiniband_state_id|rdma_hw_stat_total.*sent_pkts|rdma_port_info)' /tmp/rdma.prom
vm_pass "demo ran"
