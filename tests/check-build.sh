#!/bin/bash
# Build tier: the tree, and the bench's programs (bench/*.c), build
# warning-free (-Werror) with gcc and clang, and
# make install / uninstall put and remove exactly the expected files.
# usage: tests/check-build.sh RESULT_FILE
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/.." || exit 1
result=$1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for cc in gcc clang; do
	if ! command -v "$cc" > /dev/null; then
		bad "$cc not installed"
		continue
	fi
	if out=$(make --no-print-directory -s CC=$cc BUILD=build/cc-$cc all bench-build 2>&1); then
		ok
	else
		bad "build with $cc"
		printf '%s\n' "$out" | tail -20
	fi
done

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
if make --no-print-directory -s install DESTDIR="$dest" PREFIX=/usr/local > /dev/null 2>&1; then
	missing=
	for t in tools/rdma-*/; do
		t=$(basename "$t")
		for f in bin/$t share/man/man1/$t.1 share/bash-completion/completions/$t \
			share/zsh/site-functions/_$t share/rdma-diag/schemas/$t.schema.json; do
			[ -e "$dest/usr/local/$f" ] || missing="$missing $f"
		done
		[ -x "$dest/usr/local/bin/$t" ] || missing="$missing (bin/$t not executable)"
	done
	for f in share/rdma-diag/monitoring/rdma-diag.rules.yml share/rdma-diag/monitoring/grafana/rdma-diag.json \
		share/rdma-diag/monitoring/tests/rdma-diag.test.yml lib/systemd/system/rdma-top-textfile.service \
		lib/systemd/system/rdma-top-textfile.timer lib/systemd/system/rdma-fabric-metrics.service \
		lib/systemd/system/rdma-fabric-metrics.timer; do
		[ -e "$dest/usr/local/$f" ] || missing="$missing $f"
	done
	# the units run the tools where they were installed
	grep -q '^ExecStart=/usr/local/bin/rdma-top ' "$dest/usr/local/lib/systemd/system/rdma-top-textfile.service" 2>/dev/null ||
		missing="$missing (rdma-top-textfile.service: ExecStart not /usr/local/bin/rdma-top)"
	if [ -z "$missing" ]; then ok; else bad "make install: missing$missing"; fi
	make --no-print-directory -s uninstall DESTDIR="$dest" PREFIX=/usr/local > /dev/null 2>&1
	left=$(find "$dest" -type f | sed "s|^$dest||")
	if [ -z "$left" ]; then ok; else bad "make uninstall left: $left"; fi
else
	bad "make install failed"
fi

mkdir -p "$(dirname "$result")"
tier_secs=$(( $(date +%s) - tier_t0 ))
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs"
fail=$tier_failed
echo "build: $pass passed, $fail failed (${tier_secs} s)"
[ "$fail" -eq 0 ]
