#!/bin/bash
# Run one tier of `make check` and note when it started and ended, in seconds
# since the run began ($RESULTS/.t0), in $RESULTS/.timeline; tests/summary.sh
# prints them in its table.  The tier's own output and exit status pass through.
# usage: tests/tier-time.sh RESULTS_DIR TIER COMMAND...
set -u
dir=$1 tier=$2
shift 2
t0=$(cat "$dir/.t0" 2> /dev/null || date +%s)
s=$(date +%s)
"$@"
rc=$?
echo "$tier $((s - t0)) $(( $(date +%s) - t0 ))" >> "$dir/.timeline"
exit $rc
