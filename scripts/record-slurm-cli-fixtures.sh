#!/usr/bin/env bash
# Re-records the Slurm 22.05 command-line corpus under src/test/resources/cli/slurm-22.05/ from the live
# reference Slurm of /work/shared/tools/slurm-ref.sh (start it first). Each fixture holds one command line,
# its exit code, stdout and stderr; CliCorpusTests replays the same command line against Gantry's CLI with
# the same jobs, nodes and partitions and compares field for field.
#
# It submits its own jobs (names fix-*) and cancels only those: other jobs on the reference Slurm (a
# benchmark's) are never touched, which is why every squeue/scancel line names its job ids.
# The accounting commands (sacctmgr, sshare, sprio, sreport) need slurmdbd: their corpus comes from
# scripts/slurm-ref-accounting.sh and scripts/record-slurm-accounting-fixtures.sh.
# The reservation lines come last (scontrol show reservation): with the argument "reservations" only they are
# recorded again, after the job lines already in the corpus, and the job lines stay as they are.
# usage: scripts/record-slurm-cli-fixtures.sh [reservations]
set -eu
export SLURM_CONF=${SLURM_CONF:-/tmp/slurmref/slurm.conf}
cd "$(dirname "$0")/.."
OUT=src/test/resources/cli/slurm-22.05
ONLY=${1:-all}
mkdir -p "$OUT"
if [ "$ONLY" = reservations ]; then
  rm -f "$OUT"/*-reservation*.txt "$OUT"/*-res-*.txt "$OUT/reservations.state"
else
  rm -f "$OUT"/*.txt
fi
n=$(ls "$OUT" | grep -c '^[0-9].*\.txt$' || true)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
# record NAME COMMAND-LINE: runs it, stores "$ line", "? rc", "@ when" (epoch seconds, for the run times
# printed), then stdout and stderr sections. Job ids are
# written as {J1}..{J9} so the corpus reads the same whatever ids the reference Slurm gave.
record() {
  local name=$1 line=$2
  n=$((n + 1))
  local file=$OLDPWD/$OUT/$(printf '%02d' $n)-$name.txt
  local at; at=$(date +%s)
  set +e
  sh -c "$line" >"$WORK/out" 2>"$WORK/err" </dev/null
  local rc=$?
  set -e
  { echo "\$ $(ids "$line")"; echo "? $rc"; echo "@ $at"; echo "--- stdout"; ids "$(cat "$WORK/out")"; echo "--- stderr";
    ids "$(cat "$WORK/err")"; } | sed -e "s/$(hostname -s)/{CTLHOST}/g" \
      -e 's/Submitted batch job [0-9]*/Submitted batch job {NEW}/' >"$file"
}
ids() {
  local text=$1 k
  for k in 9 8 7 6 5 4 3 2 1; do
    local v; eval "v=\${J$k:-}"
    [ -n "$v" ] && text=${text//$v/\{J$k\}}
  done
  printf '%s\n' "$text"
}

# The reservations: none of the recording's own to begin with (an earlier run's fix-* are deleted; any other
# reservation makes the "none" line impossible to record, so the script stops). Then three, created a second
# apart in an order that is not their start order (scontrol lists them in creation order): one for
# maintenance on named nodes, one of a partition's node count for two users, and one that is active now. Each
# reservations.state entry is "@ epoch-of-creation" then the reservation's one-line record.
record_reservations() {
  for r in $(scontrol show res -o | sed -n 's/^ReservationName=\(fix-[^ ]*\) .*/\1/p'); do
    scontrol delete reservationname="$r"
  done
  if [ "$(scontrol show res)" != "No reservations in the system" ]; then
    echo "the reference Slurm has reservations of its own: delete them before recording" >&2
    exit 1
  fi
  record scontrol-show-reservation-none "scontrol show reservation"
  : >"$OLDPWD/$OUT/reservations.state"
  local spec name
  for spec in "fix-maint users=root nodes=ref2 starttime=now+1hour duration=2:00:00 flags=ignore_jobs,maint" \
      "fix-proj users=root,nobody partition=cpu nodecnt=1 starttime=now+3hours duration=1-00:00:00" \
      "fix-now users=root nodes=ref2 starttime=now duration=30 flags=ignore_jobs"; do
    sleep 1
    name=${spec%% *}
    local at; at=$(date +%s)
    # shellcheck disable=SC2086
    scontrol create reservation reservationname=$name ${spec#* } >/dev/null
    { echo "@ $at"; scontrol show res -o "$name"; } >>"$OLDPWD/$OUT/reservations.state"
  done
  sleep 1
  record scontrol-show-reservation "scontrol show reservation"
  record scontrol-show-res-one "scontrol show res fix-maint"
  record scontrol-show-res-oneliner "scontrol show res -o"
  record scontrol-oneliner-reservation "scontrol -o show reservation fix-proj"
  record scontrol-bad-reservation "scontrol show reservation nosuch"
  for name in fix-maint fix-proj fix-now; do scontrol delete reservationname=$name; done
}
if [ "$ONLY" = reservations ]; then
  record_reservations
  exit 0
fi
# sinfo's lines print the node's state: wait until the jobs of a previous recording have left it.
for _ in $(seq 1 600); do
  case "$(sinfo -h -n ref2 -o %t)" in *comp*|*unk*) sleep 1 ;; *) break ;; esac
