#!/usr/bin/env python3
"""Hold every tool's --help to the kit's one option vocabulary (rdma-diag(7)).

Reads the options each tool's --help lists ("  -d, --device NAME  ...",
"      --timeout SEC  ...") and the vocabulary in man/rdma-diag.7 (its
OPTIONS section: ".BR \\-d ", " \\-\\-device " \\fINAME\\fR"" and
".BI \\-\\-timeout " SEC""), and checks:
  1. a short option means one long option in every tool that has it;
  2. a long option takes the same kind of value (its placeholder: SEC, N,
     FILE ...) in every tool that has it;
  3. a long option that two or more tools take is in rdma-diag(7), with the
     short option and the placeholder the table gives it;
  4. an option of the table that a tool takes has the table's short option
     there (no tool leaves out -i where the table says -i --interval);
  5. every line of every --help fits an 80-column terminal.
Prints one line per finding, then a summary; exit 1 on any finding.
usage: tests/cli/options-vocab.py BUILD_DIR
"""

import re
import subprocess
import sys

TOOLS = ["devinfo", "gids", "devmap", "events", "selftest", "top", "doctor", "fleet", "fabric", "gpumap"]
OPT = re.compile(r"(?:^|\s)(?:-([A-Za-z0-9]), )?--([a-z][a-z0-9-]*)(\[=[A-Z]+\]|=?[A-Z][A-Z,.|\[\]:]*|\s[A-Z][A-Z,.|\[\]:]*)?")
SHORT_ONLY = re.compile(r"^\s+-([A-Za-z0-9])(?:,|\s{2,})")


def help_text(build, tool):
    return subprocess.run([f"{build}/rdma-{tool}", "--help"], capture_output=True, text=True).stdout


def help_options(out):
    opts = {}
    shorts = {}
    for line in out.splitlines():
        # an option line is indented 2 or 6; deeper lines continue a description
        if not re.match(r"^\s{1,8}-", line):
            continue
        spec = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        for m in OPT.finditer(" " + spec):
            short, long, arg = m.group(1), m.group(2), (m.group(3) or "").strip(" =")
            opts[long] = (short, arg)
            if short:
                shorts[short] = long
        m = SHORT_ONLY.match(line)
        if m and "--" not in spec:
            shorts.setdefault(m.group(1), None)
    return opts, shorts


def vocabulary(path):
    text = open(path).read()
    sec = text.split(".SH OPTIONS", 1)[1].split("\n.SH ", 1)[0]
    table = {}
    for line in sec.splitlines():
        m = re.match(r'^\.BR \\-(\w) ", " \\-\\-([\w-]+)(?: " \\fI([A-Z,.]+)\\fR")?', line)
        if m:
            table[m.group(2)] = (m.group(1), m.group(3) or "")
            continue
        if line.startswith((".BI ", ".B ")):
            for m in re.finditer(r'\\-\\-([\w-]+)(?:\s*"\s*([A-Z][A-Z,.]*)")?', line):
                table.setdefault(m.group(1), (None, m.group(2) or ""))
    return table


def main():
    build = sys.argv[1]
    table = vocabulary("man/rdma-diag.7")
    texts = {t: help_text(build, t) for t in TOOLS}
    per_tool = {t: help_options(texts[t]) for t in TOOLS}
    findings = []
    for t, text in texts.items():
        for n, line in enumerate(text.splitlines(), 1):
            if len(line) > 80:
                findings.append("rdma-%s --help line %d is %d columns (80 at most): %s" % (t, n, len(line), line.strip()))
    by_short, by_long = {}, {}
    for t, (opts, shorts) in per_tool.items():
        for s, l in shorts.items():
            by_short.setdefault(s, {}).setdefault(l, []).append(t)
        for l, (s, a) in opts.items():
            by_long.setdefault(l, {}).setdefault(a, []).append(t)
    for s, longs in sorted(by_short.items()):
        if len(longs) > 1:
            findings.append("-%s means %s" % (s, "; ".join("--%s in %s" % (l, ",".join(ts)) for l, ts in longs.items())))
    for l, args in sorted(by_long.items()):
        if len(args) > 1:
            findings.append("--%s takes %s" % (l, "; ".join("'%s' in %s" % (a, ",".join(ts)) for a, ts in args.items())))
        tools = [t for ts in args.values() for t in ts]
        if len(tools) > 1 and l not in table:
            findings.append("--%s (%s) is not in rdma-diag(7)" % (l, ",".join(tools)))
    for l, (s, a) in sorted(table.items()):
        for t, (opts, _) in per_tool.items():
            if l not in opts:
                continue
            ts, ta = opts[l]
            if s and ts != s:
                findings.append("rdma-%s --%s: rdma-diag(7) gives it -%s, --help %s" % (t, l, s, "-" + ts if ts else "none"))
            if a and ta != a:
                findings.append("rdma-%s --%s: rdma-diag(7) says %s, --help %s" % (t, l, a, ta or "no value"))
    for f in findings:
        print("FINDING: " + f)
    nopt = sum(len(o) for o, _ in per_tool.values())
    print("%d options of %d tools against %d entries of rdma-diag(7): %d findings" %
          (nopt, len(TOOLS), len(table), len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
