#!/bin/bash
# run.sh [options] SCRIPT...              boot one VM, run the scripts in it
# run.sh [options] --pair A1 B1 [A2 B2...] boot two linked VMs; VM a runs
#                                          A1, A2..., VM b runs B1, B2...
# run.sh [options] --nodes N SCRIPT...     boot N VMs (vm1..vmN, 10.10.0.1..N)
#                                          on one vde_switch; every VM runs
#                                          every script (fleet scenarios)
# Options:
#   --timeout SEC         hard limit for the whole run (default 300); qemu is
#                         killed after it and the run fails
#   --script-timeout SEC  limit per script inside the VM (default: --timeout)
#   --stall SEC           kill the run when no VM has written to its
#                         transcript or console for SEC seconds (default 0:
#                         only --timeout), so a wedged VM fails soon while a
#                         slow but working one (a busy host) runs to the end
#   --log DIR             where console logs and transcripts go
#                         (default $RD_VM_DIR/logs)
#   --name LABEL          log file prefix (default: first script's basename)
#   --shell               after the scripts, drop into an interactive shell
#                         on the (first) VM's serial console; no timeout
#   --mem MIB             guest memory (default 1024)
#   -v, --verbose         stream the serial console(s) to stderr, and show
#                         the output of passing checks too (VM_VERBOSE=1)
#   --show                stream what the (first) VM's scripts print to
#                         stdout as they run (not the kernel console), with
#                         result markers as PASS:/FAIL:/SKIP: lines; at the
#                         end only its results that did not pass are repeated
# Environment: RD_VM_DIR (default <repo>/build/vm, filled by prepare.sh),
#   RD_VM_APPEND (extra kernel command line, e.g. "loglevel=7"),
#   RD_VM_KERNEL (kernel image; default vmlinux, else vmlinuz, from RD_VM_DIR),
#   RD_VM_BIOS (firmware: auto = qboot.rom if installed, seabios, or a path),
#   RD_VM_CPU (qemu's -cpu model, default max).
#   BENCH_* and VMENV_* variables are exported to the scenario scripts.
# Prints the PASS/FAIL/SKIP lines and, last, "N passed, N failed, N skipped";
# a scenario that recorded no check is one more failure.
# Exit status 0 iff nothing failed and every VM finished.
set -eu

die() { echo "run.sh: error: $*" >&2; exit 2; }
info() { echo "run.sh: $*" >&2; }

HERE=$(cd "$(dirname "$0")" && pwd -P)
RD_ROOT=$(cd "$HERE/../.." && pwd -P)
VMDIR=${RD_VM_DIR:-$RD_ROOT/build/vm}

pair=0 nodes=0 timeout=300 script_timeout="" stall=0 logdir="" label="" shell=0 mem=1024
verbose=0 show=0
scripts=()
while [ $# -gt 0 ]; do
    case $1 in
        --pair) pair=1 ;;
        --nodes) nodes=${2:?--nodes needs N}; shift ;;
        --timeout) timeout=${2:?--timeout needs SEC}; shift ;;
        --script-timeout) script_timeout=${2:?--script-timeout needs SEC}; shift ;;
        --stall) stall=${2:?--stall needs SEC}; shift ;;
        --log) logdir=${2:?--log needs DIR}; shift ;;
        --name) label=${2:?--name needs LABEL}; shift ;;
        --shell) shell=1 ;;
        --mem) mem=${2:?--mem needs MIB}; shift ;;
        -v|--verbose) verbose=1 ;;
        --show) show=1 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --) shift; scripts+=("$@"); break ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) scripts+=("$1") ;;
    esac
    shift
done
case $timeout in ''|*[!0-9]*) die "--timeout wants seconds" ;; esac
: "${script_timeout:=$timeout}"
case $script_timeout in ''|*[!0-9]*) die "--script-timeout wants seconds" ;; esac
case $stall in ''|*[!0-9]*) die "--stall wants seconds" ;; esac