done
# The jobs: J1 runs on ref2 (cpu), J2 is held, J3 waits on J1, J4 is a held array, J5 runs on gpu.
J1=$(sbatch --parsable -J fix-run -p cpu -t 10:00 --mem=1G --wrap "sleep 900")
J2=$(sbatch --parsable -J fix-held -H -p cpu -t 1:00:00 --mem=1G --wrap "sleep 900")
J3=$(sbatch --parsable -J fix-dep -d afterok:$J1 -p cpu -t 5:00 --mem=1G --wrap true)
J4=$(sbatch --parsable -J fix-array -H -a 1-3 -p cpu -t 2:00 --mem=1G --wrap true)
J5=$(sbatch --parsable -J fix-gpu -p gpu -t 30:00 --mem=2G -c 4 --wrap "sleep 900")
export J1 J2 J3 J4 J5
# Ids are replaced as text: a short id (a freshly started reference gives 1, 2, ...) would also replace
# the same digits in counts, times and sizes and garble the corpus.
for k in 1 2 3 4 5; do
  eval "v=\$J$k"
  if [ "${#v}" -lt 5 ]; then
    echo "job id $v is too short to stand for itself in the fixtures (it is replaced as text): give the" \
      "reference Slurm FirstJobId=100000 in \$SLURM_CONF, restart its slurmctld, and record again" >&2
    scancel "$J1" "$J2" "$J3" "$J4" "$J5"
    exit 1
  fi
done
sleep 3
# Each job's full record, from which the test builds the same jobs in Gantry.
for k in 1 2 3 4 5; do eval "scontrol show job -o \$J$k"; done >"$WORK/jobs"
ids "$(cat "$WORK/jobs")" >"$OLDPWD/$OUT/jobs.state"
ids "$(scontrol show node -o ref2; scontrol show partition -o)" >"$OLDPWD/$OUT/cluster.state"

record squeue-default "squeue -j $J1,$J2,$J3,$J5"
record squeue-state-only "squeue -h -j $J1 -o %T"
record squeue-state-pending "squeue -h -j $J2 -o %T"
record squeue-fields "squeue -j $J1,$J2 -o '%i %j %u %T %t %D %R %P %l'"
record squeue-default-format "squeue -j $J2,$J3 -o '%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R'"
record squeue-reason "squeue -h -j $J2,$J3 -o '%i %r'"
record squeue-noheader "squeue --noheader -j $J2"
record squeue-pending "squeue -j $J1,$J2,$J3 -t PD"
record squeue-running "squeue -j $J1,$J2,$J3,$J5 -t R"
record squeue-states-lower "squeue -h -j $J1,$J2 -t running,pending -o '%i %T'"
record squeue-partition "squeue -h -j $J1,$J5 -p gpu -o '%i %P'"
record squeue-user "squeue -h -u root -j $J1 -o '%i %u'"
record squeue-array "squeue -j $J4"
record squeue-array-expanded "squeue -r -j $J4 -o '%i %A %a %K %T'"
record squeue-cpus "squeue -h -j $J5 -o '%i %C %D %c'"
record squeue-widths "squeue -j $J1 -o '%5P|%.10T|%20j|%.2t'"
record squeue-truncated "squeue -j $J4 -o '%.2j %.4T %3P'"
record squeue-format-long "squeue -h -j $J1,$J2 --format='%i %T %j'"
record squeue-Format "squeue -j $J1 -O JobID,Name,State,Partition"
record squeue-bad-job "squeue -j 999999999"
record squeue-bad-option "squeue --frobnicate"
record squeue-bad-state "squeue -t BOGUS"
record squeue-bad-partition-filter "squeue -h -j $J1 -p nosuch"
record sinfo-node "sinfo -n ref2"
record sinfo-node-N "sinfo -N -n ref2"
record sinfo-format "sinfo -h -n ref2 -o '%P %a %D %t'"
record sinfo-partition "sinfo -p cpu -n ref2"
record sinfo-fields "sinfo -n ref2 -o '%P %c %m %G %f %l'"
record sinfo-state "sinfo -h -n ref2 -t mixed -o '%P %T'"
record sinfo-bad-option "sinfo --frobnicate"
record scontrol-hostnames "scontrol show hostnames 'ref[1-3],vm,gpu[08-10]'"
record scontrol-hostlist "scontrol show hostlist ref1,ref2,ref3,gpu08,gpu09"
record scontrol-bad-job "scontrol show job 999999999"
record scontrol-bad-partition "scontrol show partition nosuch"
record scontrol-ping "scontrol ping"
record scontrol-hold "scontrol hold $J3"
record scontrol-show-held "squeue -h -j $J3 -o '%i %T %r'"
record scontrol-release "scontrol release $J3"
record scontrol-update "scontrol update JobId=$J2 TimeLimit=20:00"
record scontrol-updated "squeue -h -j $J2 -o '%i %l'"
record scontrol-bad-command "scontrol frobnicate"
record sbatch-wrap "sbatch -J fix-sub -p cpu --mem=1G -H --wrap true"
record sbatch-bad-partition "sbatch -p nosuch --wrap true"
record sbatch-bad-option "sbatch --frobnicate --wrap true"
record sbatch-not-a-script "echo 'hostname' | sbatch"
record sbatch-missing-file "sbatch /nonexistent/job.sh"
record scancel-bad-job "scancel 999999999"
record scancel-bad-option "scancel --frobnicate"
record scancel-job "scancel $J3"
record scancel-done "squeue -h -j $J3 -o '%i %T'"
for k in 1 2 3 4 5; do eval "scancel \$J$k"; done
scancel --name=fix-sub -u root
record_reservations
