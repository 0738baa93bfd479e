#!/bin/sh
# Exit 0 when everything make demo needs is installed, 1 (naming what is
# missing) otherwise; make demo then runs make deps.
missing=
for c in qemu-system-x86_64 busybox cpio pkg-config cc rdma ibv_devinfo jq; do
	command -v "$c" > /dev/null 2>&1 || missing="$missing $c"
done
for p in libibverbs librdmacm libnl-3.0 libnl-route-3.0 ncursesw json-c; do
	pkg-config --exists "$p" 2> /dev/null || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "missing:$missing"
exit 1
