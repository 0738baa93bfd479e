#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
A differential test of rdma-gpumap --topo-xml: NCCL's path typing written a
second time, in Python, from NCCL's own source (src/graph/topo.cc
ncclTopoAddCpu/ncclTopoAddPci/ncclTopoAddNic/ncclTopoAddNet,
ncclTopoFlattenBcmSwitches, ncclTopoConnectCpus; src/graph/paths.cc
ncclTopoSetPaths, ncclTopoComputePaths, ncclTopoCheckGdr; topo.cc
ncclTopoGetLocal and ncclTopoGetLocalNetType), sharing no code with the kit.

From an NCCL topology XML (nested <cpu>/<pci>/<nic>/<net> as NCCL writes
them) and the sysroot's RDMA devices, it computes for every GPU the path type
and bandwidth to every NIC port, NCCL's GDR decision and the NIC NCCL picks
(NCCL 2.27 and later, default settings), and compares them with

  rdma-gpumap --no-env --sysroot S --topo-xml X -m -j   (the path to every NIC port)
  rdma-gpumap --no-env --sysroot S --topo-xml X -j      (the chosen NIC: path, path used, bw, GDR)

printing each compared pair; any difference fails (exit 1).

Where a topology file and the machine meet, this does what NCCL does when
it fuses them (xml.cc ncclTopoFillGpu/ncclTopoFillNet): a <pci> of a GPU class
is a GPU whether or not the file holds its <gpu> element, and an RDMA device of
the sysroot whose bus id (or that id with function 0) is a <pci> of the file
gives that function a <nic> with its active ports.  What the file cannot say
the model leaves out: NVLink, C2C (the XMLs here have neither).

usage: gpumap-xml-diff.py RDMA-GPUMAP SYSROOT TOPO-XML
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

# NCCL's path types (topo.h), and the link types numbered alike.
NAMES = ["LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"]
LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET, DIS = range(12)
LINK_LOC, LINK_PCI, LINK_SYS, LINK_NET = 0, 4, 9, 10
LOC_BW = 5000.0

# kvDictPciClass: prefixes, first match wins, default PCI.
PCI_CLASS = [("0x060400", "PCI"), ("0x080100", "PCI"), ("0x068000", "NVS"), ("0x068001", "CPU"),
             ("0x03", "GPU"), ("0x02", "NIC")]
# kvDictPciGen: per-lane figure in 100 Mb/s, prefixes, default 60.
PCI_GEN = [("2.5 GT/s", 15), ("5 GT/s", 30), ("8 GT/s", 60), ("16 GT/s", 120), ("32 GT/s", 240),
           ("2.5 GT/s PCIe", 15), ("5.0 GT/s PCIe", 30), ("8.0 GT/s PCIe", 60),
           ("16.0 GT/s PCIe", 120), ("32.0 GT/s PCIe", 240), ("64.0 GT/s PCIe", 480)]


def kv(s, table, default):
    for prefix, val in table:
        if s.startswith(prefix):
            return val
    return default


def strtol0(s):
    """C's strtol(s, NULL, 0) for the forms NCCL's files use."""
    s = (s or "").strip()
    try:
        return int(s, 0)
    except ValueError:
        return 0


class Node:
    def __init__(self, kind, ident):
        self.kind, self.id = kind, ident
        self.links = []         # [type, bw, node], bw descending as ncclTopoConnectNodes keeps them
        self.device = 0         # PCI switch: vendor:device:subvendor:subdevice
        self.cpu = None         # CPU: its <cpu> element's attributes
        self.gpu = None         # GPU: its attributes
        self.net = None         # NET: its attributes
        self.down = []          # NIC: its ports that are not active, "dev:port"


