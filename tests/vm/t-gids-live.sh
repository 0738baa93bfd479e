#!/bin/bash
# VM scenario: rdma-gids' live path (ibv_query_gid_table(), one call per device)
# gives exactly what the sysfs path gives on the same table, with a full table
# (hundreds of addresses), a VLAN, and a network namespace that has no GID.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

G=$RD_ROOT/build/rdma-gids
DEV=${VM_RDMA_DEV:-rxe0}
NET=${VM_NETDEV:-eth0}

# ---- the live path is the verbs one: no gid_attrs file is opened
# Files are opened relative to their directory's descriptor (lib/sysroot's cache):
# strace -y names the directory, so both forms count: "gid_attrs/types/5" and
# openat(4</sys/.../gid_attrs/types>, "5").
types_opened() { # how many gid_attrs/types files one run opens
	strace -f -y -e trace=openat "$@" 2>&1 >/dev/null | grep -cE 'gid_attrs/types(/[0-9]|>, "[0-9])'
}
vm_check_eq "live: no gid_attrs/types file opened (ibv_query_gid_table)" 0 "$(types_opened "$G" -d "$DEV")"
vm_check "RDMA_GIDS_SOURCE=sysfs reads the files" \
	test "$(RDMA_GIDS_SOURCE=sysfs types_opened "$G" -d "$DEV")" -gt 0

# ---- a full table: 200 IPv4 + 100 IPv6 addresses, and a VLAN with its own
for i in $(seq 1 200); do echo "addr add 10.77.$((i / 250)).$((i % 250 + 1))/16 dev $NET"; done > /tmp/addrs
for i in $(seq 1 100); do echo "addr add 2001:db8:77::$i/64 dev $NET nodad"; done >> /tmp/addrs
ip -batch /tmp/addrs
modprobe 8021q
ip link add link "$NET" name "$NET.100" type vlan id 100
ip link set "$NET.100" up
ip addr add 10.100.0.1/24 dev "$NET.100"
count() { "$G" -d "$DEV" -j | jq length; }
full() { [ "$(count)" -ge 400 ]; }
vm_retry 90 full
vm_check "a full table: at least 200 GIDs ($(count))" test "$(count)" -ge 200

same() { # name args... : live and sysfs outputs identical
	local name=$1
	shift
	"$G" "$@" >/tmp/live.out 2>/tmp/live.err
	local rl=$?
	RDMA_GIDS_SOURCE=sysfs "$G" "$@" >/tmp/sysfs.out 2>/tmp/sysfs.err
	local rs=$?
	vm_check_eq "$name: same exit status" "$rs" "$rl"
	vm_check "$name: same output ($(wc -l </tmp/live.out) lines)" cmp /tmp/live.out /tmp/sysfs.out
	vm_check "$name: same warnings" cmp /tmp/live.err /tmp/sysfs.err
}
same "listing" -d "$DEV"
same "listing -j" -d "$DEV" -j
same "--best" --best
same "--best -j" --best -j
same "--best -n VLAN" --best -n "$NET.100"
same "--compat" --compat
same "-4 --ver v2" -4 --ver v2
vm_check_output "--best -n $NET.100 chooses the VLAN without --vlan" \
	"^$DEV 1 [0-9]+ \(RoCE v2, 10\.100\.0\.1 on $NET\.100\)\$" "$G" --best --netdev "$NET.100"

# ---- a network namespace that sees the device (shared mode) but none of its netdevs
rdma system set netns shared 2>/dev/null || true
ip netns add gidns
vm_check_output "in a netns with no GID of its own: said so" \
	"^$DEV 1 - \(no usable GID in this network namespace" sh -c "ip netns exec gidns '$G' --best -d $DEV; true"
vm_check_output "... also through sysfs" \
	"^$DEV 1 - \(no usable GID in this network namespace" \
	sh -c "ip netns exec gidns env RDMA_GIDS_SOURCE=sysfs '$G' --best -d $DEV; true"
vm_check_output "the same device in the init namespace has a GID" "^$DEV 1 [0-9]+ " "$G" --best -d "$DEV"
vm_check_fails "... and exits 1" ip netns exec gidns "$G" --best -d "$DEV"
ip netns del gidns

ip link del "$NET.100"
sed "s/^addr add/addr del/" /tmp/addrs > /tmp/addrs-del
ip -batch /tmp/addrs-del
vm_check "dmesg: no kernel warnings" vm_dmesg_clean
