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
	setpriv --reuid 65534 --regid 65534 --clear-groups "$F"
vm_check "rdma-fabric scenarios: no kernel warnings" vm_dmesg_clean
