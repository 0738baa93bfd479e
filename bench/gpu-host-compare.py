#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpu-host-check.sh's comparison: reads the outputs it gathered in WORK and prints
one line per fact, then a count.  usage: bench/gpu-host-compare.py WORK

WORK holds gpumap.json (rdma-gpumap -v -j), query.csv (nvidia-smi --query-gpu=index,pci.bus_id,name
--format=csv,noheader), topo.txt (nvidia-smi topo -m), memory.txt (nvidia-smi -q
-d MEMORY) and lspci/BDF.txt (lspci -vvv -s BDF; lspci/none when lspci is missing).
"""
import json
import os
import re
import sys

work = sys.argv[1]
counts = {'agree': 0, 'disagree': 0, 'not compared': 0}


def say(fact, verdict, detail):
    counts[verdict] += 1
    print(f'{fact:<30} {verdict} ({detail})' if detail else f'{fact:<30} {verdict}')


def agree(fact, ours, theirs, who, show=None):
    if ours == theirs:
        say(fact, 'agree', show if show is not None else str(ours))
    else:
        say(fact, 'disagree', f'ours {ours}, {who} {theirs}')


def load(name, default):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f) if name.endswith('.json') else f.read()
    except (OSError, ValueError):
        return default


def bus(s):
    """nvidia-smi's 00000000:1B:00.0 as sysfs writes it: 0000:1b:00.0."""
    dom, rest = s.strip().lower().split(':', 1)
    return f'{int(dom, 16):04x}:{rest}'


ours = load('gpumap.json', {})
gpus = ours.get('gpus', [])
acs_readable = ours.get('summary', {}).get('acs_readable', False)
smi = []
for line in load('query.csv', '').splitlines():
    f = [x.strip() for x in line.split(',')]
    if len(f) >= 2 and re.match(r'^[0-9a-fA-F]+:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$', f[1]):
        smi.append((int(f[0]), bus(f[1])))
smi.sort()

# The GPUs: the same set of functions.  nvidia-smi numbers them in bus order, as we do.
our_set = sorted(g['bus'] for g in gpus)
their_set = sorted(b for _, b in smi)
agree('gpus', ' '.join(our_set) or 'none', ' '.join(their_set) or 'none', 'nvidia-smi',
      f'{len(our_set)}: ' + ' '.join(our_set))
index = {b: i for i, b in smi}

# nvidia-smi topo -m: a row per GPU (cells, then CPU Affinity, NUMA Affinity, GPU NUMA ID),
# and the NIC legend ("  NIC0: mlx5_0").
topo = load('topo.txt', '')
lines = topo.splitlines()
head = lines[0].split() if lines else []
ncols = sum(1 for c in head if re.match(r'^(GPU|NIC)[0-9]+$', c))
rows, legend = {}, {}
for line in lines[1:]:
    f = line.split()
    if f and re.match(r'^GPU[0-9]+$', f[0]) and len(f) >= ncols + 1:
        cells = f[1:ncols + 1]
        rest = f[ncols + 1:]
        rows[f[0]] = (dict(zip(head[:ncols], cells)), rest)
    m = re.match(r'^\s+(NIC[0-9]+):\s+(\S+)\s*$', line)
    if m:
        legend[m.group(2)] = m.group(1)

# BAR1 per GPU: ours from rdma-gpumap -j (bar1_mib; absent on a C2C GPU, which has
# none), theirs from -q -d MEMORY ("Total : 131072 MiB", or "N/A" on a GH200).
our_bar1 = {g['bus']: g['bar1_mib'] for g in gpus if 'bar1_mib' in g}
our_c2c = {g['bus'] for g in gpus if 'c2c' in g}
their_bar1, cur, in_bar1 = {}, None, False
for line in load('memory.txt', '').splitlines():
    m = re.match(r'^GPU ([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$', line)
    if m:
        cur, in_bar1 = bus(m.group(1)), False
    elif re.match(r'^\s+BAR1 Memory Usage', line):
        in_bar1 = True
    elif re.match(r'^\s{4}\S', line):
        in_bar1 = False
    elif in_bar1 and cur:
        t = re.match(r'^\s+Total\s*:\s*(?:([0-9]+) MiB|(N/A))', line)
        if t:
            their_bar1[cur] = int(t.group(1)) if t.group(1) else None

