#!/usr/bin/python3
"""Hold headless Chromium's rendering of an rdma-fleet --svg picture to its failures.

usage: svg-pixels.py SVG PNG

PNG is Chromium's screenshot of SVG at the picture's own size (--window-size
= the svg element's width and height).  The PNG must be that size, and every
failed cell of the picture (a <rect> in the "cells" group whose class is
"fail" or "g-fail1".."g-fail3") must be seen in the pixels: at the cell's
centre (the group's translate and scale applied), at least half of the
pixels of the cell's inner square within 40 (sum of the channels'
differences) of the fill its class has in the picture's <style>.  Prints
"WxH, N failed cells seen in the pixels; ok", or each one not seen, exit 1.
"""
import re
import sys
import xml.etree.ElementTree as ET

from PIL import Image

NS = "{http://www.w3.org/2000/svg}"


def main():
    root = ET.parse(sys.argv[1]).getroot()
    img = Image.open(sys.argv[2]).convert("RGB")
    w, h = int(float(root.get("width"))), int(float(root.get("height")))
    bad = []
    if img.size != (w, h):
        bad.append("the PNG is %dx%d, the picture %dx%d" % (img.size + (w, h)))
    style = "".join(s.text or "" for s in root.iter(NS + "style"))
    fills = {m.group(1): tuple(int(m.group(2)[i:i + 2], 16) for i in (0, 2, 4))
             for m in re.finditer(r"\.([\w-]+)\{fill:#([0-9a-fA-F]{6})", style)}
    cells = next(g for g in root.iter(NS + "g") if g.get("id") == "cells")
    m = re.match(r"translate\(([\d.]+) ([\d.]+)\) scale\(([\d.]+)\)", cells.get("transform"))
    left, top, scale = map(float, m.groups())
    px = img.load()
    seen = 0
    for r in cells.iter(NS + "rect"):
        cls = r.get("class") or ""
        if cls not in ("fail", "g-fail1", "g-fail2", "g-fail3"):
            continue
        want = fills[cls]
        cx = left + (float(r.get("x")) + 0.5) * scale
        cy = top + (float(r.get("y")) + 0.5) * scale
        half = max(1, int(scale * 0.3))
        hit = total = 0
        for x in range(int(cx) - half, int(cx) + half + 1):
            for y in range(int(cy) - half, int(cy) + half + 1):
                if 0 <= x < img.size[0] and 0 <= y < img.size[1]:
                    total += 1
                    hit += sum(abs(a - b) for a, b in zip(px[x, y], want)) <= 40
        if total and hit * 2 >= total:
            seen += 1
        else:
            bad.append("failed cell %s,%s (%s): %d of %d pixels of its colour at %.0f,%.0f" %
                       (r.get("y"), r.get("x"), cls, hit, total, cx, cy))
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(1)
    print("%dx%d, %d failed cells seen in the pixels; ok" % (w, h, seen))


if __name__ == "__main__":
    main()
