#!/bin/bash
# VM scenario: rdma-fabric on a host whose only RDMA port is soft-RoCE.  The
# kernel's umad interface is real here (ib_umad gives rxe0 port 1 a umad
# device, as it does a RoCE HCA's), so this proves what the simulated fabric
# tier cannot: the tool finds the port through libibumad, sees it is Ethernet
# and says that RoCE has no subnet to sweep -- as root and as an unprivileged
# user, in text and with -j, with -d/-p, and for a device that is not there.
# The sweep itself is proven under ibsim + OpenSM (tests/fabric).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u

F=$RD_ROOT/build/rdma-fabric
DEV=${VM_RDMA_DEV:-rxe0}

vm_check "the kernel gave $DEV a umad device" \
	grep -qx "$DEV" /sys/class/infiniband_mad/umad0/ibdev
eth="no InfiniBand port \\($DEV port 1 is Ethernet: RoCE and iWARP have no subnet to sweep\\)"
vm_check_exit "rdma-fabric: exit 1, naming the Ethernet port" 1 "^rdma-fabric: $eth\$" "$F"
vm_check_exit "... -d $DEV -p 1: the same" 1 "^rdma-fabric: $eth\$" "$F" -d "$DEV" -p 1
vm_check_exit "... -j: the same error, no partial document on stdout" 1 "^rdma-fabric: $eth\$" "$F" -j
vm_check_eq "... -j: stdout is empty" "" "$("$F" -j 2> /dev/null)"
vm_check_exit "... --nhc: one ERROR line naming the port" 1 "^ERROR: rdma-fabric: .*$DEV port 1 is Ethernet" "$F" --nhc
vm_check_exit "... -d mlx5_9: names the device that is there" 1 "mlx5_9: no such device \\(known: $DEV\\)" "$F" -d mlx5_9
vm_check_exit "... as nobody: the same words, not a permission error" 1 "^rdma-fabric: $eth\$" \
	vm_as_nobody "$F"
vm_check "rdma-fabric scenarios: no kernel warnings" vm_dmesg_clean

# The permission path.  Only an InfiniBand port gets as far as opening its
# umad device, and soft-RoCE has none; so the port's link_layer file is
# covered (a bind mount, this VM's own view) with "InfiniBand": libibumad
# then takes rxe0 port 1 for an IB port, and the open of the real
# /dev/infiniband/umad0 (the kernel's ib_umad, mode 0600 root with no udev)
# is refused to an unprivileged user.  (libibumad answers -EIO for any
# failed open: rdma-fabric opens the node again for the reason.)  A user in
# the device's group gets past it (and then finds no subnet on a port that
# is not IB, which is not checked here).
LL=/sys/class/infiniband/$DEV/ports/1/link_layer
UM=/dev/infiniband/umad0
vm_check_eq "$UM: root's alone (0600 root)" "600 0" "$(stat -c '%a %u' "$UM")"
echo InfiniBand > /tmp/ll-ib
if vm_check "link_layer covered with InfiniBand (bind mount)" mount --bind /tmp/ll-ib "$LL"; then
	perm="^rdma-fabric: $DEV port 1: no permission to open $UM \\(run as root, or in the group that owns it, usually rdma\\)\$"
	vm_check_exit "as nobody: exit 1, no permission on the umad device, run as root or in the rdma group" 1 "$perm" \
		vm_as_nobody "$F"
	vm_check_exit "... -j: the same words, stdout empty" 1 "$perm" \
		vm_as_nobody "$F" -j
	vm_check_eq "... -j: nothing on stdout" "" \
		"$(vm_as_nobody "$F" -j 2> /dev/null)"
	chgrp 65534 "$UM" && chmod 0660 "$UM"
	out=$(vm_as_nobody timeout 60 "$F" --timeout 50 --retries 0 2>&1)
	vm_check_eq "in the umad device's group (0660): past the permission check" "" \
		"$(grep -i 'no permission' <<<"$out")"
	chmod 0600 "$UM"; chgrp 0 "$UM"
	umount "$LL"
fi
vm_check_eq "link_layer as found" Ethernet "$(cat "$LL")"
vm_check "rdma-fabric permission scenarios: no kernel warnings" vm_dmesg_clean
