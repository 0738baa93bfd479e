#!/bin/bash
# Fabric tier: scenarios on a simulated InfiniBand fabric (ibsim + a real
# OpenSM), infiniband-diags as the oracle. See tests/fabric/README.md.
#
# usage: tests/fabric/run.sh BUILD_DIR RESULT_FILE [SCENARIO...]
#   SCENARIO: tests/fabric/t-NAME.sh, t-NAME or NAME (default: every
#   tests/fabric/t-*.sh). Each runs in its own directory BUILD_DIR/fabric/
#   NAME.XXXXXX (kept when it fails or with FABRIC_KEEP=1) with its own ibsim
#   socket, so scenarios can run side by side: FABRIC_JOBS=N runs N at a time
#   (default 1, one after another). FABRIC_TIMEOUT: seconds per scenario
#   (default 600).
# Prints each scenario's "ok"/"FAIL" lines and a line per scenario, then
# "fabric: N passed, N failed (S s)"; writes "PASSED FAILED SECONDS" into
# RESULT_FILE; exits non-zero on any failure. Nothing a scenario started may
# outlive it: the runner checks (by the pids the harness recorded and by
# pgrep with the scenario's IBSIM_SOCKNAME), counts a failure and ends them.
set -u
tier_t0=$(date +%s)
cd "$(dirname "$0")/../.." || exit 1
[ $# -ge 2 ] || { echo "usage: tests/fabric/run.sh BUILD_DIR RESULT_FILE [SCENARIO...]" >&2; exit 2; }
build=$1 result=$2
shift 2
RD_ROOT=$(pwd -P)
mkdir -p "$build/fabric" || exit 1
build_abs=$(cd "$build" && pwd -P)
jobs=${FABRIC_JOBS:-1}
export LC_ALL=C TZ=UTC
pass=0 fail=0

finish() {
	local secs=$(( $(date +%s) - tier_t0 ))
	mkdir -p "$(dirname "$result")"
	. tests/tier-result.sh
	tier_result "$result" "$pass" "$fail" "$secs"
	fail=$tier_failed
	echo "fabric: $pass passed, $fail failed ($secs s)"
	[ "$fail" -eq 0 ]
	exit
}

# The tools the tier needs, and the packages that have them.
missing=""
for t in ibsim:ibsim-utils ibsim-run:ibsim-utils opensm:opensm iblinkinfo:infiniband-diags \
	ibnetdiscover:infiniband-diags perfquery:infiniband-diags sminfo:infiniband-diags \
	saquery:infiniband-diags timeout:coreutils dot:graphviz jq:jq chromium:chromium; do
	command -v "${t%%:*}" > /dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "${t%%:*}" > /dev/null 2>&1 ||
		missing="$missing ${t%%:*} (${t#*:})"
done
/usr/bin/python3 -c 'import PIL' 2> /dev/null || missing="$missing /usr/bin/python3's PIL (python3-pil)"
if [ -n "$missing" ]; then
	echo "FAIL - fabric tier: missing:$missing"
	fail=1
	finish
fi
export PATH=$PATH:/usr/sbin

scenarios=()
if [ $# -gt 0 ]; then
	FLOOR_EXEMPT=1	# named scenarios: a subset, held to at least one check
	for s in "$@"; do
		case $s in */*) ;; t-*) s=tests/fabric/$s ;; *) s=tests/fabric/t-$s ;; esac
		case $s in *.sh) ;; *) s=$s.sh ;; esac
		[ -f "$s" ] || { echo "FAIL - no scenario $s"; fail=$((fail + 1)); continue; }
		scenarios+=("$s")
	done
else
	for s in tests/fabric/t-*.sh; do [ -f "$s" ] && scenarios+=("$s"); done
fi
[ ${#scenarios[@]} -gt 0 ] || { echo "FAIL - no fabric scenario"; fail=$((fail + 1)); finish; }

# Everything a scenario's fabrics started that still runs: "pid comm" lines.
leftovers() {
	local dir=$1 f p sock
	while IFS= read -r f; do
		while read -r p; do
			[ -r "/proc/$p/stat" ] || continue
			[ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" != Z ] || continue
			echo "$p $(cat "/proc/$p/comm" 2>/dev/null)"
		done < "$f"
	done < <(find "$dir" -name sim.pids 2>/dev/null)
	while IFS= read -r f; do
		sock=$(cat "$f")
		for p in $(pgrep -x ibsim) $(pgrep -x opensm); do
			tr '\0' '\n' 2>/dev/null < "/proc/$p/environ" | grep -qxF "IBSIM_SOCKNAME=$sock" &&
				echo "$p $(cat "/proc/$p/comm" 2>/dev/null)"
		done
	done < <(find "$dir" -name sim.sock 2>/dev/null)
}

# End the leftovers of a scenario: OpenSM with SIGINT first (it hangs on
# SIGTERM and must go before ibsim), then SIGTERM, then SIGKILL.
reap() {
	local dir=$1 sig p comm i
	for sig in INT TERM KILL; do
		while read -r p comm; do
			[ "$sig" != INT ] || [ "$comm" = opensm ] || continue
			kill "-$sig" "$p" 2>/dev/null
		done < <(leftovers "$dir" | sort -u)
		for ((i = 0; i < 50; i++)); do
			[ -z "$(leftovers "$dir")" ] && return 0
			sleep 0.1
		done
	done
}

# one I SCENARIO: run it into its directory; its results into $dir/res.
one() {
	local s=$2 name dir rc t0 ok bad left
	name=$(basename "$s" .sh)
	dir=$(mktemp -d "$build_abs/fabric/$name.XXXXXX") || return 1
	echo "$dir" > "$tmp/$1.dir"
	t0=$(date +%s)
	# timeout signals the scenario's whole process group (its ibsim and
	# OpenSM too); a subshell, so that the shell's "Killed" goes to the output.
	local -a env=(RD_ROOT="$RD_ROOT" FABRIC_BUILD="$build_abs" FABRIC_DIR="$dir"
		FABRIC_SEGV_REPORT="$segv_report")
	if [ -n "$san_bin" ]; then
		mkdir -p "$dir/san"
		env=(RD_ROOT="$RD_ROOT" FABRIC_BUILD="$san_bin" FABRIC_DIR="$dir"
			ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:abort_on_error=0:exitcode=99:log_path=$dir/san/asan:suppressions=$RD_ROOT/tests/fabric/asan.supp"
			LSAN_OPTIONS="suppressions=$RD_ROOT/tests/fabric/lsan.supp:print_suppressions=0"
			UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98:log_path=$dir/san/ubsan")
	fi
	(env "${env[@]}" timeout -k 10 "${FABRIC_TIMEOUT:-600}" bash "$s" < /dev/null) > "$dir/output" 2>&1
	rc=$?
	ok=$(grep -c '^ok - ' "$dir/output")
	bad=$(grep -c '^FAIL - ' "$dir/output")
	{
		cat "$dir/output"
		for f in "$dir"/san/*; do
			[ -s "$f" ] || continue
			echo "FAIL - $name: sanitizer report ${f##*/}"
			head -n 40 "$f" | sed 's/^/    | /'
			bad=$((bad + 1))
		done
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			echo "FAIL - $name: timed out after ${FABRIC_TIMEOUT:-600} s"
			bad=$((bad + 1))
		elif [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
			echo "FAIL - $name: exit status $rc before its checks failed"
			bad=$((bad + 1))
		fi
		if [ "$ok" = 0 ] && [ "$bad" = 0 ]; then
			echo "FAIL - $name: no check ran"
			bad=1
		fi
		left=$(leftovers "$dir" | sort -u)
		if [ -n "$left" ]; then
			echo "FAIL - $name: left running: $(echo "$left" | paste -sd, -)"
			bad=$((bad + 1))
			reap "$dir"
		fi
		echo "$name: $ok passed, $bad failed ($(( $(date +%s) - t0 )) s)"
	} > "$tmp/$1.report"
	echo "$ok $bad" > "$tmp/$1.res"
	if [ "$bad" = 0 ] && [ "${FABRIC_KEEP:-0}" != 1 ]; then
		rm -rf "$dir"
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# segv-report.so: preloaded by sim_run (build without sanitizers), so that a
# crash says which thread faulted and where (sim.sh, umad2sim's reader).
segv_report=$build_abs/fabric/segv-report.so
if ! ${CC:-cc} -shared -fPIC -O1 -Wall -Werror -o "$segv_report" tests/fabric/segv-report.c; then
	echo "FAIL - fabric tier: cannot build tests/fabric/segv-report.c"
	fail=$((fail + 1))
	finish
fi

# A sanitizer build (make SAN=1 BUILD=build/san check-fabric): ASan's runtime
# must come first in the preload list, before umad2sim (ibsim-run puts
# umad2sim alone there, and ASan refuses to start). The scenarios run
# "$B/rdma-fabric" with B=FABRIC_BUILD: in this mode B is a directory whose
# rdma-fabric sets that order and runs the real one. Every report goes to
# the scenario's directory (log_path), so one is counted as a failure even
# where a check looks only at the output.
san_bin=""
asan_lib=$(ldd "$build_abs/rdma-fabric" 2>/dev/null | awk '$1 ~ /^libasan/ { print $3; exit }')
if [ -n "$asan_lib" ]; then
	umad2sim=$(sed -n 's/^sim_so=//p' "$(command -v ibsim-run)")
	[ -f "$umad2sim" ] || { echo "FAIL - fabric tier: umad2sim not found (ibsim-run's sim_so)"; fail=1; finish; }
	san_bin=$tmp/sanbin
	mkdir -p "$san_bin"
	printf '#!/bin/sh\nLD_PRELOAD=%s:%s exec %s "$@"\n' "$asan_lib" "$umad2sim" \
		"$build_abs/rdma-fabric" > "$san_bin/rdma-fabric"
	chmod +x "$san_bin/rdma-fabric"
	# the other tools a scenario runs need ASan first too (under ibsim-run,
	# umad2sim is preloaded), and nothing else; rdma-fleet mallocs a json-c
	# object per table entry, so its stacks are taken the fast way (frame
	# pointers: the sanitizer build keeps them)
	# shellcheck disable=SC2016  # $ASAN_OPTIONS and "$@" are the wrapper's, at its run
	printf '#!/bin/sh\nASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=1" LD_PRELOAD=%s exec %s "$@"\n' \
		"$asan_lib" "$build_abs/rdma-fleet" > "$san_bin/rdma-fleet"
	chmod +x "$san_bin/rdma-fleet"
	echo "# sanitizer build: rdma-fabric runs with LD_PRELOAD=$asan_lib:$umad2sim"
	# The wrapper must really start ASan (verbosity=1: its start-up lines).
	if ASAN_OPTIONS=verbosity=1 "$san_bin/rdma-fabric" --version 2>&1 | grep -q 'AddressSanitizer'; then
		echo "ok - sanitizer build: ASan starts in rdma-fabric under the umad2sim preload"
		pass=$((pass + 1))
	else
		echo "FAIL - sanitizer build: ASan did not start in $san_bin/rdma-fabric"
		fail=$((fail + 1))
	fi
fi
running=0
for i in "${!scenarios[@]}"; do
	if [ "$jobs" -le 1 ]; then
		one "$i" "${scenarios[i]}"
		cat "$tmp/$i.report"
		continue
	fi
	one "$i" "${scenarios[i]}" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
for i in "${!scenarios[@]}"; do
	[ "$jobs" -le 1 ] || cat "$tmp/$i.report" 2>/dev/null
	if read -r p x < "$tmp/$i.res" 2>/dev/null; then
		pass=$((pass + p)) fail=$((fail + x))
	else
		echo "FAIL - ${scenarios[i]}: no result"
		fail=$((fail + 1))
	fi
	if [ -f "$tmp/$i.dir" ] && [ -d "$(cat "$tmp/$i.dir")" ]; then
		echo "  (logs: $(cat "$tmp/$i.dir"))"
	fi
done
finish
