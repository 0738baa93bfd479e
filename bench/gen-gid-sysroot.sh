#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-gid-sysroot.sh DIR [NDEV=32] [NPORT=2] [NSLOT=256]
#
# Writes a large, synthetic but kernel-shaped sysroot for benchmarking GID listings:
#   DIR/sys/class/infiniband/mlx5_N -> ../../devices/pci0000:00/.../infiniband/mlx5_N
# NDEV mlx5 RoCE devices (two PCI functions per card), NPORT Ethernet ports each, NSLOT
# GID slots per port of which half are used: v1 at even and v2 at odd indexes, in pairs
# (link-local fe80 of the port MAC, ::ffff:IPv4, a few 2001:db8 globals), on the port's
# netdev ensCfFnpP and on two VLAN netdevs ensCfFnpP.100 / .200.  Unused slots read as
# the zero GID and have no gid_attrs/{types,ndevs} file (the kernel fails them, EINVAL).
# Also: /sys/class/net/* for every netdev, /sys/class/infiniband_verbs/uverbsN,
# /sys/bus/pci/drivers/mlx5_core, /proc/net/vlan/config and /proc/net/vlan/<vlan>.
#
# Formats follow tests/fixtures/mlx5-roce-dual (see its README for the kernel sources).
# The generator is python3 (one process creates ~35k files in about a second; a
# shell loop would fork per file).  DIR must not already hold sys/ or proc/.
set -eu

usage() {
	echo "usage: $0 DIR [NDEV=32] [NPORT=2] [NSLOT=256]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 4 ]; then usage; fi
case "$1" in -h|--help) usage ;; esac
for n in "${2:-32}" "${3:-2}" "${4:-256}"; do
	case "$n" in ''|*[!0-9]*) usage ;; esac
done

exec python3 - "$1" "${2:-32}" "${3:-2}" "${4:-256}" <<'PYEOF'
import os
import sys

root, ndev, nport, nslot = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if not (1 <= ndev <= 256 and 1 <= nport <= 8 and 2 <= nslot <= 4096):
    sys.exit("gen-gid-sysroot: NDEV 1-256, NPORT 1-8, NSLOT 2-4096")
for sub in ("sys", "proc"):
    if os.path.lexists(os.path.join(root, sub)):
        sys.exit("gen-gid-sysroot: %s/%s exists; use an empty directory" % (root, sub))

SYS = os.path.join(root, "sys")
ZERO = "0000:0000:0000:0000:0000:0000:0000:0000"
VLANS = (100, 200)
nfiles = 0


def write(path, text):
    global nfiles
    with open(path, "w") as f:
        f.write(text + "\n")
    nfiles += 1


def mkdir(path):
    os.makedirs(path, exist_ok=True)
    return path


def link(target, path):
    os.symlink(target, path)


def files(d, attrs):
    for k, v in attrs.items():
        write(os.path.join(d, k), v)


def gid_str(b):
    return ":".join("%02x%02x" % (b[i], b[i + 1]) for i in range(0, 16, 2))


def mac_of(dev, port):
    # 0c:42:a1 (Mellanox OUI), then one NIC id per device and port.
    return [0x0C, 0x42, 0xA1, 0x65, (0x80 + dev) & 0xFF, (0x1E + 2 * (port - 1) + (dev >> 8)) & 0xFF]


def guid_of(mac):
    # mlx5: OUI, 03:00, NIC bytes.
    b = mac[:3] + [0x03, 0x00] + mac[3:]
    return "%02x%02x:%02x%02x:%02x%02x:%02x%02x" % tuple(b)


def link_local(mac):
    eui = [mac[0] ^ 0x02, mac[1], mac[2], 0xFF, 0xFE, mac[3], mac[4], mac[5]]
    return [0xFE, 0x80] + [0] * 6 + eui


def v4mapped(a, b, c, d):
    return [0] * 10 + [0xFF, 0xFF, a, b, c, d]