class Graph:
    def __init__(self):
        self.nodes = []

    def add(self, kind, ident):
        n = Node(kind, ident)
        self.nodes.append(n)
        return n

    @staticmethod
    def connect1(a, b, ltype, bw):
        """ncclTopoConnectNodes: one direction; an existing link of that type adds up."""
        for link in a.links:
            if link[2] is b and link[0] == ltype:
                link[1] += bw
                break
        else:
            a.links.append([ltype, bw, b])
        a.links.sort(key=lambda l: -l[1])  # stable: equal bandwidths keep their order

    def connect(self, a, b, ltype, bw):
        self.connect1(a, b, ltype, bw)
        self.connect1(b, a, ltype, bw)


def sysroot_nets(root):
    """The sysroot's RDMA ports as NCCL's IB plugin finds them: (dev, port, bdf, active, Mb/s)."""
    out = []
    base = os.path.join(root, "sys/class/infiniband")
    if not os.path.isdir(base):
        return out
    for dev in sorted(os.listdir(base)):
        d = os.path.join(base, dev)
        bdf = os.path.basename(os.readlink(os.path.join(d, "device"))) \
            if os.path.islink(os.path.join(d, "device")) else ""
        pdir = os.path.join(d, "ports")
        for p in sorted(os.listdir(pdir), key=int) if os.path.isdir(pdir) else []:
            def rd(name):
                try:
                    with open(os.path.join(pdir, p, name)) as f:
                        return f.read().strip()
                except OSError:
                    return ""
            active = rd("state").startswith("4:") and rd("link_layer") in ("InfiniBand", "Ethernet")
            try:
                mbps = int(float(rd("rate").split()[0]) * 1000)
            except (ValueError, IndexError):
                mbps = 0
            out.append({"name": dev, "port": int(p), "bdf": bdf, "active": active, "speed": mbps})
    return out


def build(xml_path, snets):
    g = Graph()
    root = ET.parse(xml_path).getroot()
    if root.tag != "system":
        raise SystemExit("%s: not an NCCL topology" % xml_path)
    nics = {}           # (numa, busid) -> NIC node (NCCL_TOPO_LOCAL_NIC_ID)
    nets = []           # NET nodes in NCCL's order
    placed = set()

    def fn0(bdf):
        return bdf[:-1] + "0" if len(bdf) == 12 else bdf

    def add_net(nic, attrs):
        if int(attrs.get("net", "1")) == 0:
            return
        mbps = strtol0(attrs.get("speed", "0"))
        if mbps <= 0:
            mbps = 10000            # "Some NICs define speed = -1"
        n = g.add("NET", attrs["name"])
        n.net = dict(attrs, bw=mbps / 8000.0)
        g.connect1(nic, n, LINK_NET, n.net["bw"])
        g.connect1(n, nic, LINK_NET, n.net["bw"])
        nets.append(n)

    def add_nic(xnic, nic, busid):
        for xnet in xnic.findall("net"):
            if "dev" not in xnet.attrib or "name" not in xnet.attrib:
                continue
            key = (xnet.get("name"), int(xnet.get("port", "1")))
            if key in placed:
                continue
            placed.add(key)
            add_net(nic, xnet.attrib)
        # The machine's own ports on this function (ncclTopoFillNet).
        # A port that is down has no NET node, but its NIC is where it is.
        for s in snets:
            if busid and (s["bdf"] == busid or fn0(s["bdf"]) == busid) and \
                    (s["name"], s["port"]) not in placed:
                placed.add((s["name"], s["port"]))
                if s["active"]:
                    add_net(nic, {"name": s["name"], "port": str(s["port"]), "speed": str(s["speed"])})
                else:
                    nic.down.append("%s:%d" % (s["name"], s["port"]))

    def add_pci(x, parent, numa):
        kind = kv(x.get("class", ""), PCI_CLASS, "PCI")
        busid = x.get("busid", "")
        width = strtol0(x.get("link_width", "0")) or 16
        bw = width * kv(x.get("link_speed", ""), PCI_GEN, 60) / 80.0
        node = None
        xgpu = x.find("gpu")
        if xgpu is not None or kind == "GPU":
            node = g.add("GPU", busid)
            node.gpu = dict(xgpu.attrib) if xgpu is not None else {}
            g.connect(node, parent, LINK_PCI, bw)
            return
        xnic = x.find("nic")
        if xnic is None and kind == "NIC" and any(s["bdf"] == busid or fn0(s["bdf"]) == busid
                                                  for s in snets):
            xnic = ET.Element("nic")
        if xnic is not None:
            key = (numa, busid)
            if key not in nics:
                nics[key] = node = g.add("NIC", busid)
            add_nic(xnic, nics[key], busid)
        elif kind == "PCI":
            node = g.add("PCI", busid)
            node.device = (strtol0(x.get("vendor")) << 48) + (strtol0(x.get("device")) << 32) + \
                (strtol0(x.get("subsystem_vendor")) << 16) + strtol0(x.get("subsystem_device"))
            for sub in x:
                if sub.tag == "pci":
                    add_pci(sub, node, numa)
        if node is not None:
            g.connect(node, parent, LINK_PCI, bw)

    for xcpu in root.findall("cpu"):
        numa = int(xcpu.get("numaid"))
        cpu = g.add("CPU", "numa%d" % numa)
        cpu.cpu = dict(xcpu.attrib)
        for sub in xcpu:
            if sub.tag == "pci":
                add_pci(sub, cpu, numa)
            elif sub.tag == "nic":
                key = (numa, None)
                if key not in nics:
                    nics[key] = g.add("NIC", "cpu-nic")
                    g.connect(cpu, nics[key], LINK_PCI, LOC_BW)
                add_nic(sub, nics[key], None)
    flatten_bcm(g)
    connect_cpus(g)
    return g, nets


