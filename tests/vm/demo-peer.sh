#!/bin/bash
# make demo, VM b (10.10.0.2, not shown): the rdma-selftest server for the
# demo's clients on VM a (demo.sh), until that script is done.
# shellcheck source=tests/vm/demo-lib.sh
. "$RD_ROOT/tests/vm/demo-lib.sh"
set -u

vm_bg srv timeout 300 rdma-selftest --server --timeout 10
vm_wait_listen 18515 30 && vm_signal demo-srv-ready
vm_wait demo-done 280
vm_bg_kill srv
vm_bg_wait srv >/tmp/demo-srv.log 2>&1
vm_check_output "demo server: the clients of VM a completed" "done, [0-9]+ messages" cat /tmp/demo-srv.log