def v6global(dev, port, k):
    return [0x20, 0x01, 0x0D, 0xB8, 0, dev & 0xFF, 0, port, 0, 0, 0, 0, 0, 0, (k >> 8) & 0xFF, k & 0xFF]


ifindex = [1]


def next_ifindex():
    ifindex[0] += 1
    return ifindex[0]


def netdev_attrs(mac, idx, iflink, dev_port, mtu, txq):
    return {
        "addr_len": "6", "address": ":".join("%02x" % x for x in mac),
        "broadcast": "ff:ff:ff:ff:ff:ff", "carrier": "1", "dev_id": "0x0",
        "dev_port": str(dev_port), "duplex": "full", "flags": "0x1003",
        "ifindex": str(idx), "iflink": str(iflink), "mtu": str(mtu), "operstate": "up",
        "speed": "100000", "tx_queue_len": str(txq), "type": "1",
    }


classes = {c: mkdir(os.path.join(SYS, "class", c))
           for c in ("infiniband", "net", "infiniband_verbs")}
drv = mkdir(os.path.join(SYS, "bus/pci/drivers/mlx5_core"))
write(os.path.join(classes["infiniband_verbs"], "abi_version"), "6")
virt = mkdir(os.path.join(SYS, "devices/virtual/net"))
lo = mkdir(os.path.join(virt, "lo"))
files(lo, {"address": "00:00:00:00:00:00", "carrier": "1", "flags": "0x9", "ifindex": "1",
           "mtu": "65536", "operstate": "unknown", "type": "772", "addr_len": "6"})
link("../../devices/virtual/net/lo", os.path.join(classes["net"], "lo"))

