#!/bin/bash
# Two hosts, VM a (10.10.0.1): the servers for the bench's own instrument,
# bench/read-floor.c, against perftest both ways: a read-floor server for a
# read-floor client, an ib_read_lat server for a read-floor client, a
# read-floor server for an ib_read_lat client.  Each serves one client and
# must exit 0.  Peer: p-bench-b.sh.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
# shellcheck source=bench/vm/lib.sh
. "$RD_ROOT/bench/vm/lib.sh"
set -u
gid=$(bench_gid)

vm_check "read-floor is built (make bench-build)" test -x "$READ_FLOOR"
# serve: NAME READY-SIGNAL PORT CMD... -- start a one-client server, signal
# b once it listens, and check that it served and exited 0.
serve() {
	local name=$1 sig=$2 port=$3
	shift 3
	vm_bg "$name" timeout 120 "$@"
	vm_wait_listen "$port" 30 || vm_fail "$name: nothing listens on $port"
	vm_signal "$sig"
	vm_bg_wait "$name" > "/tmp/$name.out"
	vm_check_eq "$name served its client and exited 0" 0 "$?" "/tmp/$name.out"
}
serve floor-floor bench-ff 18540 "$READ_FLOOR" -s 18540 "$DEV" "$gid"
serve pt-server bench-fp 18541 ib_read_lat -d "$DEV" -x "$gid" -F -s 64 -n 300 -p 18541
serve floor-pt bench-pf 18542 "$READ_FLOOR" -s 18542 "$DEV" "$gid"
vm_check "VM b ran its clients to the end" vm_wait bench-b-done 180
