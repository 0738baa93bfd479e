#!/bin/bash
# Valgrind tier: every CLI case (tests/cli/cases, tests/cli/cases.d/*.cases)
# again, each tool run under valgrind memcheck.  A case passes when
#   - tests/cli/run.sh passes it (stdout, stderr and exit status exactly as in
#     tests/cli/expected: valgrind writes only to its own log file), and
#   - every valgrind log of the case says: no memory error, no leak of any kind
#     (definite, indirect, possible, still reachable) outside the documented
#     library suppressions in tests/valgrind/rdma-diag.supp, and no file
#     descriptor open at exit that the tool did not inherit.
#
# usage: tests/valgrind/run.sh BUILD_DIR RESULT_FILE [CASE-NAME-PATTERN]
#   VG_JOBS=N            cases run in parallel (default: the number of CPUs)
#   VG_TRACK_ORIGINS=no  drop --track-origins=yes (faster)
#   VG_EXTRA_OPTS=...    more valgrind options
#   VG_KEEP=DIR          keep every case's valgrind logs in DIR
#
# How: BUILD_DIR/valgrind/bin holds one small script per tool that execs
# valgrind on the real BUILD_DIR/rdma-*, with its log in $VG_LOGDIR (one file
# per process); tests/cli/run.sh runs one case at a time with B= that
# directory and a fresh VG_LOGDIR, so the case files need no change.
#
# For tests/vm/t-valgrind.sh:
#   run.sh --wrappers BUILD_DIR BIN_DIR   only write the scripts, into BIN_DIR
#   run.sh --check-logs DIR               check the logs in DIR (status 0: clean)
set -u
tier_t0=$(date +%s)	# the tier's own time, on its result line and in RESULT_FILE
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
supp=$root/tests/valgrind/rdma-diag.supp

# Exit status of a tool in which valgrind found an error or a leak (the tools
# themselves use 0, 1 and 2).
VG_ERROR_EXIT=97

# Cases not run under valgrind, each with the reason printed.
declare -A SKIP=(
	[fault-closed-gids-compat]="stdout closed: valgrind's own files take fd 1, the tool then writes into them"
	[fault-closed-devinfo]="stdout closed: valgrind's own files take fd 1, the tool then writes into them"
	[fault-closed-help]="stdout closed: valgrind's own files take fd 1, the tool then writes into them"
	[parse-catches-prom]="runs no tool: canned text proves the metrics parser check can fail"
	[parse-catches-ne-lint]="runs no tool: canned text proves the metrics parser check can fail"
	[parse-catches-om]="runs no tool: canned text proves the metrics parser check can fail"
	[parse-catches-empty]="runs no tool: canned text proves the metrics parser check can fail"
	[schema-no-validator-fails]="runs no tool: the JSON Schema check without its validator must fail"
)
# bench/gpu-host-check.sh: its usage, and a host without nvidia-smi, end before it runs a tool.
SKIP[gpuhost-help]="runs no tool: bench/gpu-host-check.sh's usage"
SKIP[gpuhost-usage]="runs no tool: bench/gpu-host-check.sh's usage error"
SKIP[gpuhost-no-gpu]="runs no tool: without nvidia-smi, bench/gpu-host-check.sh says so before it runs one"
# The bench's shell helpers on canned figures run no tool either.
for c in put missing med round-ratio round-spread round-files op-lines op-lines-floor-na helpers-usage; do
	SKIP[bench-$c]="runs no tool: the bench's shell helpers on canned figures"
done

# write_wrappers BUILD_DIR BIN_DIR: BIN_DIR/rdma-* for BUILD_DIR/rdma-*
write_wrappers() {
	local build=$1 bin=$2 t vgbin opts
	vgbin=$(command -v valgrind) || { echo "valgrind is not installed (apt-get install valgrind)" >&2; return 1; }
	mkdir -p "$bin" || return 1
	opts="--tool=memcheck --error-exitcode=$VG_ERROR_EXIT --leak-check=full --show-leak-kinds=all"
	opts+=" --errors-for-leak-kinds=all --track-fds=yes --num-callers=40 --gen-suppressions=all"
	opts+=" --child-silent-after-fork=yes '--suppressions=$supp'"
	[ "${VG_TRACK_ORIGINS:-yes}" = no ] || opts+=" --track-origins=yes"
	opts+=${VG_EXTRA_OPTS:+ $VG_EXTRA_OPTS}
	for t in "$build"/rdma-*; do
		if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
		if grep -qa __asan_init "$t"; then
			echo "$t: built with ASan; valgrind needs a plain build" >&2
			return 1
		fi
		cat > "$bin/${t##*/}.tmp" <<-EOF
		#!/bin/sh
		# Written by tests/valgrind/run.sh: ${t##*/} under valgrind memcheck; the
		# report goes to \$VG_LOGDIR/<pid>.log, never to the tool's stdout/stderr.
		exec $vgbin $opts --log-file="\${VG_LOGDIR:?}/%p.log" "$(cd "$(dirname "$t")" && pwd -P)/${t##*/}" "\$@"
		EOF
		chmod +x "$bin/${t##*/}.tmp" && mv "$bin/${t##*/}.tmp" "$bin/${t##*/}" || return 1
	done
}

