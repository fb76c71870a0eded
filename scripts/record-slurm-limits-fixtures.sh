#!/usr/bin/env bash
# Records how Slurm 22.05 with slurmdbd (scripts/slurm-ref-accounting.sh; start it first) answers the
# scenarios of the account-tree limits, budgets and preemption, under src/test/resources/cli/slurm-22.05-limits/:
#   tree     a parent account with GrpTRES=gres/gpu=4 and two children each submitting four 1-GPU jobs
#   budget   an account with GrpTRESMins=gres/gpu=2 (safe enforcement): a job runs only if what is used, what
#            running jobs may still use and what it asks fit; once it is used the next pends, and runs once
#            the usage is reset
#   grace    a QOS preemption of a job whose QOS has GraceTime=20 and a SIGTERM trap writing a checkpoint
#   suspend  a QOS preemption of a job whose QOS has PreemptMode=SUSPEND: its processes stop, then go on
#   qos      QOS MaxJobsPerAccount, MaxTRESPerAccount and MinTRESPerJob
# Each scenario writes <scenario>.txt: the command lines run, each followed by what it printed, with job ids
# replaced by {J1}.. and times by what the test needs (seconds between two events). The integration tests of
# the same scenarios (AssociationTreeLimitsIntegrationTests, BudgetIntegrationTests,
# PreemptionGraceIntegrationTests) read these files and check that Gantry answers the same.
# usage: scripts/record-slurm-limits-fixtures.sh tree|budget|grace|suspend|all
set -eu
export SLURM_CONF=${SLURM_CONF:-/tmp/slurmacct/slurm.conf}
cd "$(dirname "$0")/.."
OUT=$PWD/src/test/resources/cli/slurm-22.05-limits
mkdir -p "$OUT"
cd /tmp

