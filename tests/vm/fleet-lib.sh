# shellcheck shell=bash
# fleet-lib.sh -- the cluster engines of a `run.sh --nodes N` run, and helpers
# for fleet scenarios (tests/vm/f-*.sh). Sourced by guest.sh in nodes mode
# (which calls fleet_setup once per boot) and by the scenarios.
#
# In each VM vmI (10.10.0.I), from what tests/vm/fleet-prep.sh wrote to
# $VM_SCRATCH/fleet on the host:
#   /etc/hosts        vm1..vmN
#   sshd              on 10.10.0.I:22 with a host key made for the run; root
#                     logs in with the run's client key only; the ssh client
#                     config (/etc/ssh/ssh_config.d/rdfleet.conf) makes plain
#                     `ssh vm2`, pdsh -R ssh and clush use that key and check
#                     the host key (no prompt, nothing learned on the fly)
#   munged            the run's key, socket /run/munge/munge.socket.2
#   cgroup v2         on /sys/fs/cgroup with cpu, memory and pids delegated
#                     to system.slice (slurmd 22.05 will not start without)
#   slurmctld         on vm1; slurmd -N vmI on every VM, with
#                     /etc/slurm/slurm.conf and cgroup.conf
# All of it writes to tmpfs or to the guest-only overlay: never to the host.

# shellcheck disable=SC2034 # read by guest.sh
fleet_error=""

_fleet_fail() { fleet_error=$*; return 1; }

fleet_setup() {
    local src=$VM_SCRATCH/fleet f
    [ -r "$src/slurm.conf" ] || _fleet_fail "no $src/slurm.conf (fleet-prep.sh did not run)" || return
    cat "$src/hosts" >>/etc/hosts || _fleet_fail "cannot extend /etc/hosts" || return

    # Secrets on tmpfs, with the modes sshd and munged insist on.
    mkdir -m 0700 /run/fleet /run/fleet/ssh
    cp "$src"/ssh/* /run/fleet/ssh/ && cp "$src/munge.key" /run/fleet/ ||
        _fleet_fail "cannot copy the run's keys" || return
    chmod 0600 /run/fleet/ssh/id_ed25519 /run/fleet/ssh/host_ed25519
    chmod 0400 /run/fleet/munge.key
    mkdir -p /etc/ssh/ssh_config.d
    cp /run/fleet/ssh/ssh_config /etc/ssh/ssh_config.d/rdfleet.conf

    mkdir -m 0755 /run/sshd
    # -r: no re-exec of sshd for each connection (an exec costs much under TCG)
    /usr/sbin/sshd -r -f /run/fleet/ssh/sshd_config -E /run/fleet/sshd.log ||
        _fleet_fail "sshd did not start: $(tail -n 3 /run/fleet/sshd.log 2>&1)" || return

    mkdir -m 0755 /run/munge
    munged --force --key-file=/run/fleet/munge.key \
        --socket=/run/munge/munge.socket.2 --pid-file=/run/munge/munged.pid \
        --log-file=/run/munge/munged.log --seed-file=/run/munge/munged.seed \
        >/run/munge/munged.out 2>&1 ||
        _fleet_fail "munged did not start: $(tail -n 3 /run/munge/munged.log /run/munge/munged.out 2>&1)" || return

    if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
        mount -t cgroup2 cgroup2 /sys/fs/cgroup || _fleet_fail "cannot mount cgroup2" || return
    fi
    echo "+cpu +memory +pids" >/sys/fs/cgroup/cgroup.subtree_control &&
        mkdir -p /sys/fs/cgroup/system.slice &&
        echo "+cpu +memory +pids" >/sys/fs/cgroup/system.slice/cgroup.subtree_control ||
        _fleet_fail "cannot delegate cgroup controllers" || return

    mkdir -p /etc/slurm /run/slurm/state /run/slurm/spool
    for f in slurm.conf cgroup.conf; do
        cp "$src/$f" "/etc/slurm/$f" || _fleet_fail "cannot install $f" || return
    done
    if [ "$VM_NODE" = 1 ]; then
        slurmctld >/run/slurm/slurmctld.out 2>&1 ||
            _fleet_fail "slurmctld did not start: $(tail -n 3 /run/slurm/slurmctld.log 2>&1)" || return
    fi
    slurmd -N "$VM_ROLE" >/run/slurm/slurmd.out 2>&1 ||
        _fleet_fail "slurmd did not start: $(tail -n 3 /run/slurm/slurmd.log 2>&1)" || return
    return 0
}

# fleet_hostlist -- "vm[1-N]" (Slurm and pdsh syntax)
fleet_hostlist() { echo "vm[1-$VM_NODES]"; }

# fleet_slurm_idle -- succeeds when every node is idle in sinfo
fleet_slurm_idle() {
    local n
    n=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    [ "$n" -eq "$VM_NODES" ]
}

# fleet_slurm_ready [SECS=120] -- wait until Slurm has every node idle.
fleet_slurm_ready() { vm_retry "${1:-120}" fleet_slurm_idle; }

# fleet_logs -- print the engines' logs (for a failing check's detail)
fleet_logs() {
    local f
    for f in /run/slurm/slurmctld.log /run/slurm/slurmd.log /run/munge/munged.log /run/fleet/sshd.log; do
        [ -s "$f" ] || continue
        echo "== $f"
        tail -n 15 "$f"
    done
}
