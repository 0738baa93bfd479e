#!/bin/bash
# Bench, one VM: rdma-gids live on rxe0 with a full GID table, the verbs path
# (ibv_query_gid_table(), one call per device) against the sysfs path
# (RDMA_GIDS_SOURCE=sysfs) and against the file floor (bench/gid-floor.c on /),
# paired round by round; prints BENCH lines with medians and the median paired ratios.
. "$RD_ROOT/tests/vm/lib.sh"
. "$RD_ROOT/bench/vm/lib.sh"
set -u
NET=${VM_NETDEV:-eth0}
ROUNDS=${BENCH_ROUNDS:-15}
G=$RD_ROOT/build/rdma-gids
FLOOR=$BENCH_BIN/gid-floor
RT=$BENCH_BIN/runtime

# 600 IPv4 + 300 IPv6 addresses: ~900 of rxe's 1024 GID slots used
for i in $(seq 1 600); do echo "addr add 10.77.$((i / 250)).$((i % 250 + 1))/16 dev $NET"; done > /tmp/addrs
for i in $(seq 1 300); do echo "addr add 2001:db8:77::$i/64 dev $NET nodad"; done >> /tmp/addrs
ip -batch /tmp/addrs
count() { "$G" -d "$DEV" -j | jq length; }
full() { [ "$(count)" -ge 880 ]; }
vm_retry 180 full
n=$(count)
echo "BENCH table: $n GIDs on $DEV ($("$FLOOR" /))"

: > /tmp/t-live; : > /tmp/t-sysfs; : > /tmp/t-floor
"$RT" "$G" -d "$DEV" >/dev/null; "$RT" env RDMA_GIDS_SOURCE=sysfs "$G" -d "$DEV" >/dev/null
for _ in $(seq "$ROUNDS"); do
	"$RT" "$FLOOR" / | awk '{print $1}' >> /tmp/t-floor
	"$RT" "$G" -d "$DEV" | awk '{print $1}' >> /tmp/t-live
	RDMA_GIDS_SOURCE=sysfs "$RT" "$G" -d "$DEV" | awk '{print $1}' >> /tmp/t-sysfs
done
med() { bench_med < "$1"; }
pair() { paste "$1" "$2" | awk '{print $1 / $2}' | bench_med; }
echo "BENCH rounds=$ROUNDS (paired: floor, live, sysfs each round), wall us medians:" \
	"floor $(med /tmp/t-floor) live $(med /tmp/t-live) sysfs $(med /tmp/t-sysfs)"
printf 'BENCH live/sysfs median paired ratio %.2f (goal < 1)\n' "$(pair /tmp/t-live /tmp/t-sysfs)"
printf 'BENCH live/floor median paired ratio %.2f (goal < 1: faster than reading the files)\n' \
	"$(pair /tmp/t-live /tmp/t-floor)"
printf 'BENCH sysfs/floor median paired ratio %.2f\n' "$(pair /tmp/t-sysfs /tmp/t-floor)"
vm_check "bench ran ($n GIDs)" test "$n" -ge 200
