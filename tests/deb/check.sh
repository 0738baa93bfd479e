#!/bin/bash
# Debian package tier: `make deb` builds the package (from a copy of the
# tree), lintian finds nothing (errors, warnings, and pedantic/info tags
# too, overrides shown), the .deb holds every tool, man page and completion
# at Debian's paths, its relations are the ones debian/control promises,
# and every binary is hardened.  Prints the time each step took.
# usage: tests/deb/check.sh RESULT_FILE
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
result=$1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
	mkdir -p "$(dirname "$result")"
	tier_secs=$(( $(date +%s) - tier_t0 ))
	. tests/tier-result.sh
	tier_result "$result" "$pass" "$fail" "$tier_secs"
	fail=$tier_failed
	echo "deb: $pass passed, $fail failed (${tier_secs} s)"
	[ "$fail" -eq 0 ]
	exit
}

t0=$SECONDS
deb=build/rdma-diag_$(cat VERSION)_$(dpkg --print-architecture).deb
# (make deb rebuilds only when a source is newer than the .deb)
if out=$(make --no-print-directory -s deb 2>&1) && [ -f "$deb" ]; then
	ok
else
	bad "make deb: $out"
	finish
fi
t_build=$((SECONDS - t0))
changes=${deb%.deb}.changes

t0=$SECONDS
tags=$(lintian -I -E --pedantic --fail-on error,warning,info,pedantic "$changes" 2>&1)
rc=$?
tags=$(grep -v '^running with root privileges' <<< "$tags")
if [ $rc -eq 0 ] && [ -z "$tags" ]; then ok; else bad "lintian (exit $rc): $tags"; fi
t_lintian=$((SECONDS - t0))

files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
missing=
for t in tools/rdma-*/; do
	t=$(basename "$t")
	for f in /usr/bin/$t /usr/share/man/man1/$t.1.gz /usr/share/bash-completion/completions/$t \
		/usr/share/zsh/vendor-completions/_$t /usr/share/rdma-diag/schemas/$t.schema.json; do
		grep -qx "$f" <<< "$files" || missing="$missing $f"
	done
done
for f in /usr/share/doc/rdma-diag/copyright /usr/share/doc/rdma-diag/changelog.gz \
	/usr/share/man/man7/rdma-diag.7.gz /usr/share/rdma-diag/monitoring/rdma-diag.rules.yml \
	/usr/share/rdma-diag/monitoring/grafana/rdma-diag.json /usr/share/rdma-diag/monitoring/tests/rdma-diag.test.yml \
	/lib/systemd/system/rdma-top-textfile.service /lib/systemd/system/rdma-top-textfile.timer \
	/lib/systemd/system/rdma-fabric-metrics.service /lib/systemd/system/rdma-fabric-metrics.timer; do
	grep -qx "$f" <<< "$files" || missing="$missing $f"
done
# The README (compressed when large, as Debian does) and every example.
grep -Eqx '/usr/share/doc/rdma-diag/README\.md(\.gz)?' <<< "$files" || missing="$missing /usr/share/doc/rdma-diag/README.md"
for f in examples/*; do
	grep -Eqx "/usr/share/doc/rdma-diag/$f(\.gz)?" <<< "$files" || missing="$missing /usr/share/doc/rdma-diag/$f"
done
if [ -z "$missing" ]; then ok; else bad "the .deb lacks:$missing"; fi
stray=$(grep -v '/$' <<< "$files" | grep -Ev '^/usr/(bin|share/(man/man[17]|bash-completion/completions|zsh/vendor-completions|doc/rdma-diag(/examples)?|lintian/overrides|rdma-diag/schemas))/[^/]+$' |
	grep -Ev '^(/usr/share/rdma-diag/monitoring/((tests|grafana)/)?[^/]+|/lib/systemd/system/rdma-[a-z-]+\.(service|timer))$')
if [ -z "$stray" ]; then ok; else bad "files outside the expected paths: $stray"; fi

depends=$(dpkg-deb -f "$deb" Depends) recommends=$(dpkg-deb -f "$deb" Recommends)
for lib in libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libjson-c5 libsmartcols1 libc6; do
	grep -q "\\b$lib\\b" <<< "$depends" || bad "Depends lacks $lib (shlibs): $depends"
done
grep -q "\\blibncursesw6\\b\\|\\blibtinfo6\\b" <<< "$depends" || bad "Depends lacks ncurses (shlibs): $depends"
[ "$recommends" = ibverbs-providers ] && ok || bad "Recommends: '$recommends'"
[ "$(dpkg-deb -f "$deb" Section)" = net ] && ok || bad "Section: $(dpkg-deb -f "$deb" Section)"

x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
for b in "$x"/usr/bin/*; do
	# PIE, stack protector, fortify, RELRO, BIND_NOW: hardening=+all.  Not
	# -fcf-protection: bookworm's dpkg-buildflags (1.21) does not add it.
	if out=$(hardening-check -q --nocfprotection "$b" 2>&1); then ok; else bad "hardening-check ${b##*/}: $out"; fi
done
echo "deb: build ${t_build} s, lintian ${t_lintian} s ($(stat -c %s "$deb") bytes)"
finish
