#!/bin/bash
# rdma-top --textfile: a reader never sees a partial file.  rdma-top rewrites
# the file as fast as it can (-i 0) on a fixture whose values do not change,
# so every complete read is byte-identical to one --format node-exporter
# scrape; a reader polls it meanwhile.  As a control, the same reader watches
# a plain in-place rewrite (truncate + write in pieces) and must catch it
# half-written, which shows the reader can see what it looks for.
# Also: no temporary file is left, and the mode follows the umask.
# usage: tests/cli/top-textfile.sh BUILD FIXTURE
set -u
B=$1 fixture=$2
dir=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)   # tmpfs: the disk is not what is tested
trap 'rm -rf "$dir"' EXIT
"$B/rdma-top" --sysroot "$fixture" --format node-exporter > "$dir/want" || exit 1

# reader FILE SECONDS [SEEN]: reads FILE until SECONDS pass (or a STOP file
# appears; with SEEN: until the first partial read, which creates SEEN);
# prints "READS PARTIAL"
reader() {
	/usr/bin/python3 - "$1" "$2" "$dir/want" "$dir/STOP" "${3:-}" <<'PY'
import os, sys, time
path, secs, want, stop = sys.argv[1], float(sys.argv[2]), open(sys.argv[3], "rb").read(), sys.argv[4]
seen = sys.argv[5]
reads = partial = 0
end = time.monotonic() + secs
while time.monotonic() < end and not os.path.exists(stop):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        continue
    reads += 1
    partial += data != want
    if seen and partial:
        open(seen, "w").close()
        break
print(reads, partial)
PY
}

umask 027
"$B/rdma-top" --sysroot "$fixture" --textfile "$dir/rdma.prom" --once || exit 1
cmp -s "$dir/rdma.prom" "$dir/want" && echo "--once: the file is one scrape" || echo "--once: content differs"
echo "mode under umask 027: $(stat -c %a "$dir/rdma.prom")"

reader "$dir/rdma.prom" 60 > "$dir/r1" &
rp=$!
"$B/rdma-top" --sysroot "$fixture" --textfile "$dir/rdma.prom" -i 0 -n 500
echo "rdma-top --textfile -i 0 -n 500: exit $?"
touch "$dir/STOP"; wait $rp; rm -f "$dir/STOP"
read -r reads partial < "$dir/r1"
echo "reader during 500 rewrites: $partial partial reads, reads >= 50: $([ "$reads" -ge 50 ] && echo yes || echo "no ($reads)")"
left=$(cd "$dir" && ls -A | grep -v -x -e want -e rdma.prom -e r1)
echo "files left besides rdma.prom: ${left:-none}"

# Control: the same reader against an in-place rewrite, rewritten until the
# reader has caught one half-written (at most 60 s: a loaded machine may
# need many rewrites before a read lands inside one).
cp "$dir/want" "$dir/plain.prom"
reader "$dir/plain.prom" 60 "$dir/SEEN" > "$dir/r2" &
rp=$!
/usr/bin/python3 - "$dir/plain.prom" "$dir/want" "$dir/SEEN" <<'PY'
import os, sys, time
path, data, seen = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3]
end = time.monotonic() + 60
while not os.path.exists(seen) and time.monotonic() < end:
    with open(path, "wb", buffering=0) as f:
        for i in range(0, len(data), 512):
            f.write(data[i:i + 512])
PY
touch "$dir/STOP"; wait $rp
read -r reads partial < "$dir/r2"
echo "control (in-place rewrite): reader saw partial files: $([ "$partial" -gt 0 ] && echo yes || echo "no ($reads reads)")"
