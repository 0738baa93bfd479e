#!/usr/bin/env python3
"""Read back an rdma-fleet --svg picture and hold it against rdma-fleet -j.

usage: mesh-svg-check.py SVG JSON

The picture is parsed as XML (it must be well formed); its cells are decoded
from the class paths ("M c r h w v1 h-w z": cells (r, c) .. (r, c+w-1)) and
the failed cells' rects; the row and column labels are the <text> elements.
Every one of the N x N cells is compared with what the JSON's pairs say:
itself on the diagonal, "none" where no pair was reported, "fail" when one
failed, "warn" when one passed with a warning, else the bandwidth class of
the cell's lowest bandwidth against the JSON's median.  The legend's counts
must match the cells.  With --fabric (the JSON has "tomography"), each
suspect's outline group must cover exactly the cells of the bad pairs the
JSON gives it, and its legend line count them.  Prints the counts per class
and "ok", or each mismatch (the first 20) and exits 1.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def natural_key(s):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", s)]


def bw_class(gbps, median):
    if gbps is None or median <= 0:
        return "nobw"
    q = gbps / median
    if q >= 0.9:
        return "bw0"
    if q >= 0.75:
        return "bw1"
    if q >= 0.5:
        return "bw2"
    if q >= 0.25:
        return "bw3"
    return "bw4"


def main():
    svg_path, json_path = sys.argv[1], sys.argv[2]
    root = ET.parse(svg_path).getroot()
    with open(json_path) as f:
        doc = json.load(f)
    pairs = doc["pairs"]
    median = doc.get("mesh_median_gbps", 0)
    hosts = sorted({p["src"] for p in pairs} | {p["dst"] for p in pairs}, key=natural_key)
    n = len(hosts)
    at = {h: i for i, h in enumerate(hosts)}
    bad = []

    groups = {g.get("id"): g for g in root.iter(NS + "g")}
    rows = [t.text for t in groups["rows"].iter(NS + "text")]
    cols = [t.text for t in groups["columns"].iter(NS + "text")]
    if rows != hosts:
        bad.append("row labels differ from the JSON's hosts in natural order")
    if cols != hosts:
        bad.append("column labels differ from the JSON's hosts in natural order")
    if root.get("data-hosts") != str(n):
        bad.append("data-hosts %s, the JSON has %d hosts" % (root.get("data-hosts"), n))

    got = {}
    piece = re.compile(r"M(\d+) (\d+)h(\d+)v1h-(\d+)z")
    for el in groups["cells"]:
        cls = el.get("class")
        if el.tag == NS + "path":
            d = el.get("d")
            if piece.sub("", d):
                bad.append("path %s: unexpected data %r" % (cls, piece.sub("", d)[:40]))
            for m in piece.finditer(d):
                c, r, w, w2 = map(int, m.groups())
                if w != w2:
                    bad.append("path %s: a run that does not close" % cls)
                for x in range(c, c + w):
                    if (r, x) in got:
                        bad.append("cell %d,%d drawn twice" % (r, x))
                    got[(r, x)] = cls
        elif el.tag == NS + "rect" and cls == "fail":
            r, c = int(el.get("y")), int(el.get("x"))
            title = el.find(NS + "title")
            src, dst = hosts[r], hosts[c]
            if title is None or not title.text.startswith("%s -> %s" % (src, dst)):
                bad.append("failed cell %d,%d: its title does not name %s -> %s" % (r, c, src, dst))
            if (r, c) in got:
                bad.append("cell %d,%d drawn twice" % (r, c))
            got[(r, c)] = "fail"

    # what the JSON says, cell by cell
    want = {}
    cell_pairs = {}
    for p in pairs:
        cell_pairs.setdefault((at[p["src"]], at[p["dst"]]), []).append(p)
    for r in range(n):
        for c in range(n):
            ps = cell_pairs.get((r, c))
            if r == c:
                w = "self"
            elif not ps:
                w = "none"
            elif any(p["result"] == "fail" for p in ps):
                w = "fail"
            elif any("warning" in p for p in ps):
                w = "warn"
            else:
                figs = [p["gbps"] for p in ps if "gbps" in p]
                w = bw_class(min(figs) if figs else None, median)
            want[(r, c)] = w
            g = got.get((r, c))
            if g != w and len(bad) < 20:
                bad.append("cell %s -> %s: drawn %s, the JSON says %s" % (hosts[r], hosts[c], g, w))

    counts = {}
    for v in got.values():
        counts[v] = counts.get(v, 0) + 1
    for t in groups["legend"].iter(NS + "text"):
        cls = t.get("data-class")
        if cls and int(t.get("data-cells")) != counts.get(cls, 0):
            bad.append("legend: %s counts %s cells, %d drawn" % (cls, t.get("data-cells"), counts.get(cls, 0)))
    # the suspects' outlines (rdma-fleet --fabric)
    sus = doc.get("tomography", {}).get("suspects", [])
    outl = {}
    if "suspects" in groups:
        for g in (x for x in groups["suspects"].iter(NS + "g") if x.get("data-suspect")):
            outl[int(g.get("data-suspect"))] = {(int(r.get("y")), int(r.get("x"))) for r in g.iter(NS + "rect")}
    elif sus:
        bad.append("no outlines: the JSON names %d suspects" % len(sus))
    for s in sus:
        cells = {(at[p["src"]], at[p["dst"]]) for p in s["pairs"]}
        if outl.get(s["rank"]) != cells:
            bad.append("suspect %d: outlined %s, its pairs are in %s" % (s["rank"], sorted(outl.get(s["rank"], [])), sorted(cells)))
    if len(outl) != len(sus):
        bad.append("%d suspects outlined, the JSON has %d" % (len(outl), len(sus)))
    for t in groups["legend"].iter(NS + "text"):
        k = t.get("data-suspect")
        if k and int(t.get("data-cells")) != len(outl.get(int(k), ())):
            bad.append("legend: suspect %s counts %s cells, %d outlined" % (k, t.get("data-cells"), len(outl.get(int(k), ()))))
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(1)
    print("%d hosts labelled in natural order, %d cells: %s%s; ok" %
          (n, n * n, ", ".join("%s %d" % (k, counts[k]) for k in sorted(counts)),
           "".join("; suspect %d outlines %d cells" % (k, len(v)) for k, v in sorted(outl.items()))))


if __name__ == "__main__":
    main()
