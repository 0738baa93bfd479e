#!/bin/bash
# Monitoring tier: the files of monitoring/ (issue #45) against the tools.
#   - promtool check rules, and promtool test rules on the hand-made tests
#     (monitoring/tests/*.yml: each alert fires once and stays silent once);
#   - the real output: rdma-top --format prometheus on fixture trees, and
#     rdma-fabric --format prometheus on a simulated fabric (ibsim + OpenSM,
#     as the fabric tier runs it) with OpenSM up and then stopped;
#   - every metric and label name the rules and the dashboard use is in that
#     output, or is node_exporter's or Prometheus' own, listed in names.py;
#   - the rules run in promtool on series made of that output
#     (real-tests.py), so their matchers and joins meet the real label sets;
#   - the dashboard's queries parse (promtool check rules on them);
#   - the systemd units pass systemd-analyze verify (their binaries pointed
#     at build/), name only tools that exist, and only options their --help
#     lists.
# A missing promtool, ibsim or OpenSM is a failure, not a skip.
# usage: tests/monitoring/run.sh BUILD_DIR RESULT_FILE
set -u
tier_t0=$(date +%s)
cd "$(dirname "$0")/../.." || exit 1
[ $# -eq 2 ] || { echo "usage: tests/monitoring/run.sh BUILD_DIR RESULT_FILE" >&2; exit 2; }
build=$(cd "$1" && pwd -P) result=$2
export LC_ALL=C TZ=UTC
PY=/usr/bin/python3
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $1"; pass=$((pass + 1)); }
bad() {
	echo "FAIL: $1"
	[ $# -lt 2 ] || printf '%s\n' "$2" | head -n 40 | sed 's/^/    | /'
	fail=$((fail + 1))
}
# check NAME CMD...: passes when CMD exits 0; its output shown when not.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else bad "$name" "$out"; fi
}
finish() {
	local secs=$(( $(date +%s) - tier_t0 ))
	. tests/tier-result.sh
	tier_result "$result" "$pass" "$fail" "$secs"
	fail=$tier_failed
	echo "monitoring: $pass passed, $fail failed ($secs s)"
	[ "$fail" -eq 0 ]
	exit
}

missing=""
for t in promtool:prometheus ibsim:ibsim-utils ibsim-run:ibsim-utils opensm:opensm systemd-analyze:systemd \
	"$PY":python3-prometheus-client; do
	PATH=$PATH:/usr/sbin command -v "${t%%:*}" > /dev/null 2>&1 || missing="$missing ${t%%:*} (${t#*:})"
done
$PY -c 'import yaml, prometheus_client' 2> /dev/null || missing="$missing python3 yaml, prometheus_client (python3-yaml python3-prometheus-client)"
if [ -n "$missing" ]; then
	bad "monitoring tier: missing:$missing (make deps)"
	finish
fi
export PATH=$PATH:/usr/sbin
RULES=monitoring/rdma-diag.rules.yml DASH=monitoring/grafana/rdma-diag.json

# ---- the rules and their hand-made tests ----
check "promtool check rules $RULES" promtool check rules "$RULES"
for t in monitoring/tests/*.yml; do
	[ -f "$t" ] || continue
	check "promtool test rules $t ($(grep -c 'alertname:' "$t") alert evaluations)" promtool test rules "$t"
done
# every alert has severity, summary and description, and is tested firing and silent
alerts=$($PY -c 'import yaml,sys
for g in yaml.safe_load(open(sys.argv[1]))["groups"]:
    for r in g["rules"]:
        if "alert" in r:
            a = r.get("annotations", {}); l = r.get("labels", {})
            print(r["alert"], l.get("severity", "-"), int("summary" in a and "description" in a))' "$RULES")
miss=""
while read -r a sev ann; do
	[ "$sev" != - ] && [ "$ann" = 1 ] || miss="$miss $a(severity=$sev,annotations=$ann)"
	$PY - "$a" monitoring/tests/*.yml > /dev/null 2>&1 <<-'PYEOF' || miss="$miss $a(not tested firing and silent)"
	import sys, yaml
	fire = silent = False
	for p in sys.argv[2:]:
	    for t in yaml.safe_load(open(p)).get("tests", []):
	        for c in t.get("alert_rule_test", []):
	            if c["alertname"] == sys.argv[1]:
	                fire |= bool(c.get("exp_alerts")); silent |= not c.get("exp_alerts")
	sys.exit(0 if fire and silent else 1)
	PYEOF
done <<< "$alerts"
if [ -z "$miss" ]; then
	ok "each of the $(wc -l <<< "$alerts") alerts has a severity, summary and description, and fires and stays silent in a test"
else
	bad "alerts without severity, annotations or both test cases:$miss"
fi

# ---- the real output ----
nscr=0
for fx in mlx5-roce-dual ib-edr-hca rxe-plain sriov-vfs iwarp-rnic roce-bond doctor-ib-nosm; do
	if "$build/rdma-top" --sysroot "tests/fixtures/$fx" --format prometheus > "$tmp/top-$fx.prom" 2> "$tmp/err"; then
		nscr=$((nscr + 1))
	else
		bad "rdma-top --format prometheus on $fx" "$(cat "$tmp/err")"
	fi
done
[ "$nscr" = 7 ] && ok "rdma-top --format prometheus on 7 fixture trees"
# The fabric, as the fabric tier sweeps it (tests/fabric/sim.sh).
FABRIC_DIR=$(mktemp -d "$build/fabric-mon.XXXXXX") || exit 1
(
	RD_ROOT=$(pwd -P) FABRIC_BUILD=$build FABRIC_DIR=$FABRIC_DIR
	. tests/fabric/sim.sh
	sim_trap
	tests/fabric/gen-net.sh small > "$FABRIC_DIR/small.net" || exit 1
	sim_start "$FABRIC_DIR/sim" "$FABRIC_DIR/small.net" && sim_sm_start || exit 1
	sim_console 'PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=25' > /dev/null || exit 1
	sim_run "$build/rdma-fabric" --format prometheus > "$tmp/fabric-up.prom" || exit 1
	sim_sm_stop all || exit 1
	sim_run "$build/rdma-fabric" --format prometheus > "$tmp/fabric-nosm.prom" || exit 1
) > "$tmp/sim.log" 2>&1
if [ $? = 0 ] && [ -s "$tmp/fabric-up.prom" ] && [ -s "$tmp/fabric-nosm.prom" ]; then
	ok "rdma-fabric --format prometheus on a simulated fabric, OpenSM up and stopped"
	rm -rf "$FABRIC_DIR"
else
	bad "rdma-fabric --format prometheus on a simulated fabric (kept: $FABRIC_DIR)" "$(cat "$tmp/sim.log")"
fi
# promtool parses each (status 1: a parse error); its lint (status 3) may
# only note the drivers' own counter names, kept as the driver spells them
# (irdma's cnpHandled): any other note fails.
lint_bad=""
for f in "$tmp"/*.prom; do
	promtool check metrics < "$f" > "$tmp/lint" 2>&1
	rc=$?
	if [ "$rc" != 0 ] && { [ "$rc" != 3 ] || grep -v "^rdma_hw_[A-Za-z0-9_]* metric names should be written in 'snake_case' not 'camelCase'$" "$tmp/lint" | grep -q .; }; then
		lint_bad="$lint_bad $(basename "$f")"
		grep -v "snake_case" "$tmp/lint" | head -n 10
	fi
done
[ -z "$lint_bad" ] && ok "promtool check metrics: the $(ls "$tmp"/*.prom | wc -l) scrapes parse, no lint note but the drivers' camelCase names" ||
	bad "promtool check metrics:$lint_bad"

# ---- names, dashboard ----
out=$(MON_DASH_RULES=$tmp/dash.yml $PY tests/monitoring/names.py "$tmp"/*.prom -- "$RULES" "$DASH" 2>&1)
grep '^ok - ' <<< "$out"
pass=$((pass + $(grep -c '^ok - ' <<< "$out")))
while read -r l; do bad "${l#FAIL - }" "$(sed -n "/^FAIL - ${l#FAIL - }/,/^[^ ]/p" <<< "$out" | grep '^    |' | sed 's/^    | //')"; done \
	< <(grep '^FAIL - ' <<< "$out")
grep -q '^ok - dashboard' <<< "$out" && [ -s "$tmp/dash.yml" ] &&
	check "the dashboard's $(grep -c 'record:' "$tmp/dash.yml") queries parse (promtool check rules)" promtool check rules "$tmp/dash.yml"

# ---- the rules on the real output ----
mkdir -p "$tmp/real"
if out=$($PY tests/monitoring/real-tests.py "$RULES" "$tmp/real" "$tmp/fabric-up.prom" "$tmp/fabric-nosm.prom" \
	"$tmp/top-ib-edr-hca.prom" "$tmp/top-mlx5-roce-dual.prom" "$tmp/top-rxe-plain.prom" \
	"$tmp/top-iwarp-rnic.prom" "$tmp/top-doctor-ib-nosm.prom" 2>&1); then
	echo "# $out"
	check "the rules on the real output fire where they should and nowhere else (promtool test rules)" \
		promtool test rules "$tmp/real/real.test.yml"
else
	bad "series from the real output" "$out"
fi

# ---- systemd units ----
units=(monitoring/systemd/*.service monitoring/systemd/*.timer)
mkdir -p "$tmp/units"
for u in "${units[@]}"; do sed "s|/usr/bin/rdma-|$build/rdma-|g" "$u" > "$tmp/units/$(basename "$u")"; done
check "systemd-analyze verify: ${#units[@]} units, no warning" \
	bash -c 'out=$(cd "$1" && systemd-analyze verify --man=no ./*.service ./*.timer 2>&1); rc=$?; printf "%s" "$out"; [ $rc = 0 ] && [ -z "$out" ]' _ "$tmp/units"
# The tools and options the units run exist (a shell command line is not verified by systemd).
probs=""
while read -r tool args; do
	[ -x "$build/$tool" ] || { probs="$probs $tool(not built)"; continue; }
	for o in $(grep -o -- '--[a-z][a-z-]*' <<< "$args"); do
		"$build/$tool" --help | grep -q -- "$o\b" || probs="$probs $tool:$o"
	done
done < <(grep -ho '/usr/bin/rdma-[a-z]* [^;>]*' monitoring/systemd/*.service | sed 's|/usr/bin/||')
n=$(grep -ho '/usr/bin/rdma-[a-z]*' monitoring/systemd/*.service | wc -l)
if [ -z "$probs" ] && [ "$n" -ge 2 ]; then
	ok "the units run $n tools, with options their --help lists"
else
	bad "the units' commands: unknown tools or options:$probs ($n tools)"
fi
for u in monitoring/systemd/*.service; do
	miss=""
	for k in ProtectSystem=strict ReadWritePaths=/var/lib/prometheus/node-exporter NoNewPrivileges=yes CapabilityBoundingSet= \
		SystemCallFilter= RestrictAddressFamilies=; do
		grep -q "^$k" "$u" || miss="$miss $k"
	done
	[ -z "$miss" ] && ok "$(basename "$u"): hardened" || bad "$(basename "$u") lacks:$miss"
done
grep -q '^DeviceAllow=char-infiniband_mad rw' monitoring/systemd/rdma-fabric-metrics.service &&
	grep -q '^DevicePolicy=closed' monitoring/systemd/rdma-fabric-metrics.service &&
	ok "rdma-fabric-metrics.service: /dev/infiniband/umad* and no other device" ||
	bad "rdma-fabric-metrics.service: DevicePolicy=closed and DeviceAllow=char-infiniband_mad rw"
finish
