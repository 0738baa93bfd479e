#!/bin/bash
# guest.sh ROLE SCRATCH -- runs inside the VM, chrooted into the host's root
# (started by tests/vm/init). Sets up eth0 + rxe0, runs the scenario scripts
# listed in SCRATCH/scripts.ROLE and writes a transcript with result markers
# to SCRATCH/out-ROLE.log (also copied to the console), which run.sh parses.
set -u

VM_ROLE=$1
VM_SCRATCH=$2
# shellcheck source=/dev/null
. "$VM_SCRATCH/vm.conf"

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# jq 1.6 compiles its builtins at every start: 0.65 s a call under TCG, where
# gojq (Go, the same language for what the scenarios use) takes 0.17 s. The
# scenarios call jq hundreds of times a boot, also from sh -c and timeout:
# a jq on PATH, not a shell function. Without gojq, jq itself.
if command -v gojq >/dev/null 2>&1; then
    mkdir -p /tmp/.vm-bin && ln -sf "$(command -v gojq)" /tmp/.vm-bin/jq &&
        PATH=/tmp/.vm-bin:$PATH
fi
export HOME=/tmp/home LANG=C.UTF-8 TERM=dumb
[ "${VM_SHELL:-}" != "$VM_ROLE" ] || TERM=${VM_TERM:-vt100}
export RD_ROOT VM_SCRATCH VM_ROLE VM_MODE VM_VERBOSE
export VM_NETDEV=eth0 VM_RDMA_DEV=rxe0
unset VM_PEER_ROLE PEER_IP
case $VM_ROLE in
    single) VM_IP=10.10.0.1 ;;
    a) VM_IP=10.10.0.1; PEER_IP=10.10.0.2; VM_PEER_ROLE=b ;;
    b) VM_IP=10.10.0.2; PEER_IP=10.10.0.1; VM_PEER_ROLE=a ;;
    vm[0-9]*) VM_NODE=${VM_ROLE#vm}; VM_IP=10.10.0.$VM_NODE
        export VM_NODE VM_NODES
        hostname "$VM_ROLE" ;;
    *) echo "guest.sh: unknown role $VM_ROLE"; exit 2 ;;
esac
export VM_IP
[ "$VM_MODE" != pair ] || export PEER_IP VM_PEER_ROLE
mkdir -p "$HOME"

# Everything from here on goes to the console and to the transcript.
transcript=$VM_SCRATCH/out-$VM_ROLE.log
: >"$transcript"
exec 3>&1 4>&2
mkfifo /tmp/.vm-transcript
tee -a "$transcript" </tmp/.vm-transcript >&3 &
tee_pid=$!
exec >/tmp/.vm-transcript 2>&1

# shellcheck source=tests/vm/lib.sh
. "$RD_ROOT/tests/vm/lib.sh"