vlan_lines = []
host = "bench-h01"
for dev in range(ndev):
    card, fn = dev // 2, dev % 2
    bus = 0x03 + card
    bridge = "pci0000:00/0000:00:%02x.0" % (0x02 + card % 0x1E)
    pci = "0000:%02x:00.%d" % (bus & 0xFF, fn)
    pcirel = "devices/%s/%s" % (bridge, pci)
    pcidir = mkdir(os.path.join(SYS, pcirel))
    depth = pcirel.count("/") + 1          # from pcidir back to sys/
    up = "../" * depth
    files(pcidir, {"vendor": "0x15b3", "device": "0x101d", "class": "0x020000",
                   "subsystem_vendor": "0x15b3", "subsystem_device": "0x0016",
                   "revision": "0x00", "numa_node": str(card % 2),
                   "sriov_numvfs": "0", "sriov_totalvfs": "8"})
    link(up + "bus/pci/drivers/mlx5_core", os.path.join(pcidir, "driver"))
    link("../../../../" + pcirel, os.path.join(drv, pci))

    name = "mlx5_%d" % dev
    ibdir = mkdir(os.path.join(pcidir, "infiniband", name))
    link("../../../" + pci, os.path.join(ibdir, "device"))
    link("../../" + pcirel + "/infiniband/" + name, os.path.join(classes["infiniband"], name))
    first_mac = mac_of(dev - fn, 1)        # sys_image_guid: the card's first function
    files(ibdir, {"node_type": "1: CA", "node_guid": guid_of(mac_of(dev, 1)),
                  "sys_image_guid": guid_of(first_mac), "fw_ver": "22.36.1010",
                  "hca_type": "MT4125", "board_id": "MT_0000000359", "hw_rev": "0",
                  "node_desc": "%s %s" % (host, name), "fw_pages": "92431", "reg_pages": "0"})

    uv = "uverbs%d" % dev
    uvdir = mkdir(os.path.join(pcidir, "infiniband_verbs", uv))
    files(uvdir, {"ibdev": name, "abi_version": "1", "dev": "231:%d" % (192 + dev)})
    link("../../../" + pci, os.path.join(uvdir, "device"))
    link("../../" + pcirel + "/infiniband_verbs/" + uv, os.path.join(classes["infiniband_verbs"], uv))

    for port in range(1, nport + 1):
        mac = mac_of(dev, port)
        base = "ens%df%dnp%d" % (card + 1, fn, port - 1)
        ndir = mkdir(os.path.join(pcidir, "net", base))
        base_idx = next_ifindex()
        files(ndir, netdev_attrs(mac, base_idx, base_idx, port - 1, 9000, 1000))
        write(os.path.join(ndir, "phys_port_name"), "p%d" % (port - 1))
        link("../../../" + pci, os.path.join(ndir, "device"))
        link("../../" + pcirel + "/net/" + base, os.path.join(classes["net"], base))
        netdevs = [base]
        for vid in VLANS:
            vname = "%s.%d" % (base, vid)
            vdir = mkdir(os.path.join(virt, vname))
            files(vdir, netdev_attrs(mac, next_ifindex(), base_idx, 0, 9000, 0))
            link("../../../" + pcirel[len("devices/"):] + "/net/" + base,
                 os.path.join(vdir, "lower_" + base))
            link("../" * (pcirel.count("/") + 2) + "virtual/net/" + vname,
                 os.path.join(ndir, "upper_" + vname))
            link("../../devices/virtual/net/" + vname, os.path.join(classes["net"], vname))
            vlan_lines.append((vname, vid, base))
            netdevs.append(vname)

        pdir = mkdir(os.path.join(ibdir, "ports", str(port)))
        files(pdir, {"state": "4: ACTIVE", "phys_state": "5: LinkUp",
                     "rate": "100 Gb/sec (4X EDR)", "link_layer": "Ethernet", "lid": "0x0",
                     "sm_lid": "0x0", "sm_sl": "0", "lid_mask_count": "0",
                     "cap_mask": "0x00010000"})
        write(os.path.join(mkdir(os.path.join(pdir, "pkeys")), "0"), "0xffff")
        gids = mkdir(os.path.join(pdir, "gids"))
        types = mkdir(os.path.join(pdir, "gid_attrs", "types"))
        ndevs = mkdir(os.path.join(pdir, "gid_attrs", "ndevs"))
        ll = link_local(mac)
        pairs = (nslot // 2) // 2          # half the slots used, as v1/v2 pairs
        for k in range(pairs):
            if k < len(netdevs):
                gid, nd = ll, netdevs[k]   # fe80 of the MAC on the netdev and its VLANs
            else:
                j = k - len(netdevs)
                kind = j % 4
                if kind == 3:
                    gid, nd = v6global(dev, port, k), base
                else:
                    gid, nd = v4mapped(10, dev & 0xFF, ((port - 1) * 4 + kind + 16 * (j // 1000)) & 0xFF,
                                       1 + (j // 4) % 250), netdevs[kind]
            for ver, typ in ((0, "IB/RoCE v1"), (1, "RoCE v2")):
                idx = 2 * k + ver
                write(os.path.join(gids, str(idx)), gid_str(gid))
                write(os.path.join(types, str(idx)), typ)
                write(os.path.join(ndevs, str(idx)), nd)
        for idx in range(2 * pairs, nslot):
            write(os.path.join(gids, str(idx)), ZERO)

vdir = mkdir(os.path.join(root, "proc/net/vlan"))
with open(os.path.join(vdir, "config"), "w") as f:
    f.write("VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n")
    for vname, vid, lower in vlan_lines:
        f.write("%-15s| %-5d| %s\n" % (vname, vid, lower))
for vname, vid, lower in vlan_lines:
    write(os.path.join(vdir, vname),
          "%s  VID: %d\t REORDER_HDR: 1  dev->priv_flags: 1001\nDevice: %s" % (vname, vid, lower))

print("gen-gid-sysroot: %s: %d devices x %d ports x %d slots (%d used per port), "
      "%d netdevs, %d files" % (root, ndev, nport, nslot, 2 * ((nslot // 2) // 2),
                                1 + ndev * nport * (1 + len(VLANS)), nfiles + 1))
PYEOF
