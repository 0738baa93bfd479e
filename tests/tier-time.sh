#!/bin/bash
# Run one tier of `make check` and note when it started and ended, in seconds
# since the run began ($RESULTS/.t0), in $RESULTS/.timeline; tests/summary.sh
# prints them in its table.  The tier's output passes through and is kept in
# $RESULTS/.log/TIER, from which tests/summary.sh lists the failed checks
# under its table (CI keeps only the end of a run's output: the names of the
# checks that failed must be there).  The tier's exit status passes through.
# usage: tests/tier-time.sh RESULTS_DIR TIER COMMAND...
set -u
dir=$1 tier=$2
shift 2
t0=$(cat "$dir/.t0" 2> /dev/null || date +%s)
s=$(date +%s)
mkdir -p "$dir/.log"
"$@" | tee "$dir/.log/$tier"
rc=${PIPESTATUS[0]}
echo "$tier $((s - t0)) $(( $(date +%s) - t0 ))" >> "$dir/.timeline"
exit "$rc"
