#!/bin/bash
# Starts a throwaway single-node Slurm (munged, slurmctld, slurmd) with two
# fake GPUs, all state under $S (default /tmp/slurm), and waits until the node
# is idle. Needs root and: apt-get install slurmctld slurmd slurm-client munge.
# Clients need: export SLURM_CONF=$S/etc/slurm.conf
# Usage: S=/tmp/slurm scripts/slurm-up.sh ; stop with scripts/slurm-down.sh
set -euo pipefail
S=${S:-/tmp/slurm}
H=$(hostname -s); N=$(nproc)
for b in munged slurmctld slurmd sinfo; do
  command -v "$b" >/dev/null || PATH=$PATH:/usr/sbin
  command -v "$b" >/dev/null || { echo "$b not found: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 1; }
done
# Daemons of an earlier slurm-up.sh on $S are stopped first.
[ -d "$S" ] && S=$S "$(dirname "$0")/slurm-down.sh"
rm -rf "$S"; mkdir -p "$S"/{etc,state,spool,log}
# munge (the package postinst creates /etc/munge/munge.key). munge -n, not
# pgrep, tells whether munged answers: pgrep also matches a zombie.
mkdir -p /run/munge && chown munge:munge /run/munge
munge -n >/dev/null 2>&1 || su -s /bin/sh munge -c "$(command -v munged)"
munge -n | unmunge >/dev/null
# Two fake GPU device nodes (char 1,3, as /dev/null): gres/gpu drops GPUs without File=.
mknod "$S/gpu0" c 1 3; mknod "$S/gpu1" c 1 3
cat > "$S/etc/slurm.conf" <<CONF
ClusterName=local
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$S/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=1,bf_interval=1
DependencyParameters=kill_invalid_depend
ReturnToService=2
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
GresTypes=gpu
NodeName=$H CPUs=$N RealMemory=4000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
echo "NodeName=$H Name=gpu File=$S/gpu[0-1]" > "$S/etc/gres.conf"
export SLURM_CONF=$S/etc/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for i in $(seq 1 120); do
  [ "$(timeout 3 sinfo -h -n "$H" -o %t 2>/dev/null)" = idle ] && exit 0
  sleep 0.25
done
echo "node not idle; see $S/log/*.log" >&2; exit 1
