#!/usr/bin/python3
"""Read rdma-fabric --svg back, for tests/fabric/t-fabric-pic.sh.

  svgcheck.py marks FABRIC.json PIC.svg
      every result of rdma-fabric -j that FAILed or WARNed has its mark in
      the picture: a <g class="mark fail|warn"> whose data-check and
      data-object are the result's check and object, with a badge of its
      verdict's class and a <title>; prints "N faults, N marks" and each
      one missing, exit 1 if any is.
  svgcheck.py size PIC.svg
      prints "WIDTH HEIGHT" (the svg element's, in pixels).
  svgcheck.py pixels PIC.svg PIC.png
      the PNG (headless Chromium's screenshot of the SVG at its own size)
      is WIDTHxHEIGHT, and at each mark's badge (data-x, data-y) the
      rendered pixels are of its verdict's colour (the fill its class has
      in the SVG's <style>): at least 30 of the 81 pixels of a 9x9 square
      round the centre within 40 of it (sum of the channels' differences);
      prints "N marks seen in the pixels" and each one not seen, exit 1 if
      any is not.
  svgcheck.py palette IN.png OUT.png
      OUT.png: IN.png in at most 256 colours (octree, no dithering: the
      verdicts' colours stay exact), for the pictures kept in docs/.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def marks(root):
    out = []
    for g in root.iter(SVG + "g"):
        cls = (g.get("class") or "").split()
        if "mark" not in cls:
            continue
        verdict = [c for c in cls if c in ("fail", "warn")]
        badge = [r for r in g.findall(SVG + "rect") if set((r.get("class") or "").split()) >= {"badge"} | set(verdict)]
        out.append({
            "verdict": verdict[0] if verdict else "",
            "check": g.get("data-check"),
            "object": g.get("data-object"),
            "x": float(g.get("data-x")),
            "y": float(g.get("data-y")),
            "title": g.find(SVG + "title") is not None,
            "badge": bool(badge),
        })
    return out


def cmd_marks(fabric_json, svg):
    doc = json.load(open(fabric_json))
    want = [(r["status"], r["check"], r["object"]) for r in doc["results"] if r["status"] in ("fail", "warn")]
    have = {}
    for m in marks(ET.parse(svg).getroot()):
        if m["title"] and m["badge"]:
            key = (m["verdict"], m["check"], m["object"])
            have[key] = have.get(key, 0) + 1
    missing = []
    for key in want:
        if have.get(key, 0) > 0:
            have[key] -= 1
        else:
            missing.append(key)
    print("%d faults, %d marks" % (len(want), len(want) - len(missing)))
    for m in missing:
        print("no mark: %s %s %s" % m)
    return 1 if missing else 0


def colours(root):
    """The fill of .badge.fail and .badge.warn in the <style>."""
    css = "".join(s.text or "" for s in root.iter(SVG + "style"))
    out = {}
    for v in ("fail", "warn"):
        m = re.search(r"\.badge\." + v + r"\{fill:#([0-9a-fA-F]{6})\}", css)
        if m:
            h = m.group(1)
            out[v] = tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))
    return out


def cmd_size(svg):
    root = ET.parse(svg).getroot()
    print(root.get("width"), root.get("height"))
    return 0


def cmd_pixels(svg, png):
    from PIL import Image

    root = ET.parse(svg).getroot()
    w, h = int(float(root.get("width"))), int(float(root.get("height")))
    im = Image.open(png).convert("RGB")
    if im.size != (w, h):
        print("the PNG is %dx%d, the SVG %dx%d" % (im.size + (w, h)))
        return 1
    px = im.load()
    rgb = colours(root)
    seen, bad = 0, []
    ms = marks(root)
    for m in ms:
        want = rgb.get(m["verdict"])
        cx, cy = int(round(m["x"])), int(round(m["y"]))
        hits = 0
        for y in range(cy - 4, cy + 5):
            for x in range(cx - 4, cx + 5):
                if want and 0 <= x < w and 0 <= y < h and sum(abs(a - b) for a, b in zip(px[x, y], want)) <= 40:
                    hits += 1
        if hits >= 30:
            seen += 1
        else:
            bad.append("%s %s %s at %d,%d: %d pixels of its colour" % (m["verdict"], m["check"], m["object"], cx, cy, hits))
    print("%d marks seen in the pixels, of %d" % (seen, len(ms)))
    for b in bad:
        print("not seen: " + b)
    return 1 if bad or not ms else 0


def cmd_palette(src, dst):
    from PIL import Image

    im = Image.open(src).convert("RGB")
    im.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(dst, optimize=True)
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "marks":
        return cmd_marks(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == "size":
        return cmd_size(argv[2])
    if len(argv) == 4 and argv[1] == "pixels":
        return cmd_pixels(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "palette":
        return cmd_palette(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