case $nodes in ''|*[!0-9]*) die "--nodes wants a number of VMs" ;; esac
if [ "$nodes" != 0 ]; then
    if [ "$nodes" -lt 2 ] || [ "$nodes" -gt 32 ]; then die "--nodes wants 2 to 32 VMs"; fi
    [ $pair = 0 ] || die "--pair and --nodes exclude each other"
    command -v vde_switch >/dev/null 2>&1 ||
        die "vde_switch not found: apt-get install vde2"
fi
if [ ${#scripts[@]} -eq 0 ] && [ $shell = 0 ]; then
    die "no scenario script given (see --help)"
fi
if [ $pair = 1 ] && [ $((${#scripts[@]} % 2)) != 0 ]; then
    die "--pair needs scripts in pairs: SCRIPT_A SCRIPT_B [SCRIPT_A2 SCRIPT_B2...]"
fi

# Absolute paths (relative ones: from the cwd, else from the repo root).
# Scripts outside the repository are copied into the scratch directory
# (the VM sees the host root, but not e.g. the host's /tmp, a tmpfs there).
abs=()
for s in "${scripts[@]}"; do
    if [ -f "$s" ]; then
        s=$(cd "$(dirname "$s")" && pwd -P)/$(basename "$s")
    elif [ -f "$RD_ROOT/$s" ]; then
        s=$RD_ROOT/$s
    else
        die "no such scenario script: $s"
    fi
    case $s in *$'\n'*) die "script path contains a newline: $s" ;; esac
    abs+=("$s")
done

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
    die "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
for f in vmlinuz initrd.img; do
    if [ ! -f "$VMDIR/$f" ]; then
        info "$VMDIR/$f missing; running prepare.sh"
        "$HERE/prepare.sh" "$VMDIR" || die "prepare.sh failed"
        break
    fi
done
ls /usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 ||
    info "warning: no rxe provider on the host (apt-get install ibverbs-providers)"
command -v rdma >/dev/null 2>&1 ||
    info "warning: no 'rdma' tool on the host (apt-get install iproute2)"

[ -n "$logdir" ] || logdir=$VMDIR/logs
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd -P)
if [ -z "$label" ]; then
    if [ ${#abs[@]} -gt 0 ]; then
        label=$(basename "${abs[0]}" .sh)
    else
        label=shell
    fi
fi

# Fresh scratch directory, shared (9p, writable) with the VM(s).
mkdir -p "$VMDIR/runs"
scratch=$(mktemp -d "$VMDIR/runs/$label.XXXXXX")
case $scratch$RD_ROOT in *\'*) die "paths must not contain single quotes" ;; esac
for i in "${!abs[@]}"; do
    case ${abs[$i]} in
        "$RD_ROOT"/*) ;;
        *) mkdir -p "$scratch/scripts/$i"
           cp "${abs[$i]}" "$scratch/scripts/$i/"
           abs[i]=$scratch/scripts/$i/$(basename "${abs[$i]}") ;;
    esac
done

if [ $pair = 1 ]; then roles=(a b); else roles=(single); fi
[ $shell = 0 ] || [ $show = 0 ] || die "--show and --shell do not go together"
if [ "$nodes" != 0 ]; then
    roles=()
    for i in $(seq "$nodes"); do roles+=("vm$i"); done
fi
: >"$scratch/scripts.${roles[0]}"
[ $pair = 0 ] || : >"$scratch/scripts.b"
n=0
[ "$nodes" = 0 ] || for r in "${roles[@]}"; do printf '%s\n' "${abs[@]}" >"$scratch/scripts.$r"; done
for s in "${abs[@]}"; do
    [ "$nodes" = 0 ] || break # every node runs every script: listed above
    if [ $pair = 1 ] && [ $((n % 2)) = 1 ]; then
        echo "$s" >>"$scratch/scripts.b"
    else
        echo "$s" >>"$scratch/scripts.${roles[0]}"
    fi
    n=$((n + 1))
done
shell_role=""
[ $shell = 0 ] || shell_role=${roles[0]}
cat >"$scratch/vm.conf" <<EOF
RD_ROOT='$RD_ROOT'
VM_SCRATCH='$scratch'
VM_MODE=$(if [ "$nodes" != 0 ]; then echo nodes; elif [ $pair = 1 ]; then echo pair; else echo single; fi)
VM_NODES=$nodes
VM_SHELL=$shell_role
VM_SCRIPT_TIMEOUT=$script_timeout
VM_TERM='${TERM:-vt100}'
VM_VERBOSE=$verbose
EOF
# Settings for the scenario scripts (bench parameters) pass through by prefix.
for v in ${!BENCH_*} ${!VMENV_*}; do
    printf 'export %s=%q\n' "$v" "${!v}" >>"$scratch/vm.conf"
done
mkdir -p "$scratch/sig"

qesc() { printf '%s' "${1//,/,,}"; } # qemu option value escaping

# Uncompressed vmlinux (PVH boot) when prepare.sh could extract it, and the
# minimal qboot firmware when installed: each saves ~1-2 s of boot under TCG.
kernel=$VMDIR/vmlinux
[ -f "$kernel" ] || kernel=$VMDIR/vmlinuz
[ -z "${RD_VM_KERNEL:-}" ] || kernel=$RD_VM_KERNEL
bios=()
case ${RD_VM_BIOS:-auto} in
    auto) [ ! -f /usr/share/qemu/qboot.rom ] || bios=(-bios /usr/share/qemu/qboot.rom) ;;
    seabios|default) ;;
    *) bios=(-bios "$RD_VM_BIOS") ;;
esac

# --------------------------------------------------------------- qemu
pids=() tails=() vde_pid=""
declare -A pid_of=() start_of=()
cleanup() {
    local p
    for p in "${pids[@]}" "${tails[@]}" $vde_pid; do
        kill "$p" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

port_listening() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

qemu_args() { # role netdev-spec mac interactive
    local role=$1 net=$2 mac=$3 inter=$4
    local con=$logdir/$label.$role.console.log
    args=(
        -accel tcg -cpu "${RD_VM_CPU:-max}" -smp 1 -m "$mem"
        -nodefaults -no-user-config -display none -vga none -no-reboot
        "${bios[@]}" -kernel "$kernel" -initrd "$VMDIR/initrd.img"
        # no_timer_check: on a busy host the emulated CPU can miss the
        # boot-time IO-APIC timer check ("IO-APIC + timer doesn't work!"
        # panic); KVM guests skip that check the same way.
        -append "console=ttyS0 quiet loglevel=3 no_timer_check panic=-1 oops=panic mitigations=off rd.role=$role ${RD_VM_APPEND:-}"
        -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
        -virtfs "local,path=$(qesc "$RD_ROOT"),mount_tag=repo,security_model=none,multidevs=remap"
        -virtfs "local,path=$(qesc "$scratch"),mount_tag=scratch,security_model=none,multidevs=remap"
        -netdev "$net" -device "virtio-net-pci,netdev=n0,mac=$mac"
    )
    if [ "$inter" = 1 ]; then
        # shellcheck disable=SC2054 # commas belong to qemu option values
        args+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$(qesc "$con")"
               -serial chardev:con -mon chardev=con,mode=readline)
    else
        args+=(-chardev "file,id=con,path=$(qesc "$con")" -serial chardev:con)
    fi
}

start_vm() { # role netdev-spec mac
    local role=$1
    rm -f "$logdir/$label.$role.console.log" "$logdir/$label.$role.out"
    qemu_args "$1" "$2" "$3" 0
    qemu-system-x86_64 "${args[@]}" </dev/null >"$logdir/$label.$role.qemu.log" 2>&1 &
    pid_of[$role]=$!
    pids+=($!)
    start_of[$role]=$(date +%s.%N)
    if [ $show = 1 ] && [ "$role" = "${roles[0]}" ]; then
        # The transcript grows on the shared scratch directory as the guest
        # writes it (guest.sh only empties it first). Boot/script markers
        # are dropped, result markers shown as run.sh prints them.
        : >"$scratch/out-$role.log"
        tail -n +1 --pid="${pid_of[$role]}" -f "$scratch/out-$role.log" |
            sed -u -e 's/^@@VM \(PASS\|FAIL\|SKIP\): /\1: /' -e t -e '/^@@VM /d' &
        tails+=($!)
    fi
    if [ $verbose = 1 ]; then
        touch "$logdir/$label.$role.console.log"
        tail -n +1 --pid="${pid_of[$role]}" -f "$logdir/$label.$role.console.log" |
            sed -u "s/^/[$role] /" >&2 &
        tails+=($!)
    fi
}

t0=$(date +%s.%N)
if [ "$nodes" != 0 ]; then
    # One L2 segment: a vde_switch on a unix socket in the scratch
    # directory, every VM's eth0 a port of it. No host interface at all.
    vde_switch -s "$scratch/sw" -p "$scratch/sw.pid" -n $((nodes + 4)) -d \
        >"$logdir/$label.vde.log" 2>&1 ||
        die "vde_switch did not start: $(cat "$logdir/$label.vde.log")"
    for _ in $(seq 50); do
        [ -s "$scratch/sw.pid" ] && [ -S "$scratch/sw/ctl" ] && break
        sleep 0.1
    done
    vde_pid=$(cat "$scratch/sw.pid" 2>/dev/null) ||
        die "vde_switch wrote no pid file"
    "$HERE/fleet-prep.sh" "$scratch" "$nodes" ||
        die "fleet-prep.sh failed"
    info "$nodes VMs on vde_switch $scratch/sw (pid $vde_pid)"
    for i in $(seq "$nodes"); do
        mac=$(printf '52:54:00:0a:0a:%02x' "$i")
        net="vde,id=n0,sock=$(qesc "$scratch/sw")"
        if [ $shell = 1 ] && [ "$i" = 1 ]; then
            continue # vm1 last, in the foreground
        fi
        start_vm "vm$i" "$net" "$mac"
    done
    if [ $shell = 1 ]; then
        qemu_args vm1 "vde,id=n0,sock=$(qesc "$scratch/sw")" 52:54:00:0a:0a:01 1
        info "interactive vm1; console log: $logdir/$label.vm1.console.log"
        start_of[vm1]=$(date +%s.%N)
        qemu-system-x86_64 "${args[@]}" || true
        for r in "${roles[@]}"; do
            [ "$r" = vm1 ] && continue
            kill "${pid_of[$r]}" 2>/dev/null || true
            wait "${pid_of[$r]}" 2>/dev/null || true
        done
    fi
elif [ $pair = 0 ]; then
    # eth0 on a qemu hub with no other port: up, but traffic goes nowhere.
    net="hubport,id=n0,hubid=0"
    if [ $shell = 1 ]; then
        qemu_args single "$net" 52:54:00:0a:0a:01 1
        info "interactive VM; console log: $logdir/$label.single.console.log"
        start_of[single]=$(date +%s.%N)
        qemu-system-x86_64 "${args[@]}" || true
    else
        start_vm single "$net" 52:54:00:0a:0a:01
    fi
else
    # VM b listens on a free 127.0.0.1 port, VM a connects to it (a last,
    # so that with --shell it can run in the foreground on this terminal).
    for _ in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 40000))
        port_listening "$port" && continue
        start_vm b "socket,id=n0,listen=127.0.0.1:$port" 52:54:00:0a:0a:02
        for _ in $(seq 100); do
            port_listening "$port" && break
            kill -0 "${pid_of[b]}" 2>/dev/null || break
            sleep 0.1
        done
        port_listening "$port" && break
        kill "${pid_of[b]}" 2>/dev/null || true
        wait "${pid_of[b]}" 2>/dev/null || true
        grep -qi 'in use' "$logdir/$label.b.qemu.log" 2>/dev/null ||
            die "VM b did not start: $(cat "$logdir/$label.b.qemu.log" 2>/dev/null)"
    done
    port_listening "$port" || die "no free port for the VM link"
    info "VMs a and b linked through 127.0.0.1:$port"
    if [ $shell = 1 ]; then
        qemu_args a "socket,id=n0,connect=127.0.0.1:$port" 52:54:00:0a:0a:01 1
        info "interactive VM a; console log: $logdir/$label.a.console.log"
        start_of[a]=$(date +%s.%N)
        qemu-system-x86_64 "${args[@]}" || true
        kill "${pid_of[b]}" 2>/dev/null || true
        wait "${pid_of[b]}" 2>/dev/null || true
    else
        start_vm a "socket,id=n0,connect=127.0.0.1:$port" 52:54:00:0a:0a:01
    fi
fi

declare -A end_of=() qemu_rc=() killed=()
kill_reason="killed after the ${timeout}s timeout"
if [ $shell = 0 ]; then
    info "running ${#abs[@]} script(s) in ${#roles[@]} VM(s); logs in $logdir/$label.*"
    deadline=$(( $(date +%s) + timeout ))
    # Progress: the bytes of the transcripts and consoles, looked at every 5 s.
    written=-1 last_progress=$(date +%s) polls=0
    while :; do
        alive=0
        for r in "${roles[@]}"; do
            if [ -z "${end_of[$r]:-}" ]; then
                if kill -0 "${pid_of[$r]}" 2>/dev/null; then
                    alive=1
                else
                    end_of[$r]=$(date +%s.%N)
                    # A VM of a pair that died without finishing leaves its
                    # peer waiting in vain: give the peer 15 s more at most.
                    if { [ $pair = 1 ] || [ "$nodes" != 0 ]; } &&
                       ! grep -q '^@@VM DONE' "$scratch/out-$r.log" 2>/dev/null; then
                        info "VM $r stopped before finishing its scripts"
                        short=$(( $(date +%s) + 15 ))
                        if [ "$short" -lt "$deadline" ]; then
                            deadline=$short
                            kill_reason="stopped 15 s after its peer VM $r died"
                        fi
                    fi
                fi
            fi
        done
        [ $alive = 1 ] || break
        if [ "$stall" != 0 ] && [ $((polls++ % 10)) = 0 ]; then
            now=$(du -cb "$scratch"/out-*.log "$logdir/$label".*.console.log 2>/dev/null | tail -n 1)
            if [ "$now" != "$written" ]; then
                written=$now last_progress=$(date +%s)
            elif [ $(( $(date +%s) - last_progress )) -ge "$stall" ]; then
                kill_reason="killed after ${stall}s without output from any VM"
                deadline=0
            fi
        fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            for r in "${roles[@]}"; do
                if [ -z "${end_of[$r]:-}" ]; then
                    kill "${pid_of[$r]}" 2>/dev/null || true
                    end_of[$r]=$(date +%s.%N)
                    killed[$r]=$kill_reason
                fi
            done
            break
        fi
        sleep 0.5
    done
    for r in "${roles[@]}"; do
        rc=0
        wait "${pid_of[$r]}" 2>/dev/null || rc=$?
        qemu_rc[$r]=$rc
    done
fi
t1=$(date +%s.%N)
pids=() # all reaped: nothing left for cleanup to stop
for p in "${tails[@]}"; do wait "$p" 2>/dev/null || true; done
tails=()

# ------------------------------------------------------------- results
passed=0 failed=0 skipped=0
# Checks per scenario (between its BEGIN and END markers), over every VM of
# the run: a scenario that recorded no check on any VM fails, since a script
# that stopped early, or checks that never ran, must not pass as silence.
# (In a fleet, one VM may only serve while another checks.)
declare -A scen_checks=()
results=()
problems=()
unfinished=()
for r in "${roles[@]}"; do
    out=$scratch/out-$r.log
    con=$logdir/$label.$r.console.log
    [ ! -f "$out" ] || cp "$out" "$logdir/$label.$r.out"
    tag=""
    [ $pair = 0 ] && [ "$nodes" = 0 ] || tag="[$r] "
    vm_bad=0
    scen=""
    if [ -f "$out" ]; then
        while IFS= read -r line; do
            case $line in
                "@@VM BEGIN "*) scen=${line#@@VM BEGIN }
                    scen_checks[$scen]=${scen_checks[$scen]:-0} ;;
                "@@VM END "*) scen="" ;;
                "@@VM PASS: "*) passed=$((passed + 1))
                    [ -z "$scen" ] || scen_checks[$scen]=$((${scen_checks[$scen]} + 1))
                    results+=("PASS: $tag${line#@@VM PASS: }") ;;
                "@@VM SKIP: "*) skipped=$((skipped + 1))
                    [ -z "$scen" ] || scen_checks[$scen]=$((${scen_checks[$scen]} + 1))
                    results+=("SKIP: $tag${line#@@VM SKIP: }") ;;
                "@@VM FAIL: "*) failed=$((failed + 1)) vm_bad=1
                    [ -z "$scen" ] || scen_checks[$scen]=$((${scen_checks[$scen]} + 1))
                    results+=("FAIL: $tag${line#@@VM FAIL: }")
                    grabbing=1; continue ;;
                "    | "*) [ "${grabbing:-0}" = 0 ] || results+=("$line"); continue ;;
            esac
            grabbing=0
        done <"$out"
    fi
    if [ -f "$con" ]; then
        while IFS= read -r line; do
            failed=$((failed + 1)) vm_bad=1
            results+=("FAIL: ${tag}init: ${line#*@@VM FATAL: }")
        done < <(grep -a '@@VM FATAL: ' "$con" | tr -d '\r')
    fi
    if [ $shell = 0 ] && ! grep -q '^@@VM DONE' "$out" 2>/dev/null; then
        failed=$((failed + 1)) vm_bad=1
        why="qemu exited with status ${qemu_rc[$r]:-?} (crash or panic?)"
        [ -z "${killed[$r]:-}" ] || why=${killed[$r]}
        panic=$(grep -a -m1 -o 'Kernel panic - not syncing:.*' "$con" 2>/dev/null | tr -d '\r')
        [ -z "$panic" ] || why="$panic"
        last=$(grep -E '^@@VM (BEGIN|END) ' "$out" 2>/dev/null | tail -n1)
        case $last in
            "@@VM BEGIN "*) why="$why, while running ${last#@@VM BEGIN }" ;;
            "@@VM END "*) why="$why, after ${last#@@VM END }" ;;
            *) why="$why, before any script ran" ;;
        esac
        results+=("FAIL: ${tag}VM did not finish: $why")
        unfinished+=("$r")
    fi
    [ $vm_bad = 0 ] || problems+=("$r")
    # Timings (guest uptime at the markers; wall clock from qemu start).
    booted=$(sed -n 's/^@@VM BOOTED uptime=\([0-9.]*\).*/\1/p' "$out" 2>/dev/null | head -n1)
    ready=$(sed -n 's/^@@VM READY uptime=\([0-9.]*\).*/\1/p' "$out" 2>/dev/null | head -n1)
    wall=$(echo "${end_of[$r]:-$t1} ${start_of[$r]}" | awk '{printf "%.1f", $1 - $2}')
    info "VM $r: userland up at ${booted:-?}s, rxe ready at ${ready:-?}s (guest uptime); ${wall}s wall"
done

for s in "${!scen_checks[@]}"; do
    if [ "${scen_checks[$s]}" = 0 ]; then
        failed=$((failed + 1))
        results+=("FAIL: $s: the scenario recorded no check on any VM")
    fi
done

# With --show the transcript was on the screen: the console only tells more
# when a VM did not finish.
console_of=("${problems[@]}")
[ $show = 0 ] || console_of=("${unfinished[@]}")
for r in "${console_of[@]}"; do
    echo "---- last 40 lines of $logdir/$label.$r.console.log ----"
    tail -n 40 "$logdir/$label.$r.console.log" 2>/dev/null | tr -d '\r' || true
    echo "----"
done
if [ ${#problems[@]} = 0 ]; then
    rm -rf "$scratch"
else
    info "scratch directory kept: $scratch"
fi
info "total $(echo "$t1 $t0" | awk '{printf "%.1f", $1 - $2}')s"
shown_pass="PASS: " # with --show the first VM's passes were on the screen
[ $pair = 0 ] || shown_pass="PASS: [a] "
[ "$nodes" = 0 ] || shown_pass="PASS: [${roles[0]}] "
for l in "${results[@]}"; do
    [ $show = 1 ] && [ "${l#"$shown_pass"}" != "$l" ] && continue
    echo "$l"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