marker() { echo "@@VM $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
finish() {
    marker "DONE uptime=$(uptime_s)"
    exec >&3 2>&4
    # tee ends when the last writer is gone; a daemon that escaped the
    # scenario's process group could keep it alive: do not wait for ever.
    (sleep 5; kill "$tee_pid" 2>/dev/null) &
    wait "$tee_pid"
    sync
}

marker "BOOTED uptime=$(uptime_s) kernel=$(uname -r)"

# ------------------------------------------------------------------ setup
setup_fail() { marker "FAIL: vm setup: $*"; }
setup() {
    ip link set lo up || setup_fail "ip link set lo up"
    ip link set "$VM_NETDEV" up || { setup_fail "no $VM_NETDEV"; return; }
    ip addr add "$VM_IP/24" dev "$VM_NETDEV" ||
        setup_fail "ip addr add $VM_IP/24 dev $VM_NETDEV"
    if ! out=$(rdma link add "$VM_RDMA_DEV" type rxe netdev "$VM_NETDEV" 2>&1); then
        setup_fail "rdma link add $VM_RDMA_DEV type rxe netdev $VM_NETDEV: $out"
        return
    fi
    # Port goes ACTIVE and the IPv4 GID appears asynchronously.
    vm_retry 30 grep -q ACTIVE "/sys/class/infiniband/$VM_RDMA_DEV/ports/1/state" ||
        setup_fail "$VM_RDMA_DEV port 1 not ACTIVE: $(cat "/sys/class/infiniband/$VM_RDMA_DEV/ports/1/state" 2>&1)"
    vm_retry 30 vm_gid_index >/dev/null ||
        setup_fail "no RoCE v2 GID for $VM_IP on $VM_RDMA_DEV"
}
setup
if [ "$VM_MODE" = nodes ]; then
    # Slurm, munge and sshd on every VM (tests/vm/fleet-lib.sh).
    # shellcheck source=tests/vm/fleet-lib.sh
    . "$RD_ROOT/tests/vm/fleet-lib.sh"
    fleet_setup || setup_fail "fleet engines: $fleet_error"
fi
marker "READY uptime=$(uptime_s)"

# -------------------------------------------------------------- scenarios
mapfile -t scripts <"$VM_SCRATCH/scripts.$VM_ROLE"
pair_wait=${VM_BARRIER_TIMEOUT:-180}
i=0
for script in "${scripts[@]}"; do
    [ -n "$script" ] || continue
    i=$((i + 1))
    case $script in
        "$VM_SCRATCH"/scripts/*) name=${script##*/} ;; # copied by run.sh
        *) name=${script#"$RD_ROOT"/} ;;
    esac
    export VM_SCRIPT=$script VM_INDEX=$i
    export VM_SIG_DIR=$VM_SCRATCH/sig/$i
    mkdir -p "$VM_SIG_DIR"
    if [ "$VM_ROLE" != single ]; then
        # Start each pair of scripts together, and end them together (so
        # that one VM does not power off while its peer still needs it).
        vm_barrier .start "$pair_wait" ||
            marker "FAIL: $name: peer VM never started its script"
    fi
    marker "BEGIN $name"
    read -r t0 _ </proc/uptime
    # timeout(1) makes itself a process group leader: once the script is
    # over, whatever it left running in that group is killed too.
    (cd "$RD_ROOT" && exec timeout -k 10 "$VM_SCRIPT_TIMEOUT" bash "$script") </dev/null &
    spid=$!
    rc=0
    wait "$spid" || rc=$?
    kill -KILL -- "-$spid" 2>/dev/null
    case $rc in
        0) ;;
        124|137) marker "FAIL: $name: killed after the ${VM_SCRIPT_TIMEOUT}s script timeout" ;;
        *) marker "FAIL: $name: script exited with status $rc" ;;
    esac
    read -r t1 _ </proc/uptime
    marker "END $name rc=$rc ($(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s)"
    if [ "$VM_ROLE" != single ]; then
        vm_barrier .end "$VM_SCRIPT_TIMEOUT" ||
            marker "FAIL: $name: peer VM did not finish its script"
    fi
done

if [ "${VM_SHELL:-}" = "$VM_ROLE" ]; then
    finish
    cat >/tmp/.vm-shellrc <<EOF
[ -f /etc/bash.bashrc ] && . /etc/bash.bashrc
. "$RD_ROOT/tests/vm/lib.sh"
export VM_SIG_DIR=$VM_SCRATCH/sig/shell
mkdir -p "\$VM_SIG_DIR"
PS1='vm-$VM_ROLE:\w# '
cd "$RD_ROOT"
EOF
    echo "== interactive shell in VM '$VM_ROLE' ($VM_IP); 'exit' powers off," \
        "Ctrl-A x kills qemu. Run 'stty rows R cols C' to fit your terminal."
    setsid -c bash --rcfile /tmp/.vm-shellrc -i
    exit 0
fi
if [ -n "${VM_SHELL:-}" ]; then
    # The peer of an interactive VM stays up until run.sh stops it.
    marker "HOLD (peer of an interactive VM)"
    finish
    while :; do sleep 3600; done
fi
finish
