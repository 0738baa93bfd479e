#!/bin/bash
# fleet-prep.sh SCRATCH N -- run by run.sh --nodes on the host before the VMs
# boot: writes SCRATCH/fleet/ with what the N VMs share for the run:
#   hosts                /etc/hosts lines for vm1..vmN (10.10.0.1..N)
#   ssh/                 a client key and a host key made for this run only
#                        (never the host's keys), authorized_keys,
#                        known_hosts, sshd_config, ssh_config
#   munge.key            a fresh munge key (1 KiB from /dev/urandom)
#   slurm.conf, cgroup.conf
# The guests copy the secrets to tmpfs with the modes the daemons want
# (tests/vm/fleet-lib.sh). Everything stays in the scratch directory, which
# run.sh deletes after a passing run.
set -eu
scratch=${1:?usage: fleet-prep.sh SCRATCH N}
n=${2:?usage: fleet-prep.sh SCRATCH N}
d=$scratch/fleet
mkdir -p "$d/ssh"
command -v ssh-keygen >/dev/null || { echo "fleet-prep.sh: ssh-keygen not found: apt-get install openssh-client" >&2; exit 1; }

: >"$d/hosts"
for i in $(seq "$n"); do echo "10.10.0.$i vm$i" >>"$d/hosts"; done

ssh-keygen -q -t ed25519 -N '' -C "rdma-diag fleet test client" -f "$d/ssh/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -C "rdma-diag fleet test host" -f "$d/ssh/host_ed25519"
cp "$d/ssh/id_ed25519.pub" "$d/ssh/authorized_keys"
pats="vm*,10.10.0.*"
echo "$pats $(cut -d' ' -f1,2 "$d/ssh/host_ed25519.pub")" >"$d/ssh/known_hosts"
# Paths are where fleet-lib.sh puts the copies inside each VM.
cat >"$d/ssh/sshd_config" <<'EOF'
Port 22
ListenAddress 0.0.0.0
HostKey /run/fleet/ssh/host_ed25519
AuthorizedKeysFile /run/fleet/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
PidFile /run/fleet/sshd.pid
AcceptEnv SLURM_CONF
Subsystem sftp internal-sftp
EOF
cat >"$d/ssh/ssh_config" <<'EOF'
Host vm* 10.10.0.*
    User root
    IdentityFile /run/fleet/ssh/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile /run/fleet/ssh/known_hosts
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 60
    GSSAPIAuthentication no
    AddressFamily inet
    LogLevel ERROR
EOF

dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none

cat >"$d/slurm.conf" <<EOF
# Written by tests/vm/fleet-prep.sh for one test run of $n VMs.
ClusterName=rdfleet
SlurmctldHost=vm1(10.10.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
StateSaveLocation=/run/slurm/state
SlurmdSpoolDir=/run/slurm/spool
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/run/slurm/slurmctld.log
SlurmdLogFile=/run/slurm/slurmd.log
SlurmctldTimeout=60
SlurmdTimeout=120
MessageTimeout=30
InactiveLimit=0
KillWait=5
SchedulerType=sched/backfill
NodeName=vm[1-$n] NodeAddr=10.10.0.[1-$n] CPUs=1 State=UNKNOWN
PartitionName=fleet Nodes=vm[1-$n] Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$d/cgroup.conf" <<'EOF'
CgroupPlugin=cgroup/v2
IgnoreSystemd=yes
EOF
