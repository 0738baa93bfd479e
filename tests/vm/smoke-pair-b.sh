#!/bin/bash
# Pair smoke test, VM b (10.10.0.2): clients. Peer: smoke-pair-a.sh.
set -u
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"

dev=${VM_RDMA_DEV:-rxe0}

vm_check "ping $PEER_IP" vm_ping "$PEER_IP" 3

vm_put token-b "from-b-$$"
vm_check_eq "9p scratch: value from a visible in b" "from-a" \
    "$(vm_get token-a 60 | cut -d- -f1,2)"

gid=$(vm_gid_index "$dev") || vm_fail "RoCE v2 GID for $VM_IP"

if vm_wait pingpong-ready 120; then
    vm_check_output "ibv_rc_pingpong client (b->a)" "50 iters" \
        timeout 180 ibv_rc_pingpong -d "$dev" -g "${gid:-0}" -p 18515 -n 50 "$PEER_IP"
else
    vm_fail "ibv_rc_pingpong client (b->a)" "server on $PEER_IP never got ready"
fi

if vm_wait sendlat-ready 120; then
    vm_check_output "ib_send_lat client (b->a)" "t_avg" \
        timeout 180 ib_send_lat -d "$dev" -x "${gid:-0}" -F -n 200 -p 18516 "$PEER_IP"
else
    vm_fail "ib_send_lat client (b->a)" "server on $PEER_IP never got ready"
fi
