#!/bin/bash
# Check a text exposition read on stdin, the way a scraper would, without
# needing one installed: every sample belongs to the family TYPE'd just before
# it (OpenMetrics: counter samples are FAMILY_total; Prometheus 0.0.4: the
# TYPE line names the sample itself, as node_exporter's textfile collector
# wants), families are TYPE'd once, labels are well-formed, values are
# numbers, an OpenMetrics scrape ends with "# EOF".  Prints one summary line.
# usage: tests/cli/top-check-metrics.sh openmetrics|prometheus < SCRAPE
set -u
mode=$1
awk -v om=$([ "$mode" = openmetrics ] && echo 1 || echo 0) '
function bad(msg) { printf "line %d: %s: %s\n", NR, msg, $0; errors++ }
BEGIN { name_re = "^[a-zA-Z_:][a-zA-Z0-9_:]*$" }
eof { bad("text after # EOF") }
/^# EOF$/ { if (!om) bad("# EOF in Prometheus text"); eof = 1; next }
/^# HELP / { if ($3 !~ name_re) bad("bad HELP name"); help[$3] = 1; next }
/^# TYPE / {
	if ($3 !~ name_re) bad("bad TYPE name")
	if ($4 !~ /^(counter|gauge|untyped|unknown|info|stateset|histogram|summary|gaugehistogram)$/) bad("bad type")
	if ($3 in typed) bad("family TYPEd twice")
	if (om && $4 == "counter" && $3 ~ /_total$/) bad("OpenMetrics family name ends in _total")
	if (!om && $4 == "counter" && $3 !~ /_total$/) bad("Prometheus counter TYPE without _total (textfile collector would not match it)")
	if (!($3 in help)) bad("no HELP before TYPE")
	typed[$3] = 1; fam = $3; type = $4; families++; next
}
/^#/ { bad("unknown comment"); next }
/^$/ { if (om) bad("empty line"); next }
{
	line = $0
	if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) { bad("no metric name"); next }
	name = substr(line, 1, RLENGTH); rest = substr(line, RLENGTH + 1)
	want = (om && type == "counter") ? fam "_total" : fam
	if (name != want) bad("sample " name " outside its family " want)
	if (substr(rest, 1, 1) == "{") {
		if (!match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*\}/)) { bad("bad labels"); next }
		labels = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
		key = name labels
		if (key in seen) bad("duplicate sample")
		seen[key] = 1
	}
	if (rest !~ /^ -?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) bad("bad value")
	if (type == "counter" && rest ~ /^ -/) bad("negative counter")
	samples++
}
END {
	if (om && !eof) bad("no # EOF at the end")
	if (errors) exit 1
	printf "%s: %d families, %d samples, well-formed\n", om ? "openmetrics" : "prometheus", families, samples
}'
