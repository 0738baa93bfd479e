#!/bin/bash
# SPDX-License-Identifier: MIT
# gpu-host-check.sh: on a host with NVIDIA GPUs, compare what rdma-gpumap reads from
# sysfs with what the NVIDIA driver and lspci say, one line per fact: agree,
# disagree (ours vs theirs) or not compared (why).  Facts: the GPUs (bus ids),
# each GPU's NUMA node and CPU affinity and its NIC's path (nvidia-smi topo -m),
# BAR1 (nvidia-smi -q -d MEMORY, against rdma-gpumap's bar1_mib), each PCI hop's
# link speed and width, current and maximum, and its ACS control bits (lspci -vvv;
# ACS needs root on both sides).  Where there is no nvidia-smi, or it sees no GPU,
# it says so and exits 0.  It reports; it never fails on a disagreement (exit 0
# unless it cannot run: 1, or a usage error: 2).
#
# usage: bench/gpu-host-check.sh [--sysroot DIR] [-h]
#   --sysroot DIR  give rdma-gpumap a copied tree instead of the
#                  live /sys (the tests: with tests/gpu-host/bin first on PATH)
# Environment: RDMA_GPUMAP (default build/rdma-gpumap);
# nvidia-smi and lspci are taken from PATH.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
usage() { sed -n '3,/^set -u$/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
sysroot=''
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--sysroot) [ $# -ge 2 ] || { echo "gpu-host-check: --sysroot wants a directory" >&2; exit 2; }
		sysroot=$2; shift ;;
	--sysroot=*) sysroot=${1#--sysroot=} ;;
	*) echo "gpu-host-check: unknown argument '$1' (try -h)" >&2; exit 2 ;;
	esac
	shift
done
[ -z "$sysroot" ] || [ -d "$sysroot" ] || { echo "gpu-host-check: $sysroot: not a directory" >&2; exit 2; }

gpumap=${RDMA_GPUMAP:-$top/build/rdma-gpumap}
die() { echo "gpu-host-check: $*" >&2; exit 1; }

if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "gpu-host-check: no NVIDIA GPU here (nvidia-smi is not on PATH): nothing to compare"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-host-check.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
if ! nvidia-smi --query-gpu=index,pci.bus_id,name --format=csv,noheader >"$work/query.csv" 2>"$work/smi.err" ||
	! grep -q . "$work/query.csv"; then
	echo "gpu-host-check: no NVIDIA GPU here (nvidia-smi lists none: $(head -n 1 "$work/smi.err")): nothing to compare"
	exit 0
fi
[ -x "$gpumap" ] || die "$gpumap is not executable (make, or set RDMA_GPUMAP)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read the JSON"

root=()
[ -z "$sysroot" ] || root=(--sysroot "$sysroot")
"$gpumap" --no-env "${root[@]}" -v -j >"$work/gpumap.json" 2>"$work/gpumap.err"
rc=$?
[ $rc -le 1 ] || die "rdma-gpumap exited $rc: $(head -n 1 "$work/gpumap.err")"
nvidia-smi topo -m >"$work/topo.txt" 2>/dev/null || : >"$work/topo.txt"
nvidia-smi -q -d MEMORY >"$work/memory.txt" 2>/dev/null || : >"$work/memory.txt"
mkdir "$work/lspci"
if command -v lspci >/dev/null 2>&1; then
	python3 -c 'import json, sys
for g in json.load(open(sys.argv[1])).get("gpus", []):
    for h in g.get("hops", []): print(h["pci"])' "$work/gpumap.json" 2>/dev/null | sort -u |
	while read -r bdf; do lspci -vvv -s "$bdf" >"$work/lspci/$bdf.txt" 2>/dev/null; done
else
	touch "$work/lspci/none"
fi
echo "gpu-host-check: rdma-gpumap${sysroot:+ --sysroot $sysroot} against nvidia-smi and lspci"
python3 "$here/gpu-host-compare.py" "$work" || die "the comparison failed"
