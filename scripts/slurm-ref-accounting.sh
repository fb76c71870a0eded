#!/usr/bin/env bash
# A live Slurm 22.05 WITH accounting (Debian bookworm's slurmctld + slurmd + slurmdbd on a private
# MariaDB) and priority/multifactor, as the reference for Gantry's sacctmgr, sshare, sprio and sreport.
# It runs beside ../shared/tools/slurm-ref.sh without touching it: its own state under /tmp/slurmacct,
# its own ports (slurmctld 6827, slurmd 6828, slurmdbd 6829, MariaDB 3307 on 127.0.0.1).
#
# start: installs what is missing, starts MariaDB, slurmdbd, slurmctld and slurmd, and (once) builds the
#        accounting tree the fixtures print: cluster gantryacct; accounts physics (theory below it) and
#        chem under root; users alice and bob (Unix accounts created when missing, removed by stop);
#        QOS normal, short (limits) and long. Prints SLURM_CONF=...
# stop:  stops them all and removes the Unix users it created.
# usage: scripts/slurm-ref-accounting.sh start|stop
set -eu
D=/tmp/slurmacct
export SLURM_CONF=$D/slurm.conf
host=$(hostname -s)
case "${1:-start}" in
start)
  if ! command -v slurmctld >/dev/null || ! command -v slurmdbd >/dev/null || ! command -v sacctmgr >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurmdbd slurm-client munge mariadb-server) >/dev/null
  fi
  mkdir -p $D/state $D/spool $D/log $D/run
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  mkdir -p /run/munge && chown munge:munge /run/munge
  pgrep -x munged >/dev/null || runuser -u munge -- munged

  # MariaDB of its own: data dir, socket and port under $D, never the system's server.
  if [ ! -d $D/mysql/mysql ]; then
    mariadb-install-db --no-defaults --user=root --datadir=$D/mysql --auth-root-authentication-method=socket >/dev/null
  fi
  if ! [ -f $D/run/mysqld.pid ] || ! kill -0 "$(cat $D/run/mysqld.pid)" 2>/dev/null; then
    setsid mariadbd --no-defaults --user=root --datadir=$D/mysql --socket=$D/run/mysqld.sock --port=3307 \
      --bind-address=127.0.0.1 --pid-file=$D/run/mysqld.pid --innodb-buffer-pool-size=64M \
      --innodb-lock-wait-timeout=900 --log-error=$D/log/mysqld.log >/dev/null 2>&1 < /dev/null &
    for _ in $(seq 1 60); do mariadb --no-defaults --socket=$D/run/mysqld.sock -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
    mariadb --no-defaults --socket=$D/run/mysqld.sock -e "create user if not exists 'slurm'@'127.0.0.1' identified by 'slurm';
      grant all on slurm_acct_db.* to 'slurm'@'127.0.0.1'; flush privileges;"
  fi

  cat > $D/slurmdbd.conf <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6829
SlurmUser=root
PidFile=$D/run/slurmdbd.pid
LogFile=$D/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3307
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
  chmod 600 $D/slurmdbd.conf
  cat > $SLURM_CONF <<EOF
