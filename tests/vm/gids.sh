#!/bin/bash
# VM scenario: rdma-gids and rdma-devmap on the real rxe0 — against
# ibv_devinfo -v and `rdma link`, while addresses, a VLAN and a namespace change.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

G=$RD_ROOT/build/rdma-gids
M=$RD_ROOT/build/rdma-devmap
DEV=${VM_RDMA_DEV:-rxe0}
NET=${VM_NETDEV:-eth0}
SYS=/sys/class/infiniband/$DEV/ports/1

# ---- the table agrees with ibv_devinfo -v (GID and type per index)
ibv_gids() { # "index gid type" per used slot, from ibv_devinfo -v
	ibv_devinfo -v -d "$DEV" |
		sed -n 's/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*\([^,]*\), \(.*\)$/\1 \2 \3/p'
}
our_gids() { # the same from rdma-gids -j (::ffff:a.b.c.d for IPv4, like inet_ntop)
	"$G" -d "$DEV" -j | jq -r '.[] | "\(.index) \(if .ipv4 then "::ffff:" + .ipv4 else .ipv6 end) \(.type)"'
}
vm_check_eq "GID table = ibv_devinfo -v" "$(ibv_gids)" "$(our_gids)"
n_sysfs=$(grep -vc '^0000:0000:0000:0000:0000:0000:0000:0000$' $SYS/gids/* | grep -vc ':0$')
vm_check_eq "as many GIDs as used sysfs slots" "$n_sysfs" "$("$G" -d "$DEV" -j | jq length)"
vm_check_eq "--all shows every slot" "$(ls $SYS/gids | wc -l)" "$("$G" -d "$DEV" --all -j | jq length)"
vm_check_output "indexes in numeric order" "^0 1 2" sh -c "'$G' --all -d $DEV -j | jq -r '[.[].index][0:3] | join(\" \")'"

# ---- new addresses make new GIDs with the right ADDRESS and version
ip addr add 10.10.0.77/24 dev "$NET"
ip -6 addr add 2001:db8:77::1/64 dev "$NET" nodad
has_gid() { "$G" -d "$DEV" -j | jq -e --arg a "$1" 'any(.[]; .ipv4 == $a or .ipv6 == $a)' > /dev/null; }
vm_retry 15 has_gid 10.10.0.77
vm_retry 15 has_gid 2001:db8:77::1
vm_check_output "IPv4 GID appears as v2 with dotted address" "^$DEV +1 +[0-9]+ +0000:0000:0000:0000:0000:ffff:0a0a:004d +10\.10\.0\.77 +v2 +$NET +-\$" "$G" -d "$DEV"
vm_check_output "global IPv6 GID appears" "2001:0db8:0077:0000:0000:0000:0000:0001 +2001:db8:77::1 +v2 +$NET" "$G" -d "$DEV"
vm_check_output "--ip finds the new address" "10\.10\.0\.77" "$G" --ip 10.10.0.77
vm_check "-4 lists IPv4 GIDs, and only those" \
	sh -c "'$G' -4 -j | jq -e 'length > 0 and all(.[]; (.ipv4 | type) == \"string\" and .ipv6 == null)'"
vm_check "-4 has no IPv6" sh -c "! '$G' -4 -j | jq -e 'any(.[]; .ipv6)' >/dev/null"

# ---- a VLAN netdev: GIDs with VLAN 100
modprobe 8021q
ip link add link "$NET" name "$NET.100" type vlan id 100
ip link set "$NET.100" up
ip addr add 10.100.0.1/24 dev "$NET.100"
vm_retry 15 has_gid 10.100.0.1
vm_check_output "VLAN GID has VLAN 100" "10\.100\.0\.1 +v2 +$NET\.100 +100\$" "$G" -d "$DEV"
vm_check_eq "--netdev filters by netdev" "$NET.100" "$("$G" --netdev "$NET.100" -j | jq -r '[.[].netdev] | unique | join(",")')"

# ---- --best: the IPv4 RoCE v2 index of VM_IP (the lowest IPv4 v2, untagged)
want=$(vm_gid_index "$DEV" "$VM_IP")
best=$("$G" --best -d "$DEV" -j)
vm_check_eq "--best = the RoCE v2 GID of $VM_IP" "$want" "$(jq -r '.[0].index' <<<"$best")"
vm_check_eq "--best reason" "RoCE v2, $VM_IP on $NET" "$(jq -r '.[0].reason' <<<"$best")"
vm_check_output "--best text" "^$DEV 1 $want \(RoCE v2, $VM_IP on $NET\)\$" "$G" --best -d "$DEV"
vm_check_output "--best --vlan 100 picks the VLAN GID" "\(RoCE v2, 10\.100\.0\.1 on $NET\.100\)" "$G" --best --vlan 100
vm_check_output "--compat counts its rows" "^n_gids_found=[1-9]" "$G" --compat
vm_check_eq "--compat row count = -j count without link-local zero" \
	"$("$G" -j | jq length)" "$("$G" --compat | sed -n 's/^n_gids_found=//p')"

# ---- rdma-devmap agrees with rdma link, via netlink
link_ndev=$(rdma link show "$DEV/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
vm_check_eq "devmap line = rdma link" "$DEV port 1 ==> $link_ndev (Up)" "$("$M" -d "$DEV")"
vm_check_eq "devmap via netlink" "netlink" "$("$M" -j -d "$DEV" | jq -r '.[0].via')"
vm_check_eq "devmap netdev_mtu = ip link" "$(cat /sys/class/net/$NET/mtu)" "$("$M" -j -d "$DEV" | jq -r '.[0].netdev_mtu')"
vm_check_output "devmap -v" "^$DEV +1 +$NET +Up +ACTIVE +Ethernet" "$M" -v
vm_check_output "reverse by netdev" "^$NET ==> $DEV port 1 netdev $NET gid " "$M" "$NET"
vm_check_output "reverse by IP names the GID index" "^$VM_IP ==> $DEV port 1 netdev $NET gid ([0-9]+,)*$want(,|\$)" "$M" "$VM_IP"
vm_check_output "reverse by VLAN netdev" "^$NET.100 ==> $DEV port 1 netdev $NET.100 gid [0-9]" "$M" "$NET.100"
vm_check_fails "reverse by unknown IP fails" "$M" 10.99.99.99
vm_check_fails "reverse by unknown netdev fails" "$M" nosuch0

# ---- link down: devmap says Down, --best says why
ip link set "$NET.100" down
vm_check_exit "--best --vlan 100 with the VLAN down: exit 1, says why" 1 \
	"the netdevs of every candidate GID are down" "$G" --best --vlan 100
ip link set "$NET.100" up

# ---- seen from another network namespace (a container): the RDMA device is
# shared, its netdev is not visible there; report that, not a wrong name
ip netns add other
ip netns exec other ip link set lo up
ip netns exec other "$M" -d "$DEV" > /tmp/ns.txt 2>&1
vm_check_output "netdev in another netns reported as such" \
	"^$DEV port 1 ==> $NET \(NA, in another network namespace\)" cat /tmp/ns.txt
vm_check_eq "JSON netns other" "other" "$(ip netns exec other "$M" -j -d "$DEV" | jq -r '.[0].netns')"
vm_check_eq "JSON netdev_state other_netns" "other_netns" "$(ip netns exec other "$M" -j -d "$DEV" | jq -r '.[0].netdev_state')"
ip netns delete other

# Clean up for later scenarios.
ip link delete "$NET.100"
ip addr del 10.10.0.77/24 dev "$NET"
ip -6 addr del 2001:db8:77::1/64 dev "$NET"
if [ "${VM_SHOW:-0}" = 1 ]; then "$G"; "$G" --best; "$M"; "$M" -v; fi
