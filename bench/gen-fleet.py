#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-fleet.py: synthetic rdma-fleet input for many hosts (issue #33's benches).

One host's real documents (what `rdma-devinfo -v -j` and `rdma-gids --best -j`
print, given as files) are copied under many host names, a few hosts changed
so that the summary has outliers to find:

  every 997th host   runs other firmware (fw_ver of its first device)
  every 1499th host  has its first port's netdev at MTU 1500
  every 2003rd host  sent nothing (it is only in the host list, -w)

Formats (-f):
  lines   "host: {compact JSON}" a document a line, hosts in order (what
          `rdma-fleet --prefix` gives with `jq -c`, or srun -l on JSON lines)
  pdsh    the documents as the tools print them (pretty), every line
          prefixed "host: ", hosts interleaved a few lines at a time as pdsh
          shows concurrent output (a host's lines stay in order)
  mesh    a full mesh of rdma-selftest --mesh -j lines (srun -l style,
          "host: {...}"), N*(N-1) pairs; latency and bandwidth vary a
          little, every 101st pair failed at the connect stage, every 53rd
          passed with a warning, host 7's bandwidth is half; the two
          documents are not read

The host names are node00001... (-p PREFIX, width from N).  The list of hosts
that must answer is written with -l FILE (one name a line; a host file for
--hostfile).  Deterministic: the same arguments give the same bytes.

usage: gen-fleet.py [-n HOSTS] [-f lines|pdsh|mesh] [-k NICS] [-r ROUNDS]
                    [-p PREFIX] [-l LIST] [DEVINFO_JSON GIDS_JSON] > OUT
  -k NICS  repeat the device entries of both documents up to NICS devices
           (renamed mlx5_0.., as a 32-NIC host would print them)
  -r ROUNDS  mesh: only the first ROUNDS rounds (ROUNDS peers a host)
"""
import argparse
import copy
import json
import random
import sys


def widen(devinfo, gids, nics):
    """Repeat the devices (and their GID choices) up to nics of them."""
    if nics <= 0:
        return devinfo, gids
    out_d, out_g = [], []
    for i in range(nics):
        src = copy.deepcopy(devinfo[i % len(devinfo)])
        old = src["dev"]
        src["dev"] = "mlx5_%d" % i
        if "netdevs" in src:
            src["netdevs"] = ["%s_%d" % (n, i) for n in src["netdevs"]]
        out_d.append(src)
        for g in gids:
            if g.get("dev") == old and i < nics:
                g2 = copy.deepcopy(g)
                g2["dev"] = src["dev"]
                out_g.append(g2)
    # one GID choice per device/port, not one per copy of the source
    seen, uniq = set(), []
    for g in out_g:
        k = (g["dev"], g.get("port"))
        if k not in seen:
            seen.add(k)
            uniq.append(g)
    return out_d, uniq


def host_docs(i, devinfo, gids):
    """The two documents of host number i (1-based), with its changes."""
    d = devinfo
    if i % 997 == 0 or i % 1499 == 0:
        d = copy.deepcopy(devinfo)
        if i % 997 == 0:
            d[0]["fw_ver"] = "22.35.2000"
        if i % 1499 == 0 and d[0].get("ports"):
            d[0]["ports"][0]["netdev_mtu"] = 1500
    return [d, gids]


def mesh(out, names, rounds=0):
    """A full mesh: round r pairs host i with host (i + r) mod N (only the
    first `rounds` rounds when given, as a random:K schedule would: K peers a
    host)."""
    rnd = random.Random(34)
    n = len(names)
    k = 0
    for r in range(1, (min(rounds, n - 1) if rounds else n - 1) + 1):
        for i in range(n):
            src, dst = names[i], names[(i + r) % n]
            k += 1
            d = {"mode": "mesh", "host": src, "src": src, "dst": dst, "round": r,
                 "attempts": 1, "wait_ms": 0.1, "dev": "mlx5_0", "port": 1,
                 "gid_index": 3, "gid_type": "RoCE v2"}
            if k % 101 == 0:
                d.update({"result": "fail", "failed_stage": "connect",
                          "diagnosis": "the peer's rdma_cm did not answer (REJECTED: timeout)"})
            else:
                bw = 96.0 + rnd.random() * 2
                if i == 6 or (i + r) % n == 6:
                    bw /= 2
                d.update({"result": "pass", "latency_us": round(3.0 + rnd.random(), 2),
                          "gbps": round(bw, 2)})
                if k % 53 == 0:
                    # the counters stage's words on a port that retransmitted
                    d["warning"] = ("retransmits: duplicate_request +1 on mlx5_0 port 1 during "
                                    "the run (port-wide: other traffic on the port counts too)")
            out.write("%s: %s\n" % (src, json.dumps(d, separators=(",", ":"))))


def main():
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("-f", choices=("lines", "pdsh", "mesh"), default="lines")
    ap.add_argument("-k", type=int, default=0)
    ap.add_argument("-r", type=int, default=0)
    ap.add_argument("-p", default="node")
    ap.add_argument("-l")
    ap.add_argument("devinfo", nargs="?")
    ap.add_argument("gids", nargs="?")
    a = ap.parse_args()
    width = len(str(a.n))
    names = ["%s%0*d" % (a.p, width, i) for i in range(1, a.n + 1)]
    if a.l:
        with open(a.l, "w") as f:
            f.write("".join(n + "\n" for n in names))
    out = sys.stdout
    if a.f == "mesh":
        mesh(out, names, a.r)
        return
    if not a.devinfo or not a.gids:
        ap.error("DEVINFO_JSON and GIDS_JSON are needed for -f lines and pdsh")
    with open(a.devinfo) as f:
        devinfo = json.load(f)
    with open(a.gids) as f:
        gids = json.load(f)
    devinfo, gids = widen(devinfo, gids, a.k)
    # The unchanged documents are serialised once.
    plain = None
    if a.f == "lines":
        plain = [json.dumps(x, separators=(",", ":")) for x in (devinfo, gids)]
        for i, name in enumerate(names, 1):
            if i % 2003 == 0:
                continue
            docs = host_docs(i, devinfo, gids)
            texts = plain if docs[0] is devinfo else [json.dumps(x, separators=(",", ":")) for x in docs]
            out.write("".join("%s: %s\n" % (name, t) for t in texts))
        return
    plain = (json.dumps(devinfo, indent=2) + "\n" + json.dumps(gids, indent=2)).split("\n")
    rnd = random.Random(33)
    # pdsh: up to 64 hosts in flight; each turn one of them prints 1-8 lines.
    pending = list(range(1, a.n + 1))
    pending.reverse()
    active = []  # [name, lines, pos]
    while pending or active:
        while pending and len(active) < 64:
            i = pending.pop()
            if i % 2003 == 0:
                continue
            docs = host_docs(i, devinfo, gids)
            lines = plain if docs[0] is devinfo else \
                (json.dumps(docs[0], indent=2) + "\n" + json.dumps(docs[1], indent=2)).split("\n")
            active.append([names[i - 1], lines, 0])
        if not active:
            break
        j = rnd.randrange(len(active))
        name, lines, pos = active[j]
        k = min(len(lines), pos + rnd.randint(1, 8))
        out.write("".join("%s: %s\n" % (name, l) for l in lines[pos:k]))
        if k >= len(lines):
            active[j] = active[-1]
            active.pop()
        else:
            active[j][2] = k


if __name__ == "__main__":
    main()
