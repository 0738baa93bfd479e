#!/bin/bash
# Validate a scrape on stdin with real Prometheus parsers:
#   prometheus, node-exporter: `promtool check metrics` (Debian's prometheus
#     package: the text-format parser of Prometheus itself plus its linter) and
#     prometheus_client.parser (python3-prometheus-client);
#   openmetrics: prometheus_client.openmetrics.parser (promtool 2.42 reads only
#     the 0.0.4 text format).
# node-exporter must also be lint-clean; for prometheus only parse errors count
# (its rdma_hw_* names keep the driver's spelling, e.g. iWARP's camelCase).
# Prints one summary line; exit 1 on a failure (an empty scrape is one).
# usage: tests/cli/top-metrics-parse.sh prometheus|node-exporter|openmetrics < SCRAPE
set -u
mode=$1
scrape=$(cat)
if [ "$mode" != openmetrics ]; then
	lint=$(promtool check metrics <<< "$scrape" 2>&1)
	rc=$?
	# promtool: 0 clean, 3 lint findings only, anything else a parse error.
	if [ $rc -ne 0 ] && { [ $rc -ne 3 ] || [ "$mode" = node-exporter ]; }; then
		echo "promtool check metrics (exit $rc): $lint"
		exit 1
	fi
fi
MODE=$mode /usr/bin/python3 -c '
import os, sys
from prometheus_client.parser import text_string_to_metric_families as prom
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
parse = om if os.environ["MODE"] == "openmetrics" else prom
fams = list(parse(sys.stdin.read()))
n = sum(len(f.samples) for f in fams)
if n == 0:
    sys.exit("no sample at all")
print("%s: promtool %s, prometheus_client: %d families, %d samples" % (os.environ["MODE"],
      "n/a" if os.environ["MODE"] == "openmetrics" else "ok", len(fams), n))
' <<< "$scrape" 2>&1 | tail -1
exit "${PIPESTATUS[0]}"
