#!/bin/bash
# SPDX-License-Identifier: MIT
# gids-live-vs-files.sh: boot one soft-RoCE VM, fill rxe0's GID table (900 addresses),
# and time rdma-gids live through ibv_query_gid_table() against its sysfs path and
# against the file floor (bench/gid-floor.c: open+read of every GID file), paired round
# by round.  Prints the medians and the median paired ratios; never fails on speed.
# usage: bench/gids-live-vs-files.sh [ROUNDS=15]
set -u
cd "$(dirname "$0")/.." || exit 1
rounds=${1:-15}
make -s >/dev/null || { echo "gids-live-vs-files: make failed" >&2; exit 1; }
make -s bench-build > /dev/null || exit 1
BENCH_ROUNDS=$rounds tests/vm/run.sh --name bench-gids-live --timeout 1200 bench/vm/gids-live.sh \
	> /tmp/bench-gids-live.out 2>&1
rc=$?
grep -h "^BENCH" build/vm/logs/bench-gids-live.single.out | sed 's/^BENCH //'
[ $rc -eq 0 ] || { echo "(the VM run failed; see build/vm/logs/bench-gids-live.*)"; tail -5 /tmp/bench-gids-live.out; }
exit 0
