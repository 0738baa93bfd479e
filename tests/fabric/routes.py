#!/usr/bin/env python3
"""The fabric tier's route oracle helpers, over ibtracert and rdma-fabric output.

usage:
  routes.py canon-json FILE       rdma-fabric --path -j: each route as ibtracert's lines
  routes.py canon-tracert FILE... ibtracert outputs: their From/hop/To lines, a blank line after each
  routes.py cdg FILE...           ibtracert outputs of routes: the channel dependency graph's
                                  cycles, as "cyclic CHANNEL" lines (CHANNEL: "desc port N"),
                                  then "cycles N" (0: none); each FILE one route
  routes.py lft-skew IN OUT SWITCH LOW HIGH PORT...
                                  an OpenSM LFT dump (ibroute's format, as -U reads) with every
                                  LID SWITCH sends out of a port LOW..HIGH (its up-ports) sent
                                  out of the PORTs instead, in turn
  routes.py lft-loop IN OUT LID SW1 PORT1 SW2 PORT2
                                  the dump with SW1's entry for LID set to PORT1 and SW2's to
                                  PORT2 (a loop when they point at each other)
"""
import json
import re
import sys

HOP = re.compile(r'^\[(\d+)\] -> (\w+) port \{(0x[0-9a-f]+)\}\[(\d+)\] lid (\d+)-(\d+) "(.*)"$')
END = re.compile(r'^(From|To) (\w+) \{(0x[0-9a-f]+)\} portnum (\d+) lid (\d+)-(\d+) "(.*)"$')


def canon_json(path):
    with open(path) as f:
        doc = json.load(f)
    out = []
    for p in doc["paths"]:
        fr, to = p["from"], p["to"]
        out.append('From %s {%s} portnum %d lid %d-%d "%s"' % (fr["type"], fr["guid"], fr["port"],
                                                          fr["lid"], fr["lid"], fr["node"]))
        for h in p["hops"]:
            lmc = 1 << h.get("lmc", 0)
            out.append('[%d] -> %s port {%s}[%d] lid %d-%d "%s"' % (
                h["out_port"], h["type"], h["port_guid"], h["in_port"], h["lid"],
                h["lid"] + lmc - 1, h["node"]))
        if p["verdict"] != "fail" or p.get("end") == "reached":
            out.append('To %s {%s} portnum %d lid %d-%d "%s"' % (to["type"], to["guid"], to["port"],
                                                              to["lid"], to["lid"], to["node"]))
        out.append("")
    return out


def canon_tracert(paths):
    out = []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if HOP.match(line) or END.match(line):
                    out.append(line)
        out.append("")
    return out


def cdg(paths):
    """Channels are (switch desc, out port) between two switches; a route's
    consecutive switch-to-switch channels are a dependency."""
    edges = {}
    for path in paths:
        nodes = []  # (type, desc, out port taken from it)
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                m = END.match(line)
                if m and m.group(1) == "From":
                    nodes.append([m.group(2), m.group(7), None])
                    continue
                m = HOP.match(line)
                if m:
                    nodes[-1][2] = int(m.group(1))
                    nodes.append([m.group(2), m.group(7), None])
        chans = []
        for i in range(len(nodes) - 1):
            if nodes[i][0] == "switch" and nodes[i + 1][0] == "switch":
                chans.append((nodes[i][1], nodes[i][2]))
            else:
                chans.append(None)
        for a, b in zip(chans, chans[1:]):
            if a and b:
                edges.setdefault(a, set()).add(b)
                edges.setdefault(b, set())
    # Tarjan's strongly connected components, without recursion.
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in edges[v]:
                    comps.append(comp)
    out = []
    for comp in comps:
        for desc, port in sorted(comp):
            out.append("cyclic %s port %d" % (desc, port))
    out.append("cycles %d" % len(comps))
    return out


UNI = re.compile(r'^Unicast lids .* of switch Lid (\d+) guid (0x[0-9a-f]+) \((.*)\):')
ENT = re.compile(r'^(0x[0-9a-f]+) (\d+) : \((\w[\w ]*?) portguid (0x[0-9a-f]+): \'(.*)\'\)$')


def lft_edit(src, dst, fn):
    sw = None
    with open(src) as f, open(dst, "w") as o:
        for line in f:
            m = UNI.match(line)
            if m:
                sw = m.group(3)
            m = ENT.match(line.rstrip("\n"))
            if m and sw is not None:
                new = fn(sw, int(m.group(1), 16), int(m.group(2)), m.group(3))
                if new is not None:
                    line = "%s %03d : (%s portguid %s: '%s')\n" % (m.group(1), new, m.group(3),
                                                                  m.group(4), m.group(5))
            o.write(line)


def main(argv):
    if len(argv) >= 2 and argv[0] == "canon-json":
        print("\n".join(canon_json(argv[1])))
    elif len(argv) >= 2 and argv[0] == "canon-tracert":
        print("\n".join(canon_tracert(argv[1:])))
    elif len(argv) >= 2 and argv[0] == "cdg":
        print("\n".join(cdg(argv[1:])))
    elif len(argv) >= 7 and argv[0] == "lft-skew":
        src, dst, which = argv[1], argv[2], argv[3]
        low, high, ports = int(argv[4]), int(argv[5]), [int(p) for p in argv[6:]]
        turn = [0]

        def skew(sw, lid, port, kind):
            if sw != which or not low <= port <= high:
                return None
            turn[0] += 1
            return ports[turn[0] % len(ports)]
        lft_edit(src, dst, skew)
    elif len(argv) == 8 and argv[0] == "lft-loop":
        lid = int(argv[3], 0)
        want = {argv[4]: int(argv[5]), argv[6]: int(argv[7])}
        lft_edit(argv[1], argv[2], lambda sw, l, port, kind: want[sw] if l == lid and sw in want else None)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