ClusterName=gantryacct
SlurmctldHost=$host
SlurmctldPort=6827
SlurmdPort=6828
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=6829
# safe: a job starts only if it can run to its time limit within every GrpTRESMins (what Gantry does).
AccountingStorageEnforce=associations,limits,qos,safe
JobAcctGatherType=jobacct_gather/none
# GPUs (stand-in device files, see gres.conf below) tracked as a TRES, so GrpTRES and GrpTRESMins on gres/gpu hold.
GresTypes=gpu
AccountingStorageTRES=gres/gpu
# QOS preemption; SUSPEND needs GANG in the cluster-wide mode, the QOS's own PreemptMode picks per victim.
PreemptType=preempt/qos
PreemptMode=SUSPEND,GANG
PriorityType=priority/multifactor
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=MONTHLY
PriorityCalcPeriod=1
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityWeightQOS=2000
PriorityMaxAge=7-0
MpiDefault=none
ReturnToService=2
MinJobAge=2
MaxJobCount=10000
# Six-digit job ids, which the recordings replace with placeholders without touching other numbers.
FirstJobId=734501
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=16000 Gres=gpu:8 State=UNKNOWN
PartitionName=batch Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # Slurm 22.05 drops GPUs without device files, so eight character devices stand in for them.
  mkdir -p $D/dev
  for i in 0 1 2 3 4 5 6 7; do [ -e $D/dev/nvidia$i ] || mknod $D/dev/nvidia$i c 195 $i; done
  echo "NodeName=$host Name=gpu File=$D/dev/nvidia[0-7]" > $D/gres.conf
  rm -f $D/cgroup.conf
  if ! [ -f $D/run/slurmdbd.pid ] || ! kill -0 "$(cat $D/run/slurmdbd.pid)" 2>/dev/null; then
    SLURM_CONF=$SLURM_CONF slurmdbd   # reads slurmdbd.conf beside SLURM_CONF
    for _ in $(seq 1 60); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 1; done
  fi
  sacctmgr -n -P list cluster format=cluster | grep -qx gantryacct || sacctmgr -i add cluster gantryacct >/dev/null
  [ -f $D/run/slurmctld.pid ] && kill -0 "$(cat $D/run/slurmctld.pid)" 2>/dev/null || slurmctld -f $SLURM_CONF
  sleep 2
  [ -f $D/run/slurmd.pid ] && kill -0 "$(cat $D/run/slurmd.pid)" 2>/dev/null || slurmd -f $SLURM_CONF
  for u in alice bob; do
    id "$u" >/dev/null 2>&1 || { useradd -M -s /bin/sh "$u"; echo "$u" >> $D/created-users; }
  done
  # The tree the fixtures print, built once: root -> physics -> theory, root -> chem.
  if ! sacctmgr -n -P list account format=account | grep -qx physics; then
    sacctmgr -i add qos short priority=10 MaxWall=01:00:00 MaxJobsPerUser=5 MaxTRESPerUser=cpu=8 >/dev/null
    sacctmgr -i add qos long priority=5 MaxWall=2-00:00:00 MaxSubmitJobsPerUser=20 GrpTRES=cpu=16 >/dev/null
    sacctmgr -i add account physics parent=root fairshare=30 description="Physics department" organization=science >/dev/null
    sacctmgr -i add account chem parent=root fairshare=10 description="Chemistry" organization=science >/dev/null
    sacctmgr -i add account theory parent=physics fairshare=5 description="Theory group" organization=science >/dev/null
    sacctmgr -i add user alice account=physics fairshare=2 MaxJobs=10 qos=normal,short >/dev/null
    sacctmgr -i add user alice account=theory fairshare=1 >/dev/null
    sacctmgr -i add user bob account=chem fairshare=1 GrpTRES=cpu=4 qos=normal,long >/dev/null
    sacctmgr -i modify user alice set defaultaccount=physics >/dev/null
  fi
  echo "SLURM_CONF=$SLURM_CONF"
  ;;
stop)
  scontrol shutdown >/dev/null 2>&1 || true
  [ -f $D/run/slurmd.pid ] && kill "$(cat $D/run/slurmd.pid)" 2>/dev/null || true
  sleep 1
  [ -f $D/run/slurmdbd.pid ] && kill "$(cat $D/run/slurmdbd.pid)" 2>/dev/null || true
  sleep 1
  [ -f $D/run/mysqld.pid ] && kill "$(cat $D/run/mysqld.pid)" 2>/dev/null || true
  if [ -f $D/created-users ]; then
    while read -r u; do userdel "$u" 2>/dev/null || true; done < $D/created-users
    rm -f $D/created-users
  fi
  ;;
esac
