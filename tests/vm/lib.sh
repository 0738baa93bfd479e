# shellcheck shell=bash
# lib.sh -- helpers for VM scenario scripts (source it; scripts run with bash).
#
#   . "$RD_ROOT/tests/vm/lib.sh"
#
# Results are lines "@@VM PASS: name", "@@VM FAIL: name", "@@VM SKIP: name"
# that run.sh counts. The helpers return 0/1 like the check they ran, so do
# not run scenarios under `set -e` (one failed check would end the script;
# `set -u` is fine).
#
# Environment given to scenarios (by tests/vm/guest.sh):
#   RD_ROOT      repository root (same absolute path as on the host; cwd)
#   VM_MODE      single | pair | nodes
#   VM_ROLE      single | a | b | vm1..vmN (nodes mode)
#   VM_IP        10.10.0.1 (single, a) or 10.10.0.2 (b), on eth0;
#                10.10.0.I for vmI in nodes mode
#   VM_NODE, VM_NODES  nodes mode: this VM's number I and N
#   PEER_IP      the other VM's address (pair mode only)
#   VM_PEER_ROLE a | b (pair mode only)
#   VM_NETDEV    eth0          VM_RDMA_DEV  rxe0
#   VM_SCRATCH   fresh per-run directory shared by the VMs and the host
#   VM_SIG_DIR   where vm_signal/vm_wait/vm_put/vm_get keep their files
#                (one per script index, so flags never leak between scripts)
#   VM_SCRIPT    absolute path of the running scenario, VM_INDEX its number

_VM_MARK="@@VM"

# vm_log MSG... -- an informational line (not a result).
vm_log() { echo "# $*"; }

# Print a command's captured output, indented, after a FAIL line.
_vm_detail() { # file
    [ -s "$1" ] || return 0
    if [ "$(wc -l <"$1")" -gt 60 ]; then
        echo "    | ... (last 60 of $(wc -l <"$1") lines)"
    fi
    tail -n 60 "$1" | sed 's/^/    | /'
}

