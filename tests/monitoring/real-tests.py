#!/usr/bin/env python3
"""Write a promtool unit test whose input series are the tools' real output.

usage: real-tests.py RULES.yml OUTDIR FABRIC_UP FABRIC_NOSM HOST_SCRAPE...
  HOST_SCRAPE: rdma-top --format prometheus on a fixture tree (one instance
  each); FABRIC_UP / FABRIC_NOSM: rdma-fabric --format prometheus on a
  simulated fabric with OpenSM up, then stopped.
Writes OUTDIR/rules.yml (the rules without annotations: their text is the
hand-made tests' business) and OUTDIR/real.test.yml.  The expected alerts
are worked out here from the real label sets, so the rules' expressions,
matchers and joins are proven against what the tools really print.
"""
import statistics
import sys

import yaml
from prometheus_client.parser import text_string_to_metric_families

rules_path, out, fab_up, fab_nosm, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]


def samples(path, extra):
    with open(path, encoding="utf-8") as f:
        return [(s.name, {**s.labels, **extra}, s.value)
                for fam in text_string_to_metric_families(f.read()) for s in fam.samples]


def sel(name, labels):
    def q(v):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return name + "{" + ",".join("%s=%s" % (k, q(v)) for k, v in sorted(labels.items())) + "}"


def fmt(v):
    return repr(float(v)) if v != int(v) else str(int(v))


series, tests = [], []


def add(name, labels, values):
    series.append({"series": sel(name, labels), "values": values})


def expect(t, alert, lst, severity):
    tests.append({"eval_time": t, "alertname": alert,
                  # an empty label value is no label in Prometheus (netdev="" of an IB port without IPoIB)
                  "exp_alerts": [{"exp_labels": {**{k: v for k, v in l.items() if v != ""}, "severity": severity}}
                                 for l in lst]})


problems = []
# ---- hosts ----
down, rising, downed, slow = [], [], [], []
for i, h in enumerate(hosts):
    inst = {"job": "node", "instance": "host%d:9100" % i}
    ss = samples(h, inst)
    state = {tuple(sorted(l.items())): v for n, l, v in ss if n == "rdma_port_state"}
    first_active = None
    for n, l, v in ss:
        key = tuple(sorted(l.items()))
        if n == "rdma_port_state":
            add(n, l, "%sx30" % fmt(v))
            if v != 4:
                down.append(l)
            elif first_active is None:
                first_active = key
        elif n == "rdma_link_speed_bytes_per_second":
            add(n, l, "%sx30" % fmt(v))
            if v < 12.5e9 and state.get(key) == 4:
                slow.append(l)
    for n, l, v in ss:
        key = tuple(sorted(l.items()))
        if n == "rdma_errors_total":
            if key == first_active:
                add(n, l, "%s+5x30" % fmt(v))
                rising.append(l)
            else:
                add(n, l, "%sx30" % fmt(v))
        elif n == "rdma_link_downed_total":
            if key == first_active:
                add(n, l, "%sx10 %sx20" % (fmt(v), fmt(v + 1)))
                downed.append(l)
            else:
                add(n, l, "%sx30" % fmt(v))
expect("4m", "RdmaPortNotActive", [], "critical")
expect("10m", "RdmaPortNotActive", down, "critical")
expect("12m", "RdmaPortErrorsRising", rising, "warning")
expect("15m", "RdmaPortLinkDowned", downed, "warning")
expect("15m", "RdmaPortSpeedBelowSite", slow, "warning")
if not slow:
    problems.append("no ACTIVE host port below 12.5e9 bytes/s in the fixtures")
if not down:
    problems.append("no host port that is not ACTIVE in the fixtures")
if not rising:
    problems.append("no ACTIVE host port with rdma_errors_total in the fixtures")

# ---- the fabric: OpenSM up for 5 minutes, then stopped ----
inst = {"job": "rdma-fabric", "instance": "sm1:9100"}
up, nosm = samples(fab_up, inst), samples(fab_nosm, inst)
after = {(n, tuple(sorted(l.items()))): v for n, l, v in nosm}
first_link, first_ca = None, None
errs, degraded = [], []
widths = {}
for n, l, v in up:
    key = tuple(sorted(l.items()))
    if n == "infiniband_width" and l.get("component") == "ca" and first_ca is None:
        first_ca = key
for n, l, v in up:
    key = tuple(sorted(l.items()))
    if n in ("rdma_fabric_sm_masters", "infiniband_scrape_ok", "rdma_fabric_mads_unanswered"):
        if (n, key) not in after:
            problems.append("%s missing once OpenSM stopped" % n)
            continue
        add(n, l, "%sx5 %sx25" % (fmt(v), fmt(after[(n, key)])))
    elif n == "infiniband_symbolerrorcounter_total":
        if first_link is None:
            first_link = key
            add(n, l, "%s+20x30" % fmt(v))
            errs.append(l)
        else:
            add(n, l, "%sx30" % fmt(v))
    elif n in ("infiniband_width", "infiniband_speed"):
        w = 1 if (n == "infiniband_width" and key == first_ca) else v
        widths.setdefault(key, {})[n] = w
        add(n, l, "%sx30" % fmt(w))
byc = {}
for key, d in widths.items():
    if len(d) == 2:
        byc.setdefault(dict(key)["component"], []).append((key, d["infiniband_speed"] * d["infiniband_width"]))
for comp, lst in byc.items():
    med = statistics.median(r for _, r in lst)
    degraded += [dict(k) for k, r in lst if r < med]
masters_up = [v for n, l, v in up if n == "rdma_fabric_sm_masters"]
masters_after = [v for n, l, v in nosm if n == "rdma_fabric_sm_masters"]
if masters_up != [1] or masters_after != [0]:
    problems.append("rdma_fabric_sm_masters: %s with OpenSM up, %s stopped (want [1], [0])" % (masters_up, masters_after))
ok_after = [v for n, l, v in nosm if n == "infiniband_scrape_ok"]
expect("4m", "RdmaFabricNoMasterSM", [], "critical")
expect("10m", "RdmaFabricNoMasterSM", [inst], "critical")
expect("10m", "RdmaFabricSplitSM", [], "critical")
expect("12m", "RdmaFabricLinkErrorsRising", errs, "warning")
expect("15m", "RdmaFabricLinkDegraded", degraded, "warning")
expect("25m", "RdmaFabricSweepIncomplete", [inst] if ok_after == [0] else [], "warning")
if not errs or not degraded:
    problems.append("no fabric link to raise errors on or to slow down")

with open(rules_path, encoding="utf-8") as f:
    rules = yaml.safe_load(f)
for g in rules["groups"]:
    for r in g["rules"]:
        r.pop("annotations", None)
with open(out + "/rules.yml", "w", encoding="utf-8") as f:
    yaml.safe_dump(rules, f, allow_unicode=True, sort_keys=False)
with open(out + "/real.test.yml", "w", encoding="utf-8") as f:
    yaml.safe_dump({"rule_files": ["rules.yml"], "evaluation_interval": "1m",
                    "tests": [{"name": "real output", "interval": "1m", "input_series": series,
                               "alert_rule_test": tests}]}, f, allow_unicode=True, sort_keys=False, width=1000)
print("%d series from %d host scrapes and 2 fabric scrapes; expected: %d down, %d rising, %d link downed, "
      "%d slow host ports; %d fabric links with rising errors, %d degraded" %
      (len(series), len(hosts), len(down), len(rising), len(downed), len(slow), len(errs), len(degraded)))
for p in problems:
    print("problem: " + p)
sys.exit(1 if problems else 0)
