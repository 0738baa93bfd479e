#!/usr/bin/env python3
"""Tomography trials for rdma-fleet --fabric: meshes with a known bad link.

The routes are the fabric's own (rdma-fabric --routes -j: its ports, peers
and forwarding tables), walked here independently of the tool. A trial picks
a mesh plan's pairs, chooses one or two links, marks every pair whose route
(either way: an RC test needs both) crosses them as failed, adds unrelated
failures and slow pairs at random, and writes the mesh as rdma-selftest
--mesh -j lines plus what was chosen. `score` reads rdma-fleet -j's answers.

usage:
  tomo.py trials FABRIC.json DIR N PLAN LINKS NOISE SLOW SEED
      N trials into DIR/NNN.jsonl (the mesh) and DIR/NNN.want (the chosen
      links, one a line, as rdma-fleet names them). PLAN: random:K (each
      host tests K random peers) or full:H (a full mesh of H random hosts).
      LINKS: 0, 1 or 2 links chosen among those crossed by at least MIN_PAIRS
      tested pairs; NOISE and SLOW: the share of the other pairs failed and
      slow at random.
  tomo.py score DIR N LINKS
      DIR/NNN.json (rdma-fleet -j) against DIR/NNN.want: prints
      "hits H of N" (LINKS 1: the link ranked first; 2: the two links ranked
      first and second, in any order; 0: no suspect named), then a line per
      miss.
"""
import json
import random
import sys

MIN_PAIRS = 5


class Fabric:
    def __init__(self, path):
        with open(path) as f:
            doc = json.load(f)
        self.name = {}
        self.sw = {}
        self.peer = {}
        self.lid = {}
        self.lft = {}
        self.hosts = {}
        for p in doc["ports"]:
            g = p["guid"]
            self.name[g] = p["node"]
            self.sw[g] = p["type"] == "Switch"
            if "peer_guid" in p:
                self.peer[(g, p["port"])] = (p["peer_guid"], p["peer_port"])
            if p["type"] != "Switch" and p.get("lid"):
                self.lid[(g, p["port"])] = p["lid"]
        for t in doc["lfts"]:
            self.lft[t["guid"]] = t["lft"]
        for (g, port), lid in self.lid.items():
            host = self.name[g].split(" ")[0]
            self.hosts.setdefault(host, (g, port, lid))
        self.cache = {}

    def link_text(self, a, b):
        """A cable as rdma-fleet names it: a switch end first, then the lower name, GUID, port."""
        ka = (not self.sw[a[0]], self.name[a[0]].encode(), int(a[0], 16), a[1])
        kb = (not self.sw[b[0]], self.name[b[0]].encode(), int(b[0], 16), b[1])
        if kb < ka:
            a, b = b, a
        return "%s port %d <-> %s port %d" % (self.name[a[0]], a[1], self.name[b[0]], b[1])

    def route(self, src, dst):
        """The links (texts) from host src to host dst."""
        key = (src, dst)
        if key in self.cache:
            return self.cache[key]
        g, port, _ = self.hosts[src]
        dlid = self.hosts[dst][2]
        out = []
        at = (g, port)
        for _ in range(64):
            nxt = self.peer[at]
            out.append(self.link_text(at, nxt))
            if not self.sw[nxt[0]]:
                break
            at = (nxt[0], self.lft[nxt[0]][dlid])
        else:
            raise SystemExit("route %s -> %s loops" % (src, dst))
        self.cache[key] = out
        return out


def plan_pairs(hosts, plan, rnd):
    kind, n = plan.split(":")
    n = int(n)
    if kind == "full":
        job = rnd.sample(hosts, n)
        return [(a, b) for a in job for b in job if a != b]
    pairs = []
    for a in hosts:
        for b in rnd.sample([h for h in hosts if h != a], n):
            pairs.append((a, b))
    return pairs


def trials(fab_path, d, n, plan, nlinks, noise, slow, seed):
    fab = Fabric(fab_path)
    hosts = sorted(fab.hosts)
    rnd = random.Random(seed)
    for t in range(n):
        pairs = plan_pairs(hosts, plan, rnd)
        links = [set(fab.route(a, b)) | set(fab.route(b, a)) for a, b in pairs]
        through = {}
        for i, ls in enumerate(links):
            for l in ls:
                through.setdefault(l, []).append(i)
        cands = sorted(l for l, v in through.items() if len(v) >= MIN_PAIRS)
        chosen = rnd.sample(cands, nlinks) if nlinks else []
        bad = set()
        for l in chosen:
            bad.update(through[l])
        with open("%s/%03d.jsonl" % (d, t), "w") as f:
            for i, (a, b) in enumerate(pairs):
                doc = {"mode": "mesh", "src": a, "dst": b, "round": 1, "dev": "mlx5_0", "port": 1}
                r = rnd.random()
                if i in bad or r < noise:
                    doc.update(result="fail", failed_stage="rts", diagnosis="retry exceeded")
                elif r < noise + slow:
                    doc.update(result="pass", latency_us=2.0, gbps=round(rnd.uniform(5, 40), 2))
                else:
                    doc.update(result="pass", latency_us=round(rnd.uniform(1.9, 2.2), 2),
                               gbps=round(rnd.uniform(95, 99), 2))
                f.write(json.dumps(doc) + "\n")
        with open("%s/%03d.want" % (d, t), "w") as f:
            for l in chosen:
                f.write("%s %d\n" % (l, len(through[l])))


def score(d, n, nlinks):
    hits = 0
    misses = []
    for t in range(n):
        with open("%s/%03d.want" % (d, t)) as f:
            want = [line.rsplit(" ", 1)[0] for line in f.read().splitlines()]
        with open("%s/%03d.json" % (d, t)) as f:
            sus = json.load(f)["tomography"]["suspects"]
        # a suspect is its link and the links the same pairs cross
        named = [set([s["link"]] + s["same_pairs_links"]) for s in sus]
        if nlinks == 0:
            ok = not named
        else:
            top = named[:nlinks]
            ok = len(top) == nlinks and all(any(w in g for g in top) for w in want) and \
                all(any(w in g for w in want) for g in top)
        hits += ok
        if not ok:
            misses.append("%03d: want %s; named %s" % (t, want, [s["link"] for s in sus[:3]]))
    print("hits %d of %d" % (hits, n))
    for m in misses:
        print("miss " + m)


def main():
    a = sys.argv[1:]
    if a and a[0] == "trials" and len(a) == 9:
        trials(a[1], a[2], int(a[3]), a[4], int(a[5]), float(a[6]), float(a[7]), int(a[8]))
    elif a and a[0] == "score" and len(a) == 4:
        score(a[1], int(a[2]), int(a[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