# vm_pass NAME / vm_fail NAME [MESSAGE...] -- record a result directly.
vm_pass() { echo "$_VM_MARK PASS: $1"; }
vm_fail() {
    local name=$1; shift
    echo "$_VM_MARK FAIL: $name"
    [ $# -eq 0 ] || echo "    | $*"
    return 1
}

# vm_skip NAME REASON -- record a skipped check (counted separately).
vm_skip() { echo "$_VM_MARK SKIP: $1 (${2:-no reason given})"; }

# Run "$@" with output captured in a file named in _vm_out (no forks but
# the command's own: each fork+exec costs ~50 ms under TCG). Sets _vm_rc.
_vm_depth=0
# The command runs with stdin from /dev/null: a check reads its input from a
# file, never from a here-string given to vm_check (jq -e on no input exits 0).
_vm_capture() {
    _vm_depth=$((_vm_depth + 1))
    _vm_out=/tmp/.vm-check.$BASHPID.$_vm_depth
    local out=$_vm_out
    _vm_rc=0
    "$@" >"$out" 2>&1 </dev/null || _vm_rc=$?
    _vm_out=$out
    _vm_depth=$((_vm_depth - 1))
}

# vm_check NAME CMD [ARG...] -- run CMD (a command or shell function, in the
# current shell); PASS if it exits 0, else FAIL plus its output and status.
# With VM_VERBOSE=1 the output is shown on success too. There is no
# per-check time limit: wrap commands that could hang in timeout(1).
vm_check() {
    local name=$1; shift
    _vm_capture "$@"
    if [ "$_vm_rc" -eq 0 ]; then
        vm_pass "$name"
        [ "${VM_VERBOSE:-0}" != 1 ] || _vm_detail "$_vm_out"
        return 0
    fi
    echo "$_VM_MARK FAIL: $name"
    echo "    | command: $*"
    echo "    | exit status: $_vm_rc"
    _vm_detail "$_vm_out"
    return 1
}

# vm_check_fails NAME CMD [ARG...] -- PASS if CMD exits non-zero.
vm_check_fails() {
    local name=$1; shift
    _vm_capture "$@"
    if [ "$_vm_rc" -ne 0 ]; then
        vm_pass "$name"
        return 0
    fi
    echo "$_VM_MARK FAIL: $name"
    echo "    | command unexpectedly succeeded: $*"
    _vm_detail "$_vm_out"
    return 1
}

# vm_check_output NAME ERE CMD [ARG...] -- PASS if CMD exits 0 and a line of
# its output (stdout+stderr) matches the extended regular expression ERE.
vm_check_output() {
    local name=$1 re=$2; shift 2
    _vm_capture "$@"
    if [ "$_vm_rc" -eq 0 ] && grep -Eq -- "$re" "$_vm_out"; then
        vm_pass "$name"
        [ "${VM_VERBOSE:-0}" != 1 ] || _vm_detail "$_vm_out"
        return 0
    fi
    echo "$_VM_MARK FAIL: $name"
    echo "    | command: $*"
    if [ "$_vm_rc" -ne 0 ]; then
        echo "    | exit status: $_vm_rc"
    else
        echo "    | output does not match: $re"
    fi
    _vm_detail "$_vm_out"
    return 1
}

# vm_check_exit NAME RC ERE CMD [ARG...] -- PASS if CMD exits with status RC
# and a line of its output (stdout+stderr) matches ERE.
vm_check_exit() {
    local name=$1 want=$2 re=$3; shift 3
    _vm_capture "$@"
    if [ "$_vm_rc" = "$want" ] && grep -Eq -- "$re" "$_vm_out"; then
        vm_pass "$name"
        return 0
    fi
    vm_fail "$name" "$* exited $_vm_rc (want $want); want a line matching: $re"
    _vm_detail "$_vm_out"
    return 1
}

# ---- the JSON only a kernel gives (live verbs, moving counters, async
# events, a link taken down), held to the tools' schemas like the CLI tier's.
# vm_schema TOOL FILE...: queue what TOOL printed with -j (a document, or JSON
# lines: only the lines already ended are taken, a live watcher may be
# writing); vm_schema_check: one check, every document this scenario queued
# valid against schemas/TOOL.schema.json (tests/cli/schema-check.py).
_vm_schema_n=0
vm_schema() {
    local tool=$1 f copy; shift
    mkdir -p /tmp/vm-schema || return 1
    for f; do
        _vm_schema_n=$((_vm_schema_n + 1))
        copy=/tmp/vm-schema/$_vm_schema_n.$tool.json
        head -n "$(wc -l < "$f")" "$f" > "$copy" || return 1
        printf '%s\t%s\t%s\n' "${0##*/}" "$tool" "$copy" >> /tmp/vm-schema/list
    done
}
vm_schema_check() {
    local n
    n=$(grep -c . /tmp/vm-schema/list 2> /dev/null)
    vm_check "the ${n:-0} -j documents queued here hold to their schemas" \
        _vm_schema_run "${n:-0}"
    rm -rf /tmp/vm-schema
    _vm_schema_n=0
}
_vm_schema_run() {
    [ "$1" -gt 0 ] || { echo "no document was queued (vm_schema)"; return 1; }
    /usr/bin/python3 "$RD_ROOT/tests/cli/schema-check.py" "$RD_ROOT/schemas" /tmp/vm-schema/list
}

# vm_json FILE -- FILE holds one JSON document, an object or an array (jq -e
# on an empty file passes with jq 1.6: the size is checked first).
vm_json() {
    [ -s "$1" ] || { echo "$1: empty"; return 1; }
    jq -e 'type == "object" or type == "array"' "$1" > /dev/null
}

# vm_check_eq NAME EXPECTED ACTUAL [SHOW...] -- string comparison.  On a
# failure each SHOW is printed after the two values: a FILE (its last 60
# lines), or @VAR (a variable's value): the output of the command whose
# status or result was compared, so a failed check always shows why.
vm_check_eq() {
    local name=$1 want=$2 got=$3 s v
    if [ "$want" = "$got" ]; then
        vm_pass "$name"
        return 0
    fi
    echo "$_VM_MARK FAIL: $name"
    echo "    | expected: '$want'"
    echo "    | actual:   '$got'"
    shift 3
    for s in "$@"; do
        case $s in
        @*) v=${s#@}; echo "    | $v:"; printf '%s\n' "${!v}" | tail -n 60 | sed 's/^/    | /' ;;
        *) echo "    | $s:"; _vm_detail "$s" ;;
        esac
    done
    return 1
}

