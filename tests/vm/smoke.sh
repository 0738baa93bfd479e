#!/bin/bash
# Single-VM smoke test: the soft-RoCE stack works (rxe0 on eth0).
set -u
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"

dev=${VM_RDMA_DEV:-rxe0}

vm_check_output "rdma link shows $dev" "link $dev/1 .*state ACTIVE.*netdev eth0" \
    timeout 20 rdma link show
vm_check_output "ibv_devices lists $dev" "^[[:space:]]*${dev}[[:space:]]" timeout 20 ibv_devices
vm_check_output "ibv_devinfo: port 1 PORT_ACTIVE" "state:[[:space:]]+PORT_ACTIVE" \
    timeout 20 ibv_devinfo -d "$dev" -i 1
vm_check_output "ibv_devinfo: link layer Ethernet" \
    "link_layer:[[:space:]]+Ethernet" timeout 20 ibv_devinfo -d "$dev" -v
vm_check "sysfs has ports/1/gids" test -d "/sys/class/infiniband/$dev/ports/1/gids"
vm_check_output "eth0 has $VM_IP" "inet $VM_IP/24" timeout 10 ip -4 addr show dev eth0

if gid=$(vm_gid_index "$dev"); then
    vm_pass "RoCE v2 GID for $VM_IP (index $gid)"
    port=18515
    vm_bg server timeout 120 ibv_rc_pingpong -d "$dev" -g "$gid" -p "$port" -n 50
    if vm_retry 30 _vm_listening "$port"; then
        vm_check_output "ibv_rc_pingpong loopback: client" "50 iters" \
            timeout 120 ibv_rc_pingpong -d "$dev" -g "$gid" -p "$port" -n 50 127.0.0.1
    else
        vm_fail "ibv_rc_pingpong loopback: client" "server never listened on $port"
        vm_bg_kill server
    fi
    vm_check_output "ibv_rc_pingpong loopback: server" "50 iters" vm_bg_wait server
else
    vm_fail "RoCE v2 GID for $VM_IP" "$(grep -H . /sys/class/infiniband/"$dev"/ports/1/gids/* 2>&1)"
    vm_skip "ibv_rc_pingpong loopback" "no usable GID"
fi

vm_check "dmesg readable, no kernel warnings" vm_dmesg_clean