out=
# show LINE: runs LINE and appends it and what it printed to the scenario's file, job ids as placeholders.
show() {
  local text
  text=$(sh -c "$1" 2>&1 || true)
  { echo "\$ $1"; printf '%s\n' "$text"; } | ids >> "$out"
}
ids() {
  local text k; text=$(cat)
  for k in 9 8 7 6 5 4 3 2 1; do
    local v; eval "v=\${J$k:-}"
    [ -n "$v" ] && text=${text//$v/\{J$k\}}
  done
  printf '%s\n' "$text"
}
note() { echo "# $*" >> "$out"; }
job() { sbatch --parsable -p batch --mem=100 -o /dev/null "$@"; }
until_state() {  # until_state JOB STATE...: waits (at most 3 min) until squeue/sacct shows one of the states
  local j=$1; shift
  for _ in $(seq 1 180); do
    local s; s=$(sacct -n -X -P -j "$j" -o State | head -1 | cut -d' ' -f1)
    for w in "$@"; do [ "$s" = "$w" ] && return 0; done
    sleep 1
  done
  echo "job $j never reached $*" >&2; return 1
}
ensure() {  # ensure KIND NAME ARGS: adds an account or QOS once
  [ -n "$(sacctmgr -n -P list "$1" "$2" 2>/dev/null)" ] || sacctmgr -i add "$@" >/dev/null
}

tree() {
  out=$OUT/tree.txt; : > "$out"
  ensure account dept parent=root GrpTRES=gres/gpu=4
  sacctmgr -i modify account dept set GrpTRES=gres/gpu=4 >/dev/null
  ensure account grpa parent=dept
  ensure account grpb parent=dept
  sacctmgr -i add user alice account=grpa >/dev/null 2>&1 || true
  sacctmgr -i add user bob account=grpb >/dev/null 2>&1 || true
  note "sacctmgr -i add account dept parent=root GrpTRES=gres/gpu=4; grpa and grpb below it; alice in grpa, bob in grpb"
  local k=0 u a
  for u in alice bob; do
    a=grpa; [ $u = bob ] && a=grpb
    for _ in 1 2 3 4; do
      k=$((k + 1)); eval "J$k=\$(job --uid=$u -A $a --gres=gpu:1 -t 10 --wrap 'sleep 60')"
    done
  done
  export J1 J2 J3 J4 J5 J6 J7 J8
  sleep 5
  show "squeue -h -t R -o %i | wc -l"
  show "squeue -h -t PD -o '%r' | sort | uniq -c"
  show "sshare -n -P -A dept -o Account,GrpTRESRaw"
  scancel -u alice; scancel -u bob
  unset J1 J2 J3 J4 J5 J6 J7 J8
}

budget() {
  out=$OUT/budget.txt; : > "$out"
  ensure account budget parent=root GrpTRESMins=gres/gpu=2
  sacctmgr -i add user alice account=budget >/dev/null 2>&1 || true
  sacctmgr -i modify account budget set GrpTRESMins=gres/gpu=2 >/dev/null
  sacctmgr -i modify account budget set RawUsage=0 >/dev/null
  note "sacctmgr -i add account budget parent=root GrpTRESMins=gres/gpu=2; AccountingStorageEnforce=...,safe"
  J1=$(job --uid=alice -A budget --gres=gpu:2 -t 1 --wrap 'sleep 50')
  J2=$(job --uid=alice -A budget --gres=gpu:1 -t 1 --wrap 'sleep 50')
  export J1 J2
  sleep 5
  note "J1 asks 2 GPUs for 1 minute (the whole budget), J2 1 GPU for 1 minute, nothing used yet:"
  note "J2 waits for J1 (with safe, what a running job may still use counts against GrpTRESMins)"
  show "squeue -h -j $J1,$J2 -o '%i %T %r'"
  until_state "$J1" COMPLETED
  sleep 75   # one PriorityCalcPeriod after J1's end: its usage (about 1.7 GPU-minutes) is accrued
  scancel "$J2"
  J3=$(job --uid=alice -A budget --gres=gpu:1 -t 1 --wrap 'sleep 5')
  export J3
  sleep 5
  note "with the budget used, J3 (1 GPU, 1 minute) pends"
  show "squeue -h -j $J3 -o '%i %T %r'"
  show "sshare -n -P -A budget -o Account,User,GrpTRESMins"
  show "sacctmgr -i modify account budget set RawUsage=0"
  until_state "$J3" RUNNING COMPLETED
  note "after the reset J3 runs"
  show "sacct -n -X -P -j $J3 -o State | head -1 | cut -d' ' -f1"
  unset J1 J2 J3
}

grace() {
  out=$OUT/grace.txt; : > "$out"
  ensure qos prelow GraceTime=20 PreemptMode=cancel
  ensure qos prehigh Preempt=prelow
  sacctmgr -i modify user alice set qos+=prelow,prehigh >/dev/null
  note "sacctmgr add qos prelow GraceTime=20 PreemptMode=cancel; add qos prehigh Preempt=prelow"
  local ck=/tmp/gantry-ref-checkpoint; rm -f $ck
  J1=$(job --uid=alice -A physics -q prelow --gres=gpu:8 -t 10 --wrap "trap 'echo saved > $ck' TERM; sleep 300 & wait; sleep 300 & wait")
  export J1
  until_state "$J1" RUNNING
  sleep 2
  local at; at=$(date +%s)
  J2=$(job --uid=alice -A physics -q prehigh --gres=gpu:8 -t 10 --wrap 'sleep 5')
  export J2
  until_state "$J1" PREEMPTED CANCELLED
  local ended; ended=$(date +%s)
  note "seconds from the preemptor's submission to the victim's end: $((ended - at))"
  show "test -f $ck && cat $ck"
  show "sacct -n -X -P -j $J1 -o State,ExitCode"
  until_state "$J2" RUNNING COMPLETED
  show "sacct -n -X -P -j $J2 -o State | head -1 | cut -d' ' -f1"
  unset J1 J2
}

suspend() {
  out=$OUT/suspend.txt; : > "$out"
  ensure qos presus PreemptMode=suspend
  sacctmgr -i modify qos prehigh set Preempt=prelow,presus >/dev/null
  sacctmgr -i modify user alice set qos+=presus,prehigh >/dev/null
  # Slurm suspends only where the partition lets jobs share resources (OverSubscribe=FORCE), and never
  # shares GRES: with GPUs the preemptor waits (recorded in suspend-gpu.txt). The CPU jobs show suspension.
  scontrol update PartitionName=batch OverSubscribe=FORCE:1
  note "sacctmgr add qos presus PreemptMode=suspend; modify qos prehigh set Preempt=prelow,presus;"
  note "scontrol update PartitionName=batch OverSubscribe=FORCE:1; both jobs ask all 8 CPUs"
  J1=$(job --uid=alice -A physics -q presus -c 8 -t 10 --wrap 'sleep 171')
  export J1
  until_state "$J1" RUNNING
  sleep 2
  J2=$(job --uid=alice -A physics -q prehigh -c 8 -t 10 --wrap 'sleep 20')
  export J2
  until_state "$J2" RUNNING
  sleep 2
  show "squeue -h -j $J1,$J2 -o '%i %T %r'"
  show "ps -o stat= -C sleep --sort=start_time | head -1 | cut -c1"
  until_state "$J2" COMPLETED
  sleep 3
  show "squeue -h -j $J1 -o '%i %T %r'"
  show "ps -o stat= -C sleep --sort=start_time | head -1 | cut -c1"
  scancel "$J1"
  scontrol update PartitionName=batch OverSubscribe=NO
  unset J1 J2
}

qos() {
  out=$OUT/qos.txt; : > "$out"
  ensure qos peracct MaxJobsPerAccount=1
  ensure qos pertres MaxTRESPerAccount=gres/gpu=2,cpu=3
  ensure qos mintres MinTRESPerJob=gres/gpu=2,cpu=2
  sacctmgr -i modify user alice set qos+=peracct,pertres,mintres >/dev/null
  sacctmgr -i modify user bob set qos+=peracct,pertres,mintres >/dev/null
  note "QOS peracct MaxJobsPerAccount=1, pertres MaxTRESPerAccount=gres/gpu=2,cpu=3, mintres MinTRESPerJob=gres/gpu=2,cpu=2"
  J1=$(job --uid=alice -A physics -q peracct -t 10 --wrap 'sleep 60')
  J2=$(job --uid=alice -A physics -q peracct -t 10 --wrap 'sleep 60')
  J3=$(job --uid=bob -A chem -q peracct -t 10 --wrap 'sleep 60')
  export J1 J2 J3
  sleep 5
  note "two jobs of physics and one of chem under MaxJobsPerAccount=1"
  show "squeue -h -j $J1,$J2,$J3 -o '%i %a %T %r' --sort=i"
  scancel "$J1" "$J2" "$J3"
  J1=$(job --uid=alice -A physics -q pertres --gres=gpu:1 -t 10 --wrap 'sleep 60')
  J2=$(job --uid=alice -A physics -q pertres --gres=gpu:1 -t 10 --wrap 'sleep 60')
  J3=$(job --uid=alice -A physics -q pertres --gres=gpu:1 -t 10 --wrap 'sleep 60')
  J4=$(job --uid=alice -A physics -q pertres -c 4 -t 10 --wrap 'sleep 60')
  J5=$(job --uid=bob -A chem -q pertres --gres=gpu:2 -t 10 --wrap 'sleep 60')
  export J4 J5
  sleep 5
  note "physics: three 1-GPU jobs and a 4-CPU one, chem a 2-GPU one, under MaxTRESPerAccount=gres/gpu=2,cpu=3"
  show "squeue -h -j $J1,$J2,$J3,$J4,$J5 -o '%i %a %T %r' --sort=i"
  scancel "$J1" "$J2" "$J3" "$J4" "$J5"
  J1=$(job --uid=alice -A physics -q mintres --gres=gpu:1 -c 2 -t 10 --wrap 'sleep 60')
  J2=$(job --uid=alice -A physics -q mintres --gres=gpu:2 -c 1 -t 10 --wrap 'sleep 60')
  J3=$(job --uid=alice -A physics -q mintres --gres=gpu:2 -c 2 -t 10 --wrap 'sleep 60')
  sleep 5
  note "under MinTRESPerJob=gres/gpu=2,cpu=2: 1 GPU and 2 CPUs, 2 GPUs and 1 CPU, 2 GPUs and 2 CPUs"
  show "squeue -h -j $J1,$J2,$J3 -o '%i %T %r' --sort=i"
  show "sacctmgr -n -P show qos peracct,pertres,mintres format=name,maxjobspa,maxtrespa,mintres"
  scancel "$J1" "$J2" "$J3"
  unset J1 J2 J3 J4 J5
}

case "${1:-}" in
tree|budget|grace|suspend|qos) "$1" ;;
all) tree; budget; grace; suspend; qos ;;
*) echo "usage: $0 tree|budget|grace|suspend|qos|all" >&2; exit 2 ;;
esac
