#!/usr/bin/env python3
"""Read back an rdma-fleet --svg picture of host groups and hold it against -j.

usage: mesh-svg-groups-check.py SVG JSON

The picture's groups are its row labels (each <title> is "NAME (N hosts)",
NAME a host list, "LABEL: host list" for a leaf or a pattern); the host lists
are expanded here.  Every pair of the JSON is counted into its cell (the
source's group, the destination's); each cell with pairs must be drawn once
with those counts (data-pairs, data-failed), a cell with a failed pair in a
g-fail class (never smaller than the others: one unit of the grid), a cell
with none in a pass class; a cell without pairs must not be drawn; every
host of the JSON must be in exactly one group; the legend's counts must
match.  Prints a summary and "ok", or the mismatches (first 20), exit 1.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def expand(hl):
    """A host list ("node[01-03,07],login1") as names."""
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\][^,\[]*)*", hl):
        m = re.match(r"^([^\[]*)\[([^\]]*)\](.*)$", part)
        if not m:
            out.append(part)
            continue
        pre, body, post = m.groups()
        for r in body.split(","):
            if "-" in r:
                a, b = r.split("-")
                for n in range(int(a), int(b) + 1):
                    out.extend(pre + str(n).zfill(len(a)) + x for x in expand(post) or [""])
            else:
                out.extend(pre + r + x for x in expand(post) or [""])
    return out


def main():
    root = ET.parse(sys.argv[1]).getroot()
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    bad = []
    groups = {g.get("id"): g for g in root.iter(NS + "g")}
    of = {}
    names = []
    for k, t in enumerate(groups["rows"].iter(NS + "text")):
        title = t.find(NS + "title").text
        m = re.match(r"^(?:(.*): )?(.*) \((\d+) hosts?\)$", title)
        members = expand(m.group(2))
        if len(members) != int(m.group(3)) or int(t.get("data-hosts")) != len(members):
            bad.append("group %d: %s expands to %d hosts, says %s" % (k, title, len(members), m.group(3)))
        for h in members:
            if h in of:
                bad.append("host %s in groups %d and %d" % (h, of[h], k))
            of[h] = k
        names.append(title)
    if root.get("data-groups") != str(len(names)):
        bad.append("data-groups %s, %d row labels" % (root.get("data-groups"), len(names)))
    want = {}
    for p in doc["pairs"]:
        for h in (p["src"], p["dst"]):
            if h not in of:
                bad.append("host %s of the JSON is in no group" % h)
                of[h] = -1
        c = want.setdefault((of[p["src"]], of[p["dst"]]), [0, 0])
        c[0] += 1
        c[1] += p["result"] == "fail"
    got = {}
    counts = {}
    for el in groups["cells"]:
        cls = el.get("class")
        if cls == "grid":
            continue
        r, c = int(el.get("y")), int(el.get("x"))
        if (r, c) in got:
            bad.append("cell %d,%d drawn twice" % (r, c))
        got[(r, c)] = (int(el.get("data-pairs")), int(el.get("data-failed")))
        counts[cls] = counts.get(cls, 0) + 1
        failed = int(el.get("data-failed"))
        if (failed > 0) != cls.startswith("g-fail"):
            bad.append("cell %d,%d: %d failed, drawn %s" % (r, c, failed, cls))
        if el.get("width") != "1" or el.get("height") != "1":
            bad.append("cell %d,%d is not a whole unit of the grid" % (r, c))
    for key, (n, nf) in want.items():
        if got.get(key) != (n, nf):
            bad.append("cell %s -> %s: drawn %s, the JSON has %d pairs, %d failed" % (
                names[key[0]] if key[0] >= 0 else "?", names[key[1]] if key[1] >= 0 else "?",
                got.get(key), n, nf))
    for key in got:
        if key not in want:
            bad.append("cell %d,%d drawn, but no pair of the JSON is in it" % key)
    for t in groups["legend"].iter(NS + "text"):
        cls = t.get("data-class")
        if cls and int(t.get("data-cells")) != counts.get(cls, 0):
            bad.append("legend: %s counts %s cells, %d drawn" % (cls, t.get("data-cells"), counts.get(cls, 0)))
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(1)
    nfail = sum(v[1] for v in want.values())
    print("%d hosts in %d groups, %d of %d cells drawn, %d failed pairs in %d cells marked; ok" % (
        len(of), len(names), len(got), len(names) ** 2, nfail, sum(1 for v in want.values() if v[1])))


if __name__ == "__main__":
    main()