def bcm_gen(dev, level):
    if dev & 0xfffffffffffff000 == 0x1000c0101000a000:
        return 4
    if dev & 0xfffffffffffff000 == 0x1000c03010000000 | level * 0x1000:
        return 5
    return 0


def flatten_bcm(g):
    """ncclTopoFlattenBcmSwitches: a sub-switch's links move up to its switch; it goes."""
    done = False
    while not done:
        done = True
        for sw in [n for n in g.nodes if n.kind == "PCI"]:
            gen = bcm_gen(sw.device, 0)
            if not gen:
                continue
            subs = [l[2] for l in sw.links if l[2].kind == "PCI" and bcm_gen(l[2].device, 1) == gen]
            sw.links = [l for l in sw.links if l[2] not in subs]
            for sub in subs:
                for l in sub.links:
                    rem = l[2]
                    if rem is sw:
                        continue
                    sw.links.append(list(l))
                    for rl in rem.links:
                        if rl[2] is sub:
                            rl[2] = sw
                            break
                g.nodes.remove(sub)
            sw.device |= 0xffff
            done = False
            break


def inter_cpu_bw(cpu):
    arch, vendor = cpu.get("arch"), cpu.get("vendor")
    if arch == "ppc64":
        return 32.0
    if arch == "arm64":
        return 6.0
    if arch == "x86_64" and vendor == "GenuineIntel":
        fam, model = strtol0(cpu.get("familyid")), strtol0(cpu.get("modelid"))
        return 40.0 if fam == 6 and model >= 0xCF else 22.0 if fam == 6 and model >= 0x8F else \
            10.0 if fam == 6 and model >= 0x55 else 6.0
    if arch == "x86_64" and vendor == "AuthenticAMD":
        return 16.0
    if arch == "x86_64" and vendor in ("CentaurHauls", "  Shanghai  "):
        return 6.0
    return LOC_BW


def connect_cpus(g):
    cpus = [n for n in g.nodes if n.kind == "CPU"]
    for a in cpus:
        for b in cpus:
            if a is not b:
                g.connect1(a, b, LINK_SYS, inter_cpu_bw(a.cpu))


