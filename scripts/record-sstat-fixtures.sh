#!/usr/bin/env bash
# Re-records src/test/resources/cli/sstat/sstat-22.05.txt, the sstat and scontrol show step lines SstatTests
# replays, from a Slurm 22.05 of its own: the shared reference (/work/shared/tools/slurm-ref.sh) runs with
# JobAcctGatherType=jobacct_gather/none, where sstat has no figures to print. This one gathers with
# jobacct_gather/linux every 2 s, on one node sref1, with its state in /tmp/sstatslurm and ports 6917-6918
# (beside the shared reference's). It needs the Debian packages slurmctld, slurmd and munge (slurm-ref.sh
# installs them) and a running munged. The job's numbers differ on every run (pids, bytes read): SstatTests
# builds its agents' readings from the recorded figures, so after a new recording those readings in
# SstatTests.Recorded must be set to the new figures.
# usage: scripts/record-sstat-fixtures.sh [stop]
set -eu
D=/tmp/sstatslurm
export SLURM_CONF=$D/slurm.conf
stop() {
  # its jobs first, so that no task outlives the daemons
  if [ -f $D/slurmctld.pid ] && kill -0 "$(cat $D/slurmctld.pid)" 2>/dev/null; then
    scancel --quiet $(squeue -h -o %i) 2>/dev/null || true
    for _ in $(seq 30); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 1; done
  fi
  [ -f $D/slurmd.pid ] && kill "$(cat $D/slurmd.pid)" 2>/dev/null || true
  [ -f $D/slurmctld.pid ] && kill "$(cat $D/slurmctld.pid)" 2>/dev/null || true
  for _ in $(seq 20); do pgrep -f "$D/slurm.conf" >/dev/null || break; sleep 0.5; done
}
if [ "${1:-}" = stop ]; then
  stop
  exit 0
fi
# SSTAT_FIXTURE: write elsewhere (to compare a new recording with the one SstatTests replays)
OUT=${SSTAT_FIXTURE:-$(cd "$(dirname "$0")/.." && pwd)/src/test/resources/cli/sstat/sstat-22.05.txt}
stop
rm -rf $D && mkdir -p $D/state $D/spool $D/log
cat > $SLURM_CONF <<CONF
ClusterName=sstatref
SlurmctldHost=$(hostname -s)
SlurmctldPort=6917
SlurmdPort=6918
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=2
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=30
SlurmdParameters=config_overrides
NodeName=sref1 NodeAddr=127.0.0.1 NodeHostName=$(hostname -s) Port=6918 CPUs=8 RealMemory=16000 State=UNKNOWN
PartitionName=debug Nodes=sref1 Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -c -f $SLURM_CONF
sleep 2
slurmd -f $SLURM_CONF -N sref1
for _ in $(seq 30); do sinfo -h -o %t | grep -q idle && break; sleep 1; done
WORK=$(mktemp -d)
cd "$WORK"
J=$(sbatch --parsable --mem=1G -n2 --wrap "srun python3 -c 'import time; x=bytearray(50*1024*1024); x[::4096]=b\"x\"*len(x[::4096]); time.sleep(60)'")
for _ in $(seq 30); do [ "$(squeue -h -j "$J" -s | wc -l)" -ge 2 ] && break; sleep 1; done
sleep 6 # two gathers of the step's tasks
run() { local rc=0; echo "\$ $*"; "$@" 2>&1 || rc=$?; echo "[rc=$rc]"; }
{
  echo "# Recorded from Slurm 22.05.8 (Debian bookworm) with JobAcctGatherType=jobacct_gather/linux, one node sref1,"
  echo "# job $J: sbatch --mem=1G -n2 --wrap \"srun python3 -c '...50 MB bytearray...; time.sleep(60)'\" (stdout and stderr together)."
  echo "# scripts/record-sstat-fixtures.sh"
  run sstat -j "$J"
  run sstat -a -j "$J" -P
  run sstat -j "$J" -o JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,AveCPU,MinCPU,NTasks,AveCPUFreq,Nodelist,Pids
  run sstat -j "$J.0" -p -o JobID,MaxRSS,AveRSS,NTasks --noconvert
  run sstat -j "$J" -n -o jobid,maxrss%20,averss
  run sstat -j "$J" -i
  run sstat -j "$J" -a -o JobID,MaxRSS,NTasks
  run sstat -j "$J.7"
  run sstat -j 999
  run sstat -j "$J.batch" -o JobID,MaxRSS,AveCPU
  run sstat
  run sstat -j "$J" -o Bogus
  run scontrol show step "$J.0"
  run scontrol show step "$J.batch"
  run scontrol show step "$J"
  run scontrol show step
  run scontrol -o show step "$J.0"
  run scontrol show step "$J.9"
  run scontrol show step 999.0
} > "$OUT"
scancel "$J"
rm -rf "$WORK"
echo "recorded $OUT (job $J); stop this Slurm with: $0 stop"
