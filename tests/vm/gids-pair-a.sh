#!/bin/bash
# Two hosts: the index rdma-gids --best picks works for perftest between them.
# VM a serves ib_send_bw with its own best index.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
G=$RD_ROOT/build/rdma-gids
dev=${VM_RDMA_DEV:-rxe0}
idx=$("$G" --best -d "$dev" -j | jq -r '.[0].index')
vm_check_eq "--best is the IPv4 v2 GID" "$(vm_gid_index "$dev" "$VM_IP")" "$idx"
vm_bg sendbw timeout 240 ib_send_bw -d "$dev" -x "$idx" -F -n 200 -s 4096 -p 18520
if vm_wait_listen 18520 60; then
	vm_signal sendbw-ready
	vm_check_output "ib_send_bw server with -x from --best" "BW average" vm_bg_wait sendbw
else
	vm_bg_kill sendbw
	vm_fail "ib_send_bw server with -x from --best" "server did not listen"
fi