def set_paths(g, base):
    """ncclTopoSetPaths: a breadth-first search typing every node's path to base."""
    paths = {id(n): [DIS, 0.0, 0] for n in g.nodes}     # type, bw, hops
    paths[id(base)] = [LOC, LOC_BW, 0]
    cur = [base]
    while cur:
        nxt = []
        for node in cur:
            path = paths[id(node)]
            # A GPU is an end: its only link is to its DEV node, which no path crosses.
            if node.kind == "GPU" and node is not base:
                continue
            for ltype, lbw, rem in node.links:
                rp = paths[id(rem)]
                bw = min(path[1], lbw)
                t = LOC if ltype == LINK_NET else ltype
                if node.kind == "PCI" and rem.kind == "PCI":
                    t = PXB
                if ltype == LINK_PCI and (node.kind == "CPU" or rem.kind == "CPU"):
                    t = PHB
                t = max(path[0], t)
                if t < rp[0] or (t == rp[0] and rp[1] < bw) or \
                        (t == rp[0] and rp[1] == bw and rp[2] > path[2] + 1):
                    rp[:] = [t, bw, path[2] + 1]
                    if rem not in nxt:
                        nxt.append(rem)
        cur = nxt
    return paths


def local_cpu(node, frm=None):
    """findLocalCpu: up the PCI links through switches to a CPU."""
    if node.kind == "CPU":
        return node
    for ltype, _, rem in node.links:
        if ltype == LINK_PCI and rem is not frm and rem.kind in ("PCI", "CPU"):
            c = local_cpu(rem, node)
            if c is not None:
                return c
    return None


def merge(a, b):
    mx, mn = max(a, b), min(a, b)
    return P2C if mx == PHB and mn == C2C else mx


def get_local(row):
    """ncclTopoGetLocal: the best bandwidth, then the best type; their indexes."""
    maxbw, mintype, out = 0.0, DIS, []
    for i, (t, bw) in enumerate(row):
        if bw > maxbw or (bw == maxbw and t < mintype):
            maxbw, mintype, out = bw, t, []
        if bw == maxbw and t == mintype:
            out.append(i)
    return out


def mirror_bits(val, pow2):
    m, b, mb = 0, 1, pow2 >> 1
    while b < pow2:
        if val & b:
            m |= mb
        b, mb = b << 1, mb >> 1
    return m