# rdma-selftest --server logs one line per client event.  A session opens
# with "verbs client A: DEV port N GID ..." or "rdma_cm client A: connected
# on ..."; every other line about a client closes one (done, session failed,
# rejected, dropped, ...), but the counters line that may follow "done".
# Scenarios that wait for the end of a session (bench/vm/selftest-a.sh) or
# count the ends (p-stress-a.sh) go by this rule, not by the closing texts;
# p-stress-a.sh checks the rule on a log with every kind of end.
VM_ST_CLIENT_RE='(verbs|rdma_cm) client'
VM_ST_OPEN_RE='(verbs client [^ ]+: [^ ]+ port [0-9]+ GID |rdma_cm client [^ ]+: connected on )'
VM_ST_CTR_RE=': counters: '
# vm_st_closes LINE -- does this line of the server's log close a session?
vm_st_closes() {
    [[ $1 =~ $VM_ST_CLIENT_RE ]] && ! [[ $1 =~ $VM_ST_OPEN_RE ]] && ! [[ $1 =~ $VM_ST_CTR_RE ]]
}
# vm_st_closing -- the lines of a server log on stdin that close a session.
vm_st_closing() { grep -E "$VM_ST_CLIENT_RE" | grep -vE "$VM_ST_OPEN_RE|$VM_ST_CTR_RE"; }

# vm_sleep SECS -- sleep (fractions allowed) without forking sleep(1),
# which is noticeably slow under TCG when polling.
vm_sleep() {
    if [ -z "${_VM_SLEEP_FD:-}" ]; then
        exec {_VM_SLEEP_FD}<> <(:)
    fi
    read -rt "$1" -u "$_VM_SLEEP_FD" || :
}

# vm_retry SECS CMD [ARG...] -- run CMD every 0.5 s until it succeeds, for at
# most SECS seconds (of guest time). Returns CMD's last status. Silent.
vm_retry() {
    local secs=$1; shift
    local end=$((SECONDS + secs))
    while :; do
        "$@" >/dev/null 2>&1 && return 0
        [ "$SECONDS" -lt "$end" ] || break
        vm_sleep 0.5
    done
    "$@" >/dev/null 2>&1
}

# ------------------------------------------------------- VM-to-VM signals
# Files in VM_SIG_DIR on the shared 9p scratch directory (mounted with
# cache=none, so a file written by one VM is visible to the other at once).

# vm_signal NAME [VALUE] -- raise flag NAME (with optional VALUE, default
# the role). Shell builtins only: every fork+exec costs ~0.1 s under TCG.
# The value goes out in one write; vm_get waits until the file is non-empty.
vm_signal() {
    local dir=${VM_SIG_DIR:?VM_SIG_DIR not set}
    [ -d "$dir" ] || mkdir -p "$dir"
    printf '%s\n' "${2:-$VM_ROLE}" >"$dir/$1"
}

# vm_wait NAME [TIMEOUT=60] -- wait until flag NAME is raised (by this or the
# other VM). Returns 1 with a message on stderr after TIMEOUT seconds.
vm_wait() {
    local f="${VM_SIG_DIR:?VM_SIG_DIR not set}/$1" secs=${2:-60}
    local end=$((SECONDS + secs))
    until [ -s "$f" ]; do
        if [ "$SECONDS" -ge "$end" ]; then
            echo "vm_wait: no signal '$1' after ${secs}s" >&2
            return 1
        fi
        vm_sleep 0.1
    done
}

# vm_put KEY VALUE / vm_get KEY [TIMEOUT=60] -- pass a one-line value to the
# peer; vm_get waits for the key and prints the value.
vm_put() { vm_signal "$1" "$2"; }
vm_get() {
    vm_wait "$1" "${2:-60}" || return 1
    local v
    IFS= read -r v <"$VM_SIG_DIR/$1"
    printf '%s\n' "$v"
}

# vm_barrier NAME [TIMEOUT=60] -- pair mode: wait until both VMs reached NAME;
# nodes mode: until every VM (vm1..vmN) did.
vm_barrier() {
    if [ "${VM_MODE:-}" = nodes ]; then
        local i end=$((SECONDS + ${2:-60}))
        vm_signal "$1.$VM_ROLE" || return 1
        for ((i = 1; i <= VM_NODES; i++)); do
            vm_wait "$1.vm$i" $((end - SECONDS > 0 ? end - SECONDS : 0)) || return 1
        done
        return 0
    fi
    vm_signal "$1.$VM_ROLE" &&
        vm_wait "$1.${VM_PEER_ROLE:?vm_barrier needs pair mode}" "${2:-60}"
}

