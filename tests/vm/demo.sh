#!/bin/bash
# make demo: every rdma-diag tool on the real soft-RoCE device of the VM.
# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"
set -u
B=$RD_ROOT/build

show() {
	echo
	echo "\$ $*"
	"$@"
	echo "(exit status $?)"
}

echo "== rdma-diag demo: kernel $(uname -r), soft-RoCE rxe0 on eth0 ($VM_IP)"
show rdma link show
for t in "$B"/rdma-*; do
	case $(basename "$t") in
	rdma-devinfo)
		show "$t"
		show "$t" -v
		show "$t" -j
		show "$t" -d nosuch
		;;
	esac
done
vm_pass "demo ran"
