#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write what nvidia-smi and lspci would print on the host a copied tree stands for.

usage: tests/gpu-host/gen-fakes.py FIXTURE OUTDIR

The fakes (tests/gpu-host/bin/) answer bench/gpu-host-check.sh from OUTDIR:
query.csv (nvidia-smi --query-gpu=index,pci.bus_id,name --format=csv,noheader),
topo-m.txt (nvidia-smi topo -m), q-memory.txt (nvidia-smi -q -d MEMORY) and
lspci/BDF.txt (lspci -vvv -s BDF).  Layouts follow real outputs (README.md here
cites them); the values come from the tree's files read here, independently of
the kit: numa_node, resource line 1, the link attributes, and ACS read from the
config blob's extended capabilities.  The GPU-to-NIC cells of topo -m are
nvidia-smi's rules applied to the tree's paths: PIX through at most one bridge,
PXB through more, NODE across host bridges of one NUMA node, SYS across nodes.
"""
import os
import struct
import sys

fx, out = sys.argv[1], sys.argv[2]
sysd = os.path.join(fx, 'sys')
pcid = os.path.join(sysd, 'bus/pci/devices')


def rd(path, default=''):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def real(bdf):
    # the /sys/devices path after sys/, from the bus link's text
    t = os.readlink(os.path.join(pcid, bdf))
    return t[t.index('devices/'):]


def chain(bdf):
    parts = real(bdf).split('/')
    return parts[1], [p for p in parts[2:]]  # host bridge, functions from the root port down


fns = sorted(os.listdir(pcid))
gpus = [b for b in fns if rd(f'{pcid}/{b}/vendor') == '0x10de' and rd(f'{pcid}/{b}/class')[:6] in ('0x0300', '0x0302')]
nics = []
for dev in sorted(os.listdir(os.path.join(sysd, 'class/infiniband')), key=lambda s: (len(s), s)):
    t = os.readlink(os.path.join(sysd, 'class/infiniband', dev, 'device'))
    nics.append((dev, os.path.basename(t)))
numa = {b: int(rd(f'{pcid}/{b}/numa_node', '-1')) for b in fns}
cpus = {b: rd(f'{pcid}/{b}/local_cpulist', '') for b in fns}


def smi_bus(b):
    dom, rest = b.split(':', 1)
    return '0000' + dom.upper() + ':' + rest.upper()


def cell(a, b):
    ha, ca = chain(a)
    hb, cb = chain(b)
    if ha != hb:
        return 'NODE' if numa[a] == numa[b] and numa[a] >= 0 else 'SYS'
    k = 0
    while k < min(len(ca), len(cb)) and ca[k] == cb[k]:
        k += 1
    if k == 0:
        return 'PHB'
    bridges = (len(ca) - 1 - k) + (len(cb) - 1 - k) + 1
    return 'PIX' if bridges <= 3 else 'PXB'


os.makedirs(os.path.join(out, 'lspci'), exist_ok=True)
with open(os.path.join(out, 'query.csv'), 'w') as f:
    for i, b in enumerate(gpus):
        f.write(f'{i}, {smi_bus(b)}, NVIDIA H100 80GB HBM3\n')

cols = [f'GPU{i}' for i in range(len(gpus))] + [f'NIC{i}' for i in range(len(nics))]
with open(os.path.join(out, 'topo-m.txt'), 'w') as f:
    f.write('\t' + '\t'.join(cols) + '\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n')
    ends = gpus + [n[1] for n in nics]
    for i, a in enumerate(ends):
        row = []
        for j, b in enumerate(ends):
            if i == j:
                row.append(' X ')
            elif i < len(gpus) and j < len(gpus):
                row.append('NV18')
            else:
                row.append(cell(a, b))
        tail = f'\t{cpus[a]}\t{numa[a]}\t\tN/A' if i < len(gpus) else ''
        f.write(f'{cols[i]}\t' + '\t'.join(row) + tail + '\n')
    f.write('\nLegend:\n\n'
            '  X    = Self\n'
            '  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n'
            '  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n'
            '  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n'
            '  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n'
            '  PIX  = Connection traversing at most a single PCIe bridge\n'
            '  NV#  = Connection traversing a bonded set of # NVLinks\n\n'
            'NIC Legend:\n\n')
    for i, (dev, _) in enumerate(nics):
        f.write(f'  NIC{i}: {dev}\n')
    f.write('\n')

with open(os.path.join(out, 'q-memory.txt'), 'w') as f:
    f.write('\n==============NVSMI LOG==============\n\n'
            'Timestamp                                 : Mon Jun  3 10:12:41 2024\n'
            'Driver Version                            : 535.183.01\n'
            'CUDA Version                              : 12.2\n\n'
            f'Attached GPUs                             : {len(gpus)}\n')
    for b in gpus:
        res = rd(f'{pcid}/{b}/resource').split('\n')
        # A tree without the file stands for a GH200: no BAR1 window, and nvidia-smi
        # prints N/A for all three (hashicorp/nomad-device-nvidia#87 pastes it).
        if len(res) > 1:
            start, end = (int(x, 16) for x in res[1].split()[:2])
            mib = (end - start + 1) >> 20
            total, used, free = f'{mib} MiB', '1 MiB', f'{mib - 1} MiB'
        else:
            total = used = free = 'N/A'
        f.write(f'GPU {smi_bus(b)}\n'
                '    FB Memory Usage\n'
                '        Total                             : 81559 MiB\n'
                '        Reserved                          : 328 MiB\n'
                '        Used                              : 0 MiB\n'
                '        Free                              : 81230 MiB\n'
                '    BAR1 Memory Usage\n'
                f'        Total                             : {total}\n'
                f'        Used                              : {used}\n'
                f'        Free                              : {free}\n'
                '    Conf Compute Protected Memory Usage\n'
                '        Total                             : 0 MiB\n'
                '        Used                              : 0 MiB\n'
                '        Free                              : 0 MiB\n\n')

ACS = ['SrcValid', 'TransBlk', 'ReqRedir', 'CmpltRedir', 'UpstreamFwd', 'EgressCtrl', 'DirectTrans']


def acs_words(b):
    try:
        with open(f'{pcid}/{b}/config', 'rb') as f:
            cfg = f.read()
    except OSError:
        return None
    off, seen = 0x100, set()
    while len(cfg) >= 4096 and 0x100 <= off <= 4096 - 8 and off not in seen:
        seen.add(off)
        h = struct.unpack_from('<I', cfg, off)[0]
        if h in (0, 0xffffffff):
            break
        if h & 0xffff == 0x000d:
            return off, struct.unpack_from('<HH', cfg, off + 4)
        off = h >> 20
    return None


CLASS = {'0x0302': '3D controller', '0x0300': 'VGA compatible controller', '0x0207': 'Infiniband controller',
         '0x0200': 'Ethernet controller', '0x0604': 'PCI bridge', '0x0680': 'Bridge'}
VENDOR = {'0x10de': 'NVIDIA Corporation', '0x15b3': 'Mellanox Technologies', '0x1000': 'Broadcom / LSI',
          '0x8086': 'Intel Corporation'}
for b in fns:
    cls = rd(f'{pcid}/{b}/class')
    ven = rd(f'{pcid}/{b}/vendor')
    dev = rd(f'{pcid}/{b}/device')[2:]
    lines = [f'{b[5:]} {CLASS.get(cls[:6], "Unclassified device")}: {VENDOR.get(ven, "Device " + ven[2:])} Device {dev}',
             f'\tSubsystem: {VENDOR.get(rd(f"{pcid}/{b}/subsystem_vendor"), "Device")} Device {rd(f"{pcid}/{b}/subsystem_device")[2:]}',
             '\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+']
    ms, mw = rd(f'{pcid}/{b}/max_link_speed'), rd(f'{pcid}/{b}/max_link_width')
    cs, cw = rd(f'{pcid}/{b}/current_link_speed'), rd(f'{pcid}/{b}/current_link_width')
    if ms and mw:
        gt = lambda s: s.split(' GT/s')[0].replace('.0', '')
        port = 'Root Port (Slot+)' if cls[:6] == '0x0604' and not chain(b)[1][:-1] else \
               'Downstream Port (Slot-)' if cls[:6] == '0x0604' else 'Endpoint'
        down = ' (downgraded)' if (cs != ms or cw != mw) else ' (ok)'
        lines += [f'\tCapabilities: [40] Express (v2) {port}, MSI 00',
                  f'\t\tLnkCap:\tPort #0, Speed {gt(ms)}GT/s, Width x{mw}, ASPM not supported',
                  '\t\t\tClockPM- Surprise- LLActRep- BwNot- ASPMOptComp+',
                  f'\t\tLnkSta:\tSpeed {gt(cs)}GT/s{down.replace("(ok)", "(ok)")}, Width x{cw}{down}',
                  '\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-']
    acs = acs_words(b)
    if acs:
        off, (cap, ctl) = acs
        bits = lambda v: ' '.join(f'{n}{"+" if v >> i & 1 else "-"}' for i, n in enumerate(ACS))
        lines += [f'\tCapabilities: [{off:x} v1] Access Control Services',
                  f'\t\tACSCap:\t{bits(cap)}', f'\t\tACSCtl:\t{bits(ctl)}']
    lines.append(f'\tKernel driver in use: {os.path.basename(os.readlink(os.path.join(pcid, b, "driver"))) if os.path.islink(os.path.join(pcid, b, "driver")) else "pcieport"}')
    with open(os.path.join(out, 'lspci', b + '.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n\n')
