#!/bin/bash
# make deb: build the Debian package from a copy of the tree (dh_auto_clean
# runs `make clean`, which must not wipe this tree's build/), as
# `dpkg-buildpackage -us -uc -b`, and put the .deb, .buildinfo and .changes
# into OUT (default build/).  Prints the path of the .deb last.
# usage: tests/deb/build.sh [OUT]
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build}
version=$(cat VERSION)
arch=$(dpkg --print-architecture)
work=$out/deb-work
rm -rf "$work"
mkdir -p "$work/rdma-diag-$version"
# Everything but build products and VCS data; works from a git checkout or a tarball.
tar --exclude=./build --exclude=./.git --exclude='./debian/rdma-diag' --exclude='./debian/.debhelper' \
	-cf - . | tar -C "$work/rdma-diag-$version" -xf -
(
	cd "$work/rdma-diag-$version"
	# -j: the Makefile is parallel-safe; DEB_BUILD_OPTIONS from the caller still apply.
	dpkg-buildpackage -us -uc -b -j"$(nproc)"
) > "$work/build.log" 2>&1 || {
	echo "deb: dpkg-buildpackage failed; the end of $work/build.log:" >&2
	tail -30 "$work/build.log" >&2
	exit 1
}
base=rdma-diag_${version}
# The package, its -dbgsym companion and the .changes/.buildinfo naming them.
rm -f "$out"/rdma-diag_*.deb "$out"/rdma-diag-dbgsym_*.deb "$out"/rdma-diag_*.changes \
	"$out"/rdma-diag_*.buildinfo
cp "$work"/*.deb "$work/${base}_$arch.buildinfo" "$work/${base}_$arch.changes" "$out/"
rm -rf "$work/rdma-diag-$version"
echo "$out/${base}_$arch.deb"
