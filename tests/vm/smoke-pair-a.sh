#!/bin/bash
# Pair smoke test, VM a (10.10.0.1): servers. Peer: smoke-pair-b.sh.
set -u
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"

dev=${VM_RDMA_DEV:-rxe0}

vm_check "ping $PEER_IP" vm_ping "$PEER_IP" 3

# The shared scratch directory: a value written here is visible there.
vm_put token-a "from-a-$$"
vm_check_eq "9p scratch: value from b visible in a" "from-b" \
    "$(vm_get token-b 60 | cut -d- -f1,2)"

gid=$(vm_gid_index "$dev") || vm_fail "RoCE v2 GID for $VM_IP"

# ibv_rc_pingpong server; b is told when it listens.
vm_bg pingpong timeout 180 ibv_rc_pingpong -d "$dev" -g "${gid:-0}" -p 18515 -n 50
if vm_wait_listen 18515 60; then
    vm_signal pingpong-ready
    vm_check_output "ibv_rc_pingpong server (a<-b)" "50 iters" vm_bg_wait pingpong
else
    vm_bg_kill pingpong
    vm_fail "ibv_rc_pingpong server (a<-b)" "server did not listen on 18515"
fi

# ib_send_lat server (perftest).
vm_bg sendlat timeout 180 ib_send_lat -d "$dev" -x "${gid:-0}" -F -n 200 -p 18516
if vm_wait_listen 18516 60; then
    vm_signal sendlat-ready
    vm_check_output "ib_send_lat server (a<-b)" "t_avg" vm_bg_wait sendlat
else
    vm_bg_kill sendlat
    vm_fail "ib_send_lat server (a<-b)" "server did not listen on 18516"
fi
