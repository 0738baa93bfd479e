# shellcheck shell=sh
# tier_result RESULT_FILE PASSED FAILED SECONDS [SKIPPED] -- the one way a tier
# runner records its counts: "passed failed seconds skipped" in RESULT_FILE,
# after holding the counts against the tier's floor (tests/floors, keyed by the
# result file's name).  A tier that ran fewer checks than its floor, or none at
# all, gets one more failure and a FAIL line naming the shortfall.  Sets
# tier_failed to the failures recorded.  FLOOR_EXEMPT=1 (a run of a chosen
# subset: a case pattern, named scenarios) applies only the at-least-one rule.
# Runs from the repository's top (every runner does).
tier_result() {
	_tr_file=$1 _tr_p=$2 _tr_f=$3 _tr_s=$4 _tr_k=${5:-0}
	_tr_tier=$(basename "$_tr_file")
	_tr_ran=$((_tr_p + _tr_f + _tr_k))
	_tr_floor=1
	if [ "${FLOOR_EXEMPT:-0}" != 1 ]; then
		_tr_v=$(awk -v t="$_tr_tier" '$1 == t { print $2; exit }' tests/floors)
		[ -z "$_tr_v" ] || _tr_floor=$_tr_v
	fi
	if [ "$_tr_ran" -lt "$_tr_floor" ]; then
		echo "FAIL: $_tr_tier: ran $_tr_ran checks, expected at least $_tr_floor (tests/floors)"
		_tr_f=$((_tr_f + 1))
	fi
	mkdir -p "$(dirname "$_tr_file")"
	echo "$_tr_p $_tr_f $_tr_s $_tr_k" > "$_tr_file"
	tier_failed=$_tr_f
}
