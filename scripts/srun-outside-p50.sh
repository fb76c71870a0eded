#!/bin/sh
# p50 (and min/max) wall time of `srun -N1 true` typed outside any job, against a running controller
# and its real agents on an idle cluster: submit, start, step, relay and the job's end, client JVM included.
# Before each run it waits (untimed) until squeue shows no job, so every run finds the cluster idle: the
# job of the run before ends a moment after its srun returned (its batch work sees the step end).
# Usage: scripts/srun-outside-p50.sh [runs]   (srun and squeue are the launchers `cli install` wrote, or
# set SRUN=... SQUEUE=...; GANTRY_URL/GANTRY_TOKEN or `gantry login` say which controller and user)
set -eu
runs=${1:-20}
srun=${SRUN:-srun}
squeue=${SQUEUE:-squeue}
i=0
times=""
while [ "$i" -lt "$runs" ]; do
  while [ -n "$($squeue -h)" ]; do sleep 0.2; done
  start=$(date +%s%N)
  $srun -N1 true
  end=$(date +%s%N)
  times="$times $(( (end - start) / 1000000 ))"
  i=$((i + 1))
done
echo "$times" | tr ' ' '\n' | grep . | sort -n | awk '{ t[NR] = $1 } END {
  printf "srun -N1 true outside a job: %d runs, p50 %d ms, min %d ms, max %d ms\n", NR, t[int((NR + 1) / 2)], t[1], t[NR] }'