def nccl_view(sysroot, xml_path):
    snets = sysroot_nets(sysroot)
    g, nets = build(xml_path, snets)
    gpus = sorted([n for n in g.nodes if n.kind == "GPU"], key=lambda n: n.id)
    nics = [n for n in g.nodes if n.kind == "NIC"]
    cpus = [n for n in g.nodes if n.kind == "CPU"]
    to = {id(b): set_paths(g, b) for b in nets + nics + cpus}
    # A GDR backend: nvidia_peermem (NCCL >= 2.23) or MLNX_OFED's nv_mem.
    backend = any(os.path.exists(os.path.join(sysroot, p)) for p in (
        "sys/module/nvidia_peermem/version", "sys/kernel/mm/memory_peers/nv_mem/version",
        "sys/kernel/mm/memory_peers/nv_mem_nc/version"))
    level = P2C     # NCCL_NET_GDR_C2C=1 by default from 2.27: netGdrLevel = PATH_P2C
    view = {}
    rows = []
    for gi, gpu in enumerate(gpus):
        cpu = local_cpu(gpu)
        row = []
        for n in nets:
            t, bw, _ = to[id(n)][id(gpu)]
            row.append([t, bw])
        topo = [r[0] for r in row]
        # The C2C rule on the GPU's best nets (ncclTopoComputePaths).
        if cpu is not None:
            for i in get_local([tuple(r) for r in row]):
                if merge(to[id(cpu)][id(gpu)][0], to[id(cpu)][id(nets[i])][0]) == P2C:
                    row[i][0] = topo[i] = min(P2C, row[i][0])
        gdr = []
        for i, n in enumerate(nets):
            ok = backend and row[i][0] <= level and n.net.get("gdr", "1") != "0" and \
                gpu.gpu.get("gdr", "1") != "0"
            gdr.append(ok)
            if row[i][0] < PHB and not ok and cpu is not None:
                a, b = to[id(cpu)][id(gpu)], to[id(cpu)][id(n)]
                row[i] = [merge(a[0], b[0]), min(a[1], b[1])]
        rows.append((gpu, row, topo, gdr))
        view[gpu.id] = {"nics": {}}
        for nic in nics:
            for ltype, _, rem in nic.links:
                if ltype == LINK_NET:
                    view[gpu.id]["nics"]["%s:%s" % (rem.id, rem.net.get("port", "1"))] = \
                        NAMES[to[id(nic)][id(gpu)][0]]
            for key in nic.down:
                view[gpu.id]["nics"][key] = NAMES[to[id(nic)][id(gpu)][0]]
    for gi, (gpu, row, topo, gdr) in enumerate(rows):
        local = get_local([tuple(r) for r in row])
        if not local or row[local[0]][0] == DIS:
            view[gpu.id]["chosen"] = None
            continue
        col = [tuple(rows[h][1][local[0]]) for h in range(len(rows))]
        ngl = len(get_local(col))
        pick = gi % ngl
        if len(local) & (len(local) - 1) == 0:
            pick = mirror_bits(pick, len(local))
        i = local[pick % len(local)]
        n = nets[i]
        view[gpu.id]["chosen"] = {
            "dev": n.id, "port": int(n.net.get("port", "1")), "path": NAMES[topo[i]],
            "path_used": NAMES[row[i][0]], "bw": row[i][1], "gdr": gdr[i]}
    return gpus, view


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    tool, sysroot, xml_path = sys.argv[1:]
    gpus, want = nccl_view(sysroot, xml_path)
    base = [tool, "--no-env", "--sysroot", sysroot, "--topo-xml", xml_path]
    matrix = run(base + ["-m", "-j"])
    rows = run(base + ["-j"])
    names = {}
    bad = 0
    compared = 0

    def say(ok, what, got, exp):
        nonlocal bad, compared
        compared += 1
        if not ok:
            bad += 1
        print("%-4s %-40s rdma-gpumap %-14s nccl %s" % ("ok" if ok else "DIFF", what, got, exp))

    tool_gpus = {r["bus"]: r for r in rows["gpus"]}
    say(sorted(tool_gpus) == [g.id for g in gpus], "GPUs", " ".join(sorted(tool_gpus)) or "-",
        " ".join(g.id for g in gpus) or "-")
    for r in rows["gpus"]:
        names[r["gpu"]] = r["bus"]
    for m in matrix["matrix"]:
        bus = names.get(m["gpu"])
        if bus not in want:
            say(False, "%s matrix" % m["gpu"], bus, "no such GPU")
            continue
        got = {"%s:%d" % (p["dev"], p["port"]): p["path"] for p in m["paths"] if "dev" in p}
        exp = want[bus]["nics"]
        for key in sorted(set(got) | set(exp)):
            say(got.get(key) == exp.get(key), "%s %s -> %s path" % (m["gpu"], bus, key),
                got.get(key, "-"), exp.get(key, "-"))
    for r in rows["gpus"]:
        if r["bus"] not in want:
            continue
        exp = want[r["bus"]]["chosen"]
        who = "%s %s" % (r["gpu"], r["bus"])
        got_nic = "%s:%d" % (r["dev"], r["port"]) if "dev" in r else "-"
        exp_nic = "%s:%d" % (exp["dev"], exp["port"]) if exp else "-"
        say(got_nic == exp_nic, who + " NIC", got_nic, exp_nic)
        if not exp or got_nic != exp_nic:
            continue
        say(r["path"] == exp["path"], who + " path", r["path"], exp["path"])
        used = r.get("path_used", r["path"])
        say(used == exp["path_used"], who + " path used", used, exp["path_used"])
        say(abs(r["bw_gbytes"] - exp["bw"]) < 0.05, who + " bw GB/s", "%.1f" % r["bw_gbytes"],
            "%.1f" % exp["bw"])
        say(r["gdr"] == exp["gdr"], who + " GDR", str(r["gdr"]).lower(), str(exp["gdr"]).lower())
    print("%d compared, %d differ" % (compared, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
