#!/usr/bin/env python3
"""Every metric and label name the monitoring files use is one the tools export.

usage: names.py SCRAPE... -- RULES.yml DASHBOARD.json
  SCRAPE: Prometheus text the tools printed (rdma-top --format prometheus on
  fixture trees, rdma-fabric --format prometheus on a simulated fabric).
Prints "ok - ..." / "FAIL - ..." lines, one per check; exit 1 on a failure.
Also writes the dashboard's queries, with its variables given values, as
recording rules into $MON_DASH_RULES (when set) for promtool check rules.
"""
import json
import re
import sys

import yaml
from prometheus_client.parser import text_string_to_metric_families

# What node_exporter and Prometheus themselves provide (not the tools).
EXTERNAL_METRICS = {"node_textfile_scrape_error", "node_textfile_mtime_seconds", "up"}
# Target labels Prometheus adds, and node_exporter's textfile label.
EXTERNAL_LABELS = {"instance", "job", "file"}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
            "offset", "bool", "inf", "nan", "atan2", "start", "end"}
GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")


def exported(paths):
    metrics, labels = set(), set()
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for fam in text_string_to_metric_families(f.read()):
                for s in fam.samples:
                    metrics.add(s.name)
                    labels.update(s.labels)
    return metrics, labels


def names_in(expr):
    """(metric names, label names) an expression uses."""
    labels = set()
    for _, inner in GROUPING.findall(expr):
        labels.update(x.strip() for x in inner.split(",") if x.strip())
    e = GROUPING.sub(" ", expr)
    # label matchers: {name op "value", ...}
    for inner in re.findall(r"\{([^}]*)\}", e):
        labels.update(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"', inner))
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r'"(?:[^"\\]|\\.)*"', " ", e)		# strings (label_replace's arguments)
    e = re.sub(r"\[[^\]]*\]", " ", e)			# ranges
    metrics = set()
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", e):
        word, call = m.group(1), m.group(2)
        if call or word in KEYWORDS or re.fullmatch(r"\d+[smhdwy]", word):
            continue
        metrics.add(word)
    # label_replace(v, "dst", "repl", "src", "re"): dst is made, src is read
    for dst, src in re.findall(r'label_replace\s*\(.*?,\s*"([^"]*)"\s*,\s*"[^"]*"\s*,\s*"([^"]*)"', expr, re.S):
        labels.add(src)
        labels.add("+" + dst)
    return metrics, labels


def main():
    sep = sys.argv.index("--")
    scrapes, (rules_path, dash_path) = sys.argv[1:sep], sys.argv[sep + 1:]
    real_m, real_l = exported(scrapes)
    fails = 0

    def check(name, bad):
        nonlocal fails
        if bad:
            fails += 1
            print("FAIL - " + name)
            for b in sorted(bad):
                print("    | " + b)
        else:
            print("ok - " + name)

    with open(rules_path, encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    uses = []		# (where, expr)
    templ_labels = []
    for g in rules["groups"]:
        for r in g["rules"]:
            uses.append(("rule " + r.get("alert", r.get("record", "?")), r["expr"]))
            for v in r.get("annotations", {}).values():
                templ_labels += [("rule " + r["alert"], x) for x in re.findall(r"\$labels\.(\w+)", v)]
                uses += [("rule %s annotation" % r["alert"], q)
                         for q in re.findall(r'printf\s+"([^"]*)"', v)]
    with open(dash_path, encoding="utf-8") as f:
        dash = json.load(f)
    dash_exprs = []
    panels = list(dash.get("panels", []))
    while panels:
        p = panels.pop(0)
        panels += p.get("panels", [])
        for t in p.get("targets", []):
            uses.append(("panel '%s'" % p["title"], t["expr"]))
            dash_exprs.append((p["title"], t["expr"]))
        for k in ("legendFormat",):
            pass
    for v in dash["templating"]["list"]:
        if v["type"] != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
        if not m:
            check("dashboard variable %s: a label_values(METRIC, LABEL) query" % v["name"], [q])
            continue
        uses.append(("variable " + v["name"], m.group(1)))
        templ_labels.append(("variable " + v["name"], m.group(2)))
    for p_title, e in dash_exprs:
        templ_labels += [("panel '%s' legend" % p_title, x) for x in []]

    bad_m, bad_l = [], []
    n_m = set()
    for where, expr in uses:
        ex = expr.replace("$__rate_interval", "5m")
        ms, ls = names_in(ex)
        n_m |= ms
        bad_m += ["%s: %s" % (where, m) for m in ms if m not in real_m and m not in EXTERNAL_METRICS]
        made = {x[1:] for x in ls if x.startswith("+")}
        bad_l += ["%s: label %s" % (where, l) for l in ls
                  if not l.startswith("+") and l not in real_l and l not in EXTERNAL_LABELS and l not in made]
    bad_l += ["%s: label %s" % (w, l) for w, l in templ_labels
              if l not in real_l and l not in EXTERNAL_LABELS]
    check("every metric name in the rules and the dashboard (%d) is exported by rdma-top or rdma-fabric, "
          "or is node_exporter's/Prometheus' own (%s)" % (len(n_m), " ".join(sorted(EXTERNAL_METRICS))), bad_m)
    check("every label name in their matchers, groupings, joins and annotations is in the real output "
          "(or is a target label: %s)" % " ".join(sorted(EXTERNAL_LABELS)), bad_l)
    unused = sorted(EXTERNAL_METRICS - n_m)
    check("every external name listed is used (the list stays honest)", unused)

    # The dashboard: its form, and its queries as recording rules for promtool.
    probs = []
    if dash.get("schemaVersion", 0) < 36:
        probs.append("schemaVersion %s" % dash.get("schemaVersion"))
    ds = [v for v in dash["templating"]["list"] if v["type"] == "datasource" and v.get("query") == "prometheus"]
    if not ds:
        probs.append("no prometheus datasource variable")
    panels = list(dash["panels"])
    ids = []
    while panels:
        p = panels.pop(0)
        panels += p.get("panels", [])
        ids.append(p["id"])
        if p["type"] != "row" and p.get("datasource", {}).get("uid") != "${datasource}":
            probs.append("panel '%s' does not use the datasource variable" % p["title"])
        if p["type"] != "row" and not p.get("targets"):
            probs.append("panel '%s' has no query" % p["title"])
    if len(ids) != len(set(ids)):
        probs.append("panel ids repeat")
    check("dashboard: schemaVersion, a Prometheus datasource variable every panel uses, unique ids", probs)
    import os
    out = os.environ.get("MON_DASH_RULES")
    if out:
        recs = []
        for i, (title, e) in enumerate(dash_exprs):
            e = e.replace("$__rate_interval", "5m")
            e = re.sub(r"\$(instance|device|port|fabric)\b", ".*", e)
            recs.append({"record": "dashboard:query_%d" % i, "expr": e})
        with open(out, "w", encoding="utf-8") as f:
            yaml.safe_dump({"groups": [{"name": "dashboard", "rules": recs}]}, f, allow_unicode=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
