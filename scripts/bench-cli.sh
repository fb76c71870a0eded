#!/usr/bin/env bash
# How long Gantry's Slurm commands take, wall clock, as a workflow engine's polling sees them: installs
# the launchers (extracted jar + class-data archive, and the plain jar for comparison) and runs
# `squeue -h` RUNS times against a controller, printing p50 and p90 of each.
# usage: GANTRY_URL=http://127.0.0.1:8080 GANTRY_TOKEN=... [RUNS=21] [JAR=target/gantry.jar] scripts/bench-cli.sh
set -eu
: "${GANTRY_URL:?set GANTRY_URL (and GANTRY_TOKEN)}"
RUNS=${RUNS:-21}
JAR=$(realpath "${JAR:-target/gantry.jar}")
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
java -jar "$JAR" cli install --prefix "$DIR/fast" >/dev/null
java -jar "$JAR" cli install --prefix "$DIR/plain" --no-cds >/dev/null
for kind in fast plain; do
  times=()
  for _ in $(seq 1 "$RUNS"); do
    start=$(date +%s%N)
    "$DIR/$kind/squeue" -h >/dev/null
    times+=($(( ($(date +%s%N) - start) / 1000000 )))
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  p50=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
  p90=$(echo "$sorted" | sed -n "$(( (RUNS * 9 + 9) / 10 ))p")
  echo "squeue -h ($kind launcher): runs=$RUNS p50_ms=$p50 p90_ms=$p90 load=$(cut -d' ' -f1 /proc/loadavg)"
done