# check_logs DIR: every valgrind log in DIR is clean; prints what is not.
check_logs() {
	local dir=$1 log n=0 bad=0
	for log in "$dir"/*.log; do
		[ -f "$log" ] || continue
		n=$((n + 1))
		# fd blocks: "Open file descriptor 5: /x" (or "Open AF_UNIX socket 5: ..."),
		# then "<inherited from parent>" or the stack of the call that opened it.
		local fdleaks
		fdleaks=$(sed -E 's/^==[0-9]+== ?//' "$log" | awk '
			/^Open .*[0-9]+:/ { hdr = $0; getline; if ($0 !~ /<inherited from parent>/) { print hdr; print "   " $0; getline; print "   " $0 } }')
		if ! grep -q 'ERROR SUMMARY: 0 errors' "$log" || ! grep -q 'FILE DESCRIPTORS:' "$log" || [ -n "$fdleaks" ]; then
			bad=$((bad + 1))
			echo "valgrind: $(sed -n 's/^==[0-9]*== Command: //p' "$log" | head -1)"
			if ! grep -q 'ERROR SUMMARY:' "$log"; then
				echo "  no ERROR SUMMARY: the process did not run to its end (killed?)"
			fi
			[ -z "$fdleaks" ] || printf '  file descriptors open at exit:\n%s\n' "  ${fdleaks//$'\n'/$'\n'  }"
			# the errors and leak records, without the suppression templates
			sed -E 's/^==[0-9]+== ?//' "$log" | awk '
				/^\{$/ { skip = 1 } skip && /^\}$/ { skip = 0; next } skip { next }
				/^(Memcheck|Copyright|Using Valgrind|Command:|Parent PID:)/ { next }
				{ print }' | grep -v '^$' | head -60 | sed 's/^/  | /'
		fi
	done
	if [ "$n" = 0 ]; then
		echo "no valgrind log: the case ran no tool from \$B"
		return 1
	fi
	[ "$bad" = 0 ]
}

# one NAME: run case NAME; writes $tmp/NAME/res (1: passed) and txt (why not)
one() {
	local name=$1 d=$tmp/$1 ok=1
	mkdir -p "$d/logs"
	# CLI_SCHEMA=no: the output is the CLI tier's (compared exactly), whose
	# schema check already held it to the schemas
	if ! VG_LOGDIR=$d/logs UPDATE='' CLI_SCHEMA=no NVDIR=$build/nvml tests/cli/run.sh "$vgdir" "$d/result" "$name" > "$d/cli" 2>&1; then
		ok=0
		grep -v '^cli.*passed, .* failed$' "$d/cli" | head -25 >> "$d/txt"
	fi
	if ! check_logs "$d/logs" >> "$d/txt" 2>&1; then
		ok=0
	fi
	if [ -n "${VG_KEEP:-}" ]; then
		mkdir -p "$VG_KEEP/$name" && cp "$d"/logs/*.log "$VG_KEEP/$name/" 2> /dev/null
	fi
	echo "$ok" > "$d/res"
}

case ${1:-} in
--wrappers) write_wrappers "$2" "$3"; exit ;;
--check-logs) check_logs "$2"; exit ;;
esac

build=$1 result=$2 pattern=${3:-}
case $build in /*) ;; *) build=$root/$build ;; esac
build=${build#"$root/"}	# relative, like the CLI tier's B (stable paths in messages)
vgdir=$build/valgrind/bin
if ! write_wrappers "$build" "$vgdir"; then
	mkdir -p "$(dirname "$result")" && echo "0 1" > "$result"
	echo "valgrind: could not set up the tier (counted as a failure)"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rd-valgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case $tmp in /*) ;; *) tmp=$root/$tmp ;; esac
jobs=${VG_JOBS:-$(nproc 2> /dev/null || echo 2)}

names=()
declare -A seen=()
while IFS='|' read -r name _; do
	name=${name//[[:space:]]/}
	case $name in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2254 # a glob, as in tests/cli/run.sh
	[ -n "$pattern" ] && case $name in $pattern) ;; *) continue ;; esac
	[ -n "${seen[$name]:-}" ] && continue
	seen[$name]=1
	names+=("$name")
done < <(cat tests/cli/cases tests/cli/cases.d/*.cases 2> /dev/null)

start=$SECONDS
# tests/cli/badinput-gen.sh makes its tree under $B on first use: once here,
# not in two parallel cases at a time.
if [ -x tests/cli/badinput-gen.sh ]; then
	mkdir -p "$tmp/warmup"
	VG_LOGDIR=$tmp/warmup tests/cli/badinput-gen.sh "$vgdir" rdma-devinfo --help > /dev/null 2>&1
fi
running=0
for name in "${names[@]}"; do
	[ -n "${SKIP[$name]:-}" ] && continue
	# run.sh's pattern is a glob: a name it would not match exactly is not run
	case $name in *[][*?]*) continue ;; esac
	one "$name" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

pass=0 fail=0 skip=0
for name in "${names[@]}"; do
	if [ -n "${SKIP[$name]:-}" ]; then
		echo "SKIP: $name: ${SKIP[$name]}"
		skip=$((skip + 1))
	elif [ ! -f "$tmp/$name/res" ]; then
		echo "FAIL: $name: not run (its name is not a plain word)"
		fail=$((fail + 1))
	elif [ "$(cat "$tmp/$name/res")" = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name"
		sed 's/^/  /' "$tmp/$name/txt"
	fi
done

mkdir -p "$(dirname "$result")"
tier_secs=$(( $(date +%s) - tier_t0 ))
[ -z "$pattern" ] || FLOOR_EXEMPT=1
. tests/tier-result.sh
tier_result "$result" "$pass" "$fail" "$tier_secs" "$skip"
fail=$tier_failed
echo "valgrind: $pass passed, $fail failed, $skip skipped ($((SECONDS - start)) s, $jobs jobs)"
[ "$fail" -eq 0 ]