for g in gpus:
    b = g['bus']
    name = f'GPU{index[b]}' if b in index else None
    tag = f'{g["gpu"]} {b}'
    row = rows.get(name) if name else None
    # NUMA node.
    if row is None:
        say(f'{tag} numa', 'not compared', 'no row for it in nvidia-smi topo -m')
    else:
        cells, rest = row
        numa = rest[1] if len(rest) >= 2 else 'N/A'
        if 'numa' not in g and numa == 'N/A':
            say(f'{tag} numa', 'agree', 'none')
        else:
            agree(f'{tag} numa', str(g.get('numa', 'none')), numa, 'nvidia-smi topo -m')
        say(f'{tag} cpu_affinity', 'not compared',
            f'rdma-gpumap does not report CPU affinity; nvidia-smi: {rest[0] if rest else "?"}')
    # The path to its NIC, in nvidia-smi's words.
    dev = g.get('dev')
    if not dev:
        say(f'{tag} nic_path', 'not compared', 'rdma-gpumap chose no NIC for it')
    elif row is None or dev not in legend:
        say(f'{tag} nic_path', 'not compared', f'{dev} is not in nvidia-smi topo -m\'s NIC legend')
    else:
        agree(f'{tag} nic_path', f'{dev} {g.get("path_smi", "?")}', f'{dev} {row[0].get(legend[dev], "?")}',
              'nvidia-smi topo -m')
    # BAR1.
    if b not in their_bar1:
        say(f'{tag} bar1', 'not compared', 'no BAR1 Total for it in nvidia-smi -q -d MEMORY')
    elif their_bar1[b] is None or b in our_c2c:
        # A C2C GPU has no BAR1 window: nvidia-smi says N/A.  Either side alone
        # saying so is a disagreement.
        ours = 'none (C2C)' if b in our_c2c else f'{our_bar1.get(b, "?")} MiB'
        theirs = 'none (C2C)' if their_bar1[b] is None else f'{their_bar1[b]} MiB'
        agree(f'{tag} bar1', ours, theirs, 'nvidia-smi -q')
    elif b not in our_bar1:
        say(f'{tag} bar1', 'not compared', 'rdma-gpumap gave no BAR1 size (no resource file)')
    else:
        agree(f'{tag} bar1', f'{our_bar1[b]} MiB', f'{their_bar1[b]} MiB', 'nvidia-smi -q')

# Each hop once (a switch two GPUs share is one fact): link and ACS against lspci -vvv.
ACS = ['SV', 'TB', 'RR', 'CR', 'UF', 'EC', 'DT']
LSPCI = ['SrcValid', 'TransBlk', 'ReqRedir', 'CmpltRedir', 'UpstreamFwd', 'EgressCtrl', 'DirectTrans']
no_lspci = os.path.exists(os.path.join(work, 'lspci', 'none'))
seen = set()
for g in gpus:
    for h in g.get('hops', []):
        p = h['pci']
        if p in seen:
            continue
        seen.add(p)
        text = load(os.path.join('lspci', p + '.txt'), '')
        if no_lspci or not text.strip():
            why = 'lspci is not on PATH' if no_lspci else 'lspci does not show it'
            say(f'{p} link', 'not compared', why)
            say(f'{p} acs', 'not compared', why)
            continue
        cap = re.search(r'LnkCap:.*?Speed ([0-9.]+)GT/s, Width x([0-9]+)', text)
        sta = re.search(r'LnkSta:\s*Speed ([0-9.]+)GT/s[^,]*, Width x([0-9]+)', text)
        if 'width' not in h:
            say(f'{p} link', 'not compared', 'rdma-gpumap read no link attributes for it')
        elif not cap or not sta:
            say(f'{p} link', 'not compared', 'lspci shows no LnkCap/LnkSta (no PCIe capability, or not root)')
        else:
            num = lambda v: f'{float(v):g}'
            agree(f'{p} link', f'x{h["width"]} {num(h["speed_gts"])} GT/s of x{h["max_width"]} {num(h["max_speed_gts"])} GT/s',
                  f'x{sta.group(2)} {num(sta.group(1))} GT/s of x{cap.group(2)} {num(cap.group(1))} GT/s', 'lspci')
        ctl = re.search(r'ACSCtl:\s*(.*)', text)
        if '<access denied>' in text:
            say(f'{p} acs', 'not compared', 'lspci could not read the capabilities (run as root)')
        elif 'acs' not in h and not acs_readable:
            say(f'{p} acs', 'not compared', 'rdma-gpumap could not read the config space (run as root)')
        else:
            theirs = '-'
            if ctl:
                on = [ACS[i] for i, n in enumerate(LSPCI) if re.search(rf'\b{n}\+', ctl.group(1))]
                theirs = ' '.join(on) or '-'
            agree(f'{p} acs', h.get('acs', 'no ACS'), theirs if ctl else 'no ACS', 'lspci')

print(f'{counts["agree"]} agree, {counts["disagree"]} disagree, {counts["not compared"]} not compared')
