#!/bin/bash
# Two hosts, VM b: ib_send_bw client with the index rdma-gids --best picks.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
G=$RD_ROOT/build/rdma-gids
dev=${VM_RDMA_DEV:-rxe0}
idx=$("$G" --best -d "$dev" -j | jq -r '.[0].index')
vm_check_eq "--best is the IPv4 v2 GID" "$(vm_gid_index "$dev" "$VM_IP")" "$idx"
vm_check_output "--ip of the peer is not ours" "no GID carries" sh -c "'$G' --ip $PEER_IP 2>&1; true"
if vm_wait sendbw-ready 120; then
	vm_check_output "ib_send_bw client with -x from --best" "BW average" \
		timeout 240 ib_send_bw -d "$dev" -x "$idx" -F -n 200 -s 4096 -p 18520 "$PEER_IP"
else
	vm_fail "ib_send_bw client with -x from --best" "server never got ready"
fi
