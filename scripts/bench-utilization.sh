#!/usr/bin/env bash
# Utilization reports (GET /reports/utilization, like sreport) over a year of 1,000,000 finished jobs,
# one command: a fresh PostgreSQL database, the controller jar (Flyway makes the schema), the jobs of
# scripts/bench-accounting-fill.sql (2025, ~200 users, 20 accounts) and a year of sampled cluster
# capacity; then it times the controller rolling the jobs up into hours, and the year's reports.
#
#   ./mvnw -o -q -DskipTests -DskipFrontend package && scripts/bench-utilization.sh
#
# Environment: PGHOST (127.0.0.1), PGUSER (postgres), PORT (8091), JAR, JOBS (1000000), RUNS (7), KEEP_DB.
set -euo pipefail

cd "$(dirname "$0")/.."
PGHOST=${PGHOST:-127.0.0.1}
PGUSER=${PGUSER:-postgres}
PORT=${PORT:-8091}
JAR=${JAR:-target/gantry.jar}
JOBS=${JOBS:-1000000}
RUNS=${RUNS:-7}
DB=gantry_bench_util
PASSWORD=bench-admin-password
URL=http://127.0.0.1:$PORT
WORK=$(mktemp -d -t gantry-util.XXXXXX)
CONTROLLER_PID=

[ -f "$JAR" ] || { echo "no $JAR: run ./mvnw -o -q -DskipTests -DskipFrontend package first" >&2; exit 1; }
cleanup() {
    if [ -n "$CONTROLLER_PID" ] && kill -0 "$CONTROLLER_PID" 2>/dev/null; then
        kill "$CONTROLLER_PID"
        wait "$CONTROLLER_PID" 2>/dev/null || true
    fi
    [ -n "${KEEP_DB:-}" ] || psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" >/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
sql() { psql -At -h "$PGHOST" -U "$PGUSER" -d "$DB" -v ON_ERROR_STOP=1 "$@"; }

psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" -c "create database $DB" >/dev/null
start_controller() {
    java -Xms512m -Xmx1g -jar "$JAR" --spring.profiles.active=postgres \
        --spring.datasource.url="jdbc:postgresql://$PGHOST:5432/$DB" --spring.datasource.username="$PGUSER" \
        --server.port="$PORT" --gantry.data-dir="$WORK/data" --gantry.security.bootstrap-admin-password="$PASSWORD" \
        --gantry.reports.sample-period=5s --logging.file.name="$WORK/controller.log" >/dev/null 2>&1 &
    CONTROLLER_PID=$!
    for _ in $(seq 1 180); do
        curl -sf -o /dev/null "$URL/actuator/health" && return
        kill -0 "$CONTROLLER_PID" 2>/dev/null || { tail -50 "$WORK/controller.log" >&2; exit 1; }
        sleep 1
    done
}
start_controller
# Stop it while the year is filled in, so that the rollup starts from the whole year at once.
kill "$CONTROLLER_PID"; wait "$CONTROLLER_PID" 2>/dev/null || true

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
t0=$(date +%s.%N)
sql -q -v jobs="$JOBS" -f scripts/bench-accounting-fill.sql >/dev/null
# A year of capacity: the demo cluster (16 x 128 CPUs + 8 x 64; 128 GPUs), two nodes drained in March.
sql -q -c "
DELETE FROM cluster_hourly;
INSERT INTO cluster_hourly (hour_start, total_cpu_seconds, total_gpu_seconds, down_cpu_seconds, down_gpu_seconds,
        reserved_cpu_seconds, reserved_gpu_seconds)
SELECT h, 2560 * 3600, 128 * 3600,
       CASE WHEN extract(month FROM h) = 3 THEN 256 * 3600 ELSE 0 END,
       CASE WHEN extract(month FROM h) = 3 THEN 16 * 3600 ELSE 0 END, 0, 0
FROM generate_series(timestamptz '2025-01-01 00:00:00+00', timestamptz '2025-12-31 23:00:00+00', interval '1 hour') AS h;
UPDATE utilization_state SET rolled_up_to = timestamptz '1970-01-01 00:00:00+00', sampled_at = NULL;"
printf 'fill: %d jobs and 8,760 capacity hours in %.1f s\n' "$JOBS" "$(echo "$(date +%s.%N) - $t0" | bc)"

t0=$(date +%s.%N)
start_controller
last_end=$(sql -c "select max(end_time) from jobs where end_time < now() - interval '1 day'")
until [ "$(sql -c "select rolled_up_to >= '$last_end' from utilization_state")" = t ]; do sleep 1; done
printf 'rollup: the controller rolled %d jobs into %s hourly rows in %.1f s (from its start)\n' "$JOBS" \
    "$(sql -c 'select count(*) from usage_hourly')" "$(echo "$(date +%s.%N) - $t0" | bc)"

TOKEN=$(curl -sf -H 'Content-Type: application/json' \
    -d "{\"username\":\"admin\",\"password\":\"$PASSWORD\"}" "$URL/api/v1/auth/tokens" | sed 's/.*"token":"\([^"]*\)".*/\1/')
YEAR="start=2025-01-01T00:00:00Z&end=2026-01-01T00:00:00Z"
CASES=(
    "year, cluster, per day|$YEAR&groupBy=cluster&interval=day"
    "year, cluster, per hour|$YEAR&groupBy=cluster&interval=hour"
    "year, per account, per day|$YEAR&groupBy=account&interval=day"
    "year, per user, per day|$YEAR&groupBy=user&interval=day"
    "a month, per account, per hour|start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z&groupBy=account&interval=hour"
)
printf '%-34s %9s %8s %8s %9s\n' case median_ms min_ms max_ms buckets
for c in "${CASES[@]}"; do
    IFS='|' read -r name query <<<"$c"
    times=()
    for _ in $(seq 1 "$RUNS"); do
        t=$(curl -s -o "$WORK/out" -w '%{time_total}' -H "Authorization: Bearer $TOKEN" \
            "$URL/api/v1/reports/utilization?$query")
        times+=("$(echo "$t * 1000" | bc)")
    done
    buckets=$(grep -o '"start"' "$WORK/out" | wc -l)
    sorted=$(printf '%s\n' "${times[@]}" | sort -n)
    printf '%-34s %9.1f %8.1f %8.1f %9s\n' "$name" "$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")" \
        "$(echo "$sorted" | head -1)" "$(echo "$sorted" | tail -1)" "$(( buckets - 1 ))"
done
# The whole year adds up: allocated GPU-hours from the report equal sacct's GPU-seconds / 3600.
report_gpu=$(curl -s -H "Authorization: Bearer $TOKEN" "$URL/api/v1/reports/utilization?$YEAR&groupBy=cluster&interval=day" \
    | python3 -c 'import json,sys; print(round(sum(b["gpuHours"]["allocated"] for b in json.load(sys.stdin)["buckets"]), 3))')
jobs_gpu=$(sql -c "select round(sum(extract(epoch from (least(end_time, timestamptz '2026-01-01') - greatest(start_time, timestamptz '2025-01-01'))) * gpus) / 3600.0, 3) from jobs where start_time < '2026-01-01' and end_time > '2025-01-01'")
echo "year's allocated GPU-hours: report $report_gpu, jobs table $jobs_gpu"
