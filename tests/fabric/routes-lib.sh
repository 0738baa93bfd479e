# shellcheck shell=bash
# What the route scenarios share (t-routes.sh, t-routes-big.sh), sourced after
# lib.sh with B set: rdma-fabric runs, the CAs' LIDs, ibtracert for many pairs.

# rf OUT ARGS...: rdma-fabric ARGS under the fabric, stdout in OUT, stderr in OUT.err, status in rf_rc.
# shellcheck disable=SC2034  # rf_rc is the scenarios'
rf() {
	local out=$1
	shift
	sim_run "$B/rdma-fabric" "$@" > "$out" 2> "$out.err"
	rf_rc=$?
}
# The CA ports' LIDs, from ibnetdiscover (its "# lid N" on each CA port line).
ca_lids() {
	sim_run ibnetdiscover | awk '/^Ca/ { ca = 1; next } /^(Switch|Ca)/ || /^$/ { ca = 0 }
		ca && match($0, /# lid [0-9]+/) { print substr($0, RSTART + 6, RLENGTH - 6) }' | sort -n
}
# ca_lid DESC: the LID of the CA port whose node description is DESC (ibnetdiscover).
ca_lid() {
	sim_run ibnetdiscover | awk -v want="$1" '/^Ca/ { ca = index($0, "# \"" want "\"") > 0; next }
		/^$/ { ca = 0 } ca && match($0, /# lid [0-9]+/) { print substr($0, RSTART + 6, RLENGTH - 6); exit }'
}
# sw_lid NAME: a switch's LID (ibswitches).
sw_lid() { sim_run ibswitches | awk -v n="\"$1\"" '$0 ~ n { for (i = 1; i <= NF; i++) if ($i == "lid") print $(i + 1) }'; }
# tracert_all DIR PAIRS: ibtracert for each "SRC DST" line of PAIRS into DIR/N (DIR made afresh).
tracert_all() {
	local dir=$1 n=0 s t
	rm -rf "$dir"
	mkdir -p "$dir"
	while read -r s t; do
		n=$((n + 1))
		sim_run ibtracert "$s" "$t" > "$dir/$(printf '%05d' $n)" 2>&1
	done < "$2"
}
# schema_all NAME: every *.json of this scenario's dir checked against rdma-fabric's schema.
schema_all() {
	local j
	for j in "$FABRIC_DIR"/*.json; do printf '%s\trdma-fabric\t%s\n' "$1" "$j"; done > "$FABRIC_DIR/schema.list"
	fab_check "every rdma-fabric -j document here is valid against schemas/rdma-fabric.schema.json" \
		python3 "$(dirname "${BASH_SOURCE[0]}")/../cli/schema-check.py" \
		"$(dirname "${BASH_SOURCE[0]}")/../../schemas" "$FABRIC_DIR/schema.list"
}
