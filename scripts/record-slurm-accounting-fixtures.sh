#!/usr/bin/env bash
# Records the Slurm 22.05 corpus of the accounting commands (sacctmgr, sshare, sprio, sreport) under
# src/test/resources/cli/slurm-22.05-accounting/ from the live Slurm with slurmdbd of
# scripts/slurm-ref-accounting.sh (start it first). Each fixture holds one command line, its exit code,
# stdout and stderr, as scripts/record-slurm-cli-fixtures.sh writes them; CliAccountingCorpusTests replays
# them against Gantry's commands with the same accounts, users, QOS, usage and pending jobs.
#
# The reference keeps usage undecayed (PriorityDecayHalfLife=0), so sshare prints the same figures
# from one line to the next.
#
# Phases (run in this order; each appends to the corpus):
#   usage    runs jobs as alice and bob so that the accounts have usage (wait for them to end)
#   tables   sacctmgr and sshare lines (and the *.state files the replay builds its state from)
#   priorities  sprio lines over three pending jobs (the node drained meanwhile, so no usage moves)
#   reports  sreport lines over the hour given as START (e.g. 2026-12-03T22:00:00), once slurmdbd has
#            rolled it up (after the hour, restart slurmdbd to roll up at once)
# usage: scripts/record-slurm-accounting-fixtures.sh usage|tables|priorities|reports [START]
set -eu
export SLURM_CONF=${SLURM_CONF:-/tmp/slurmacct/slurm.conf}
cd "$(dirname "$0")/.."
OUT=$PWD/src/test/resources/cli/slurm-22.05-accounting
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
host=$(hostname -s)
n=$(find "$OUT" -name '[0-9]*.txt' | wc -l)
# record NAME COMMAND-LINE: as in record-slurm-cli-fixtures.sh; a line may start with "runuser -u USER --"
# to run as that (non-admin) user.
record() {
  local name=$1 line=$2
  n=$((n + 1))
  local file=$OUT/$(printf '%02d' $n)-$name.txt
  local at; at=$(date +%s)
  set +e
  (cd "$WORK" && sh -c "$line" >"$WORK/out" 2>"$WORK/err" </dev/null)
  local rc=$?
  set -e
  { echo "\$ $(ids "$line")"; echo "? $rc"; echo "@ $at"; echo "--- stdout"; ids "$(cat "$WORK/out")"; echo "--- stderr";
    ids "$(cat "$WORK/err")"; } | sed -e "s/\b$host\b/{CTLHOST}/g" >"$file"
}
ids() {
  local text=$1 k
  for k in 9 8 7 6 5 4 3 2 1; do
    local v; eval "v=\${J$k:-}"
    [ -n "$v" ] && text=${text//$v/\{J$k\}}
  done
  printf '%s\n' "$text"
}
state() {
  ids "$(cat)" | sed -e "s/\b$host\b/{CTLHOST}/g" >"$OUT/$1"
}
as() {
  local user=$1; shift
  sbatch --parsable --uid="$user" --chdir=/tmp -p batch -o /dev/null "$@"
}

case "${1:-}" in
usage)
  rm -f "$OUT"/*
  # Usage: about four minutes of CPUs in physics (alice), theory (alice) and chem (bob).
  as alice -A physics -c 4 --mem=1G -t 10:00 -J use-phys --wrap "sleep 240" >/dev/null
  as alice -A theory -c 1 --mem=1G -t 10:00 -J use-theory --wrap "sleep 180" >/dev/null
  as bob -A chem -c 2 --mem=1G -t 10:00 -J use-chem --wrap "sleep 120" >/dev/null
  squeue -o '%i %u %a %T %C'
  ;;
tables)
  # The state the replay builds Gantry's accounting from.
  sacctmgr -n -P show assoc format=account,user,parentname,share,maxjobs,maxsubmit,grptres,qos,defaultqos | state assoc.state
  sacctmgr -n -P show account format=account,description,organization | state account.state
  sacctmgr -n -P show user format=user,defaultaccount,admin | state user.state
  sacctmgr -n -P show qos format=name,description,priority,maxwall,maxjobspu,maxsubmitpu,maxtrespu,maxtres,grptres,preempt,preemptmode,usagefactor,gracetime | state qos.state
  sshare -a -l -P | state sshare.state

  record sacctmgr-account "sacctmgr list account"
  record sacctmgr-account-name "sacctmgr show account physics"
  record sacctmgr-account-P "sacctmgr -P list account"
  record sacctmgr-account-withassoc "sacctmgr list account chem withassoc"
  record sacctmgr-account-s-format "sacctmgr -s -P list account format=account,user,share,parentname"
  record sacctmgr-account-widths "sacctmgr show account format=account%12,descr%25,org%-10"
  record sacctmgr-user "sacctmgr list user"
  record sacctmgr-user-P-n "sacctmgr -n -P list user"
  record sacctmgr-user-p "sacctmgr -p show user alice"
  record sacctmgr-user-withassoc "sacctmgr show user alice withassoc"
  record sacctmgr-user-s-format "sacctmgr -n -s show user bob format=user,account,share,maxjobs,grptres,qos%20"
  record sacctmgr-user-names "sacctmgr list user names=alice,bob format=user%8,defaultaccount%12,admin"
  record sacctmgr-user-missing "sacctmgr show user nosuch"
  record sacctmgr-assoc "sacctmgr list association"
  record sacctmgr-assoc-format "sacctmgr -P list assoc format=account,user,share,maxjobs,maxsubmit,grptres,qos,defaultqos"
  record sacctmgr-assoc-user "sacctmgr -n -P list assoc user=alice format=account,user,share"
  record sacctmgr-assoc-account "sacctmgr -n -P list assoc account=physics format=account,user,share"
  record sacctmgr-assoc-widths "sacctmgr show assoc format=cluster,account%10,user%6,share%5,qos%-15"
  record sacctmgr-qos "sacctmgr list qos"
  record sacctmgr-qos-format "sacctmgr list qos format=name,priority,maxwall,maxjobspu,maxsubmitpu,maxtrespu,grptres"
  record sacctmgr-qos-name "sacctmgr -P show qos short format=name,priority,maxwall,maxjobspu"
  record sacctmgr-qos-names "sacctmgr -n -P show qos names=short,long format=name,priority,maxwall,usagefactor"
  record sacctmgr-bad-entity "sacctmgr list frobnicate"
  record sacctmgr-bad-command "sacctmgr frobnicate"
  record sacctmgr-bad-option "sacctmgr --frobnicate"
  record sacctmgr-bad-field "sacctmgr list user format=bogus"
  record sacctmgr-not-admin "runuser -u alice -- sacctmgr -i add account biology"
  # Without -i sacctmgr asks to commit and reads the answer from stdin (at EOF it would ask forever).
  record sacctmgr-add-no-commit "echo n | sacctmgr add account biology parent=root"
  record sacctmgr-add-account "sacctmgr -i add account biology parent=root fairshare=10 description=Biology"
  record sacctmgr-add-exists "sacctmgr -i add account biology"
  record sacctmgr-modify-account "sacctmgr -i modify account biology set fairshare=20"
  record sacctmgr-add-user "sacctmgr -i add user bob account=biology"
  record sacctmgr-modify-user "sacctmgr -i modify user bob set defaultaccount=biology"
  record sacctmgr-user-modified "sacctmgr -n -P show user bob format=user,defaultaccount"
  record sacctmgr-add-qos "echo y | sacctmgr add qos gpu priority=20 MaxWall=04:00:00"
  record sacctmgr-modify-qos "sacctmgr -i modify qos short set MaxWall=02:00:00"
  record sacctmgr-qos-modified "sacctmgr -n -P show qos short,gpu format=name,priority,maxwall"
  record sacctmgr-delete-qos "sacctmgr -i delete qos gpu"
  record sacctmgr-modify-user-back "sacctmgr -i modify user bob set defaultaccount=chem"
  record sacctmgr-delete-user-assoc "sacctmgr -i delete user bob account=biology"
  record sacctmgr-delete-account "sacctmgr -i delete account biology"
  record sacctmgr-delete-missing "sacctmgr -i delete account nosuch"
  record sacctmgr-modify-qos-back "sacctmgr -i modify qos short set MaxWall=01:00:00"

  record sshare-default "sshare"
  record sshare-all "sshare -a"
  record sshare-long "sshare -a -l"
  record sshare-P "sshare -a -P"
  record sshare-user "sshare -u alice"
  record sshare-account "sshare -A physics"
  record sshare-format "sshare -a -o Account,User,RawShares,NormShares,RawUsage,FairShare"
  record sshare-noheader "sshare -n -a -P -o account,user,rawshares"
  ;;
priorities)

  # Pending jobs with priorities: the node drained, so nothing runs (and no usage moves) meanwhile.
  scontrol update nodename="$host" state=drain reason=fixtures
  J1=$(as alice -A physics -c 2 --mem=1G -t 30:00 -J pend-phys --wrap true)
  J2=$(as alice -A physics -q short -c 1 --mem=1G -t 20:00 -J pend-theory --wrap true)
  J3=$(as bob -A chem -q long -c 4 --mem=1G -t 2:00:00 -J pend-chem --wrap true)
  export J1 J2 J3
  sleep 70   # one PriorityCalcPeriod, so every factor is computed
  for k in 1 2 3; do eval "scontrol show job -o \$J$k"; done | state jobs.state
  sprio -h -o '%i|%u|%r|%Y|%y|%a|%A|%f|%F|%j|%J|%p|%P|%q|%Q|%S|%t|%T|%N' | state sprio.state
  sprio -w -h | state sprio-weights.state
  record sprio-default "sprio"
  record sprio-long "sprio -l"
  record sprio-norm "sprio -n"
  record sprio-jobs "sprio -j $J1,$J3"
  record sprio-user "sprio -u bob"
  record sprio-format "sprio -o '%i %u %Y %F %Q'"
  record sprio-noheader "sprio -h -o '%.10i %.8u %.10Y'"
  record sprio-weights "sprio -w"
  record sprio-bad-job "sprio -j 999999999"
  for k in 1 2 3; do eval "scancel \$J$k"; done
  scontrol update nodename="$host" state=resume
  ;;
reports)
  start=${2:?START, e.g. 2026-12-03T22:00:00}
  end=$(date -d "$start UTC + 1 hour" +%Y-%m-%dT%H:%M:%S)
  sreport -n -P -t seconds cluster utilization start="$start" end="$end" | state sreport-cluster.state
  sacct -a -X -n -P -S "$start" -E "$end" -o JobIDRaw,User,Account,AllocCPUS,Start,End,State,Partition,QOS | state sacct.state
  sinfo -h -N -o '%N|%c' | state nodes.state
  record sreport-cluster "sreport cluster utilization start=$start end=$end"
  record sreport-cluster-hours "sreport -t hours cluster utilization start=$start end=$end"
  record sreport-cluster-percent "sreport -t percent cluster utilization start=$start end=$end"
  record sreport-cluster-P "sreport -P cluster utilization start=$start end=$end"
  record sreport-account-user "sreport cluster AccountUtilizationByUser start=$start end=$end"
  record sreport-account-user-P "sreport -P -t hours cluster AccountUtilizationByUser start=$start end=$end"
  record sreport-topusage "sreport user topusage start=$start end=$end"
  record sreport-topusage-P "sreport -n -P user topusage start=$start end=$end"
  record sreport-bad-report "sreport cluster frobnicate"
  ;;
*)
  echo "usage: $0 usage|tables|priorities|reports [START]" >&2
  exit 2
  ;;
esac