# ------------------------------------------------------- RDMA / net helpers

# vm_gid_index [DEV=rxe0] [IP=VM_IP] -- print the GID index of the RoCE v2
# GID that maps IPv4 address IP (::ffff:a.b.c.d) on port 1.
vm_gid_index() {
    local dev=${1:-${VM_RDMA_DEV:-rxe0}} ip=${2:-$VM_IP}
    local port=/sys/class/infiniband/$dev/ports/1
    local want f idx o1 o2 o3 o4
    IFS=. read -r o1 o2 o3 o4 <<<"$ip"
    want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
    for f in "$port"/gids/*; do
        idx=${f##*/}
        [ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
        [ "$(cat "$port/gid_attrs/types/$idx" 2>/dev/null)" = "RoCE v2" ] || continue
        echo "$idx"
        return 0
    done
    return 1
}

# vm_as_nobody CMD [ARG...] -- CMD as user and group nobody (65534), no
# supplementary groups: what an unprivileged user may do.
vm_as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# vm_ping HOST [COUNT=3] -- ICMP echo; uses ping(8) if the host has it,
# else busybox's (the host's busybox-static is in the chroot too).
vm_ping() {
    local count=${2:-3}
    if command -v ping >/dev/null 2>&1; then
        timeout -k 5 $((count * 5 + 10)) ping -n -c "$count" -W 5 "$1"
    else
        timeout -k 5 $((count * 5 + 10)) busybox ping -c "$count" -W 5 "$1"
    fi
}

# vm_wait_listen PORT [TIMEOUT=30] -- wait until something listens on local
# TCP PORT.
vm_wait_listen() {
    vm_retry "${2:-30}" _vm_listening "$1"
}
_vm_listening() { [ -n "$(ss -Hltn "sport = :$1")" ]; }

# vm_bg NAME CMD [ARG...] -- start CMD in the background (output kept);
# vm_bg_wait NAME -- wait for it, print its output, return its status.
# vm_bg_kill NAME -- stop it (and its children).
vm_bg() {
    local name=$1; shift
    mkdir -p /tmp/vm-bg
    ("$@") >"/tmp/vm-bg/$name.out" 2>&1 </dev/null &
    echo $! >"/tmp/vm-bg/$name.pid"
}
vm_bg_wait() {
    local pid rc=0
    pid=$(cat "/tmp/vm-bg/$1.pid") || return 1
    wait "$pid" || rc=$?
    cat "/tmp/vm-bg/$1.out"
    return "$rc"
}
vm_bg_kill() {
    local pid
    pid=$(cat "/tmp/vm-bg/$1.pid" 2>/dev/null) || return 0
    pkill -TERM -P "$pid" 2>/dev/null
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# vm_fds PID -- how many file descriptors PID has open (builtins only).
vm_fds() {
    local n=0 f
    for f in /proc/"$1"/fd/*; do
        { [ -e "$f" ] || [ -L "$f" ]; } && n=$((n + 1))
    done
    echo "$n"
}

# vm_stop_ok PID SIG -- send SIG to a background job of this shell, wait up
# to 10 s for it to exit (then SIGKILL it and fail); prints and returns its
# exit status.
vm_stop_ok() {
    local pid=$1 sig=$2 rc=0
    kill "-$sig" "$pid" 2>/dev/null
    vm_retry 10 sh -c "! kill -0 $pid 2>/dev/null"
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        echo "still running 10 s after SIG$sig"
        return 1
    fi
    wait "$pid" || rc=$?
    echo "exit status $rc"
    return "$rc"
}

# vm_dmesg_clean -- fails (printing them) if the kernel log has oopses,
# BUGs, WARNINGs or call traces. Use as: vm_check "no kernel warnings" vm_dmesg_clean
vm_dmesg_clean() {
    local bad
    bad=$(dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection|RIP:' || true)
    [ -z "$bad" ] && return 0
    echo "$bad"
    return 1
}
