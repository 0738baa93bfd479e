#!/bin/bash
# Two hosts, VM b (10.10.0.2): two rdma-selftest servers — an ordinary one,
# and one whose target memory lacks remote read (the hidden test flag
# --deny read).  Peer: p-ops-a.sh (the clients).
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
S=$RD_ROOT/build/rdma-selftest

vm_bg srv timeout 900 "$S" --server --timeout 10
vm_bg deny timeout 900 "$S" --server --timeout 10 -P 18600 --deny read
vm_bg paused timeout 900 "$S" --server --timeout 30 -P 18700
vm_wait_listen 18515 30 && vm_wait_listen 18600 30 && vm_wait_listen 18700 30 && vm_signal ops-srv-ready
# Twice (rdma_cm, then --verbs) the client asks: this server stops for 2 s
# in the middle of its bandwidth stage, its receive queue runs dry, and the
# client's sends meet RNR NAKs until it runs again.
for mode in cm verbs; do
	vm_wait "ctr-pause-$mode" 300 || vm_fail "no pause request ($mode)"
	pkill -STOP -f -- "--server --timeout 30 -P 18700"
	sleep 2
	pkill -CONT -f -- "--server --timeout 30 -P 18700"
	vm_signal "ctr-resumed-$mode"
done
# The perftest server the client's printed command runs against: this side's
# own device and GID index, from rdma-gids --best as the "next" line says.
gid=$("$RD_ROOT/build/rdma-gids" --best -j | jq '.[0].index')
# (-p: perftest's TCP port, 18515 too by default, is the selftest server's.)
vm_bg pt timeout 300 ib_send_bw -d "${VM_RDMA_DEV:-rxe0}" -x "$gid" --report_gbits -n 200 -p 18800
vm_wait_listen 18800 60 && vm_signal pt-srv-ready
vm_wait ops-done 900
vm_bg_wait pt > /tmp/pt.log 2>&1; rc=$?
# What matters here is that the printed command reached a perftest server
# that took its 200 sends and measured them: its own report row.  perftest's
# server may still exit 1 when its closing TCP handshake races the client's
# exit (its status then depends on timing, not on us): logged with its output.
[ "$rc" = 0 ] || { vm_log "perftest server exited $rc; its output:"; sed 's/^/#   /' /tmp/pt.log; }
vm_check_output "perftest server for the printed command: received and measured the 200 sends" \
	"^ 65536 +200 +[0-9.]+ +[0-9.]+" cat /tmp/pt.log
vm_bg_kill srv
vm_bg_kill deny
vm_bg_kill paused
vm_bg_wait srv > /tmp/srv.log 2>&1
vm_bg_wait deny > /tmp/deny.log 2>&1
vm_bg_wait paused > /tmp/paused.log 2>&1
vm_check_output "server: rdma_cm sessions done" "rdma_cm client .*: done, [0-9]+ messages" cat /tmp/srv.log
vm_check_output "server: verbs sessions done" "verbs client .*: done, [0-9]+ messages" cat /tmp/srv.log
vm_check_eq "server: no session failed" "" "$(grep 'session failed' /tmp/srv.log)"
# The client's READ broke the connection: the server sees its QP flushed and
# says that no error of its own came first.
vm_check_output "--deny read server: the session ends with the peer's access error named" \
	"session failed .*Flushed.*no error of ours came before it: the peer's request put the queue pair in error" cat /tmp/deny.log
vm_check_output "--deny read server: write and atomics from the same server still done" "done, [0-9]+ messages" cat /tmp/deny.log
vm_check_output "server: a UD session done" "verbs client .*: .*UD QPN 0x[0-9a-f]+ <-> 0x[0-9a-f]+" cat /tmp/srv.log
vm_check_output "server: a UD client that gave up after the exchange ends its session at once" \
	"verbs client .*: session failed after 0 messages: the client closed its exchange connection" cat /tmp/deny.log
vm_check_output "paused server: its sessions done" "verbs client .*: done, [0-9]+ messages" cat /tmp/paused.log
vm_check_output "paused server: its RNR NAKs in the session's counters line" \
	"client .*: counters: retransmits: .*send_rnr_err \+[0-9]+.* on ${VM_RDMA_DEV:-rxe0} port 1 during the run" cat /tmp/paused.log
if [ "${VM_SHOW:-0}" = 1 ]; then cat /tmp/srv.log /tmp/deny.log /tmp/paused.log; fi
