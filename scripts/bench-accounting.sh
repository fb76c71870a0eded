#!/usr/bin/env bash
# Job accounting (GET /accounting/jobs, like sacct) over 1,000,000 finished jobs, one command: makes a
# fresh PostgreSQL database, lets the controller jar create the schema (Flyway), fills the jobs table
# with scripts/bench-accounting-fill.sql (generate_series: a year, 2025, of ~200 users in 20 accounts),
# then times typical sacct questions with curl, RUNS times each, and prints the median.
#
#   ./mvnw -o -q -DskipTests -DskipFrontend package && scripts/bench-accounting.sh
#
# Environment: PGHOST (127.0.0.1), PGUSER (postgres, trust auth), PORT (8090), JAR (target/gantry.jar),
# JOBS (1000000), RUNS (7), KEEP_DB (unset: the database is dropped at the end), EXPLAIN (set: print
# EXPLAIN ANALYZE of the typical queries).
set -euo pipefail

cd "$(dirname "$0")/.."
PGHOST=${PGHOST:-127.0.0.1}
PGUSER=${PGUSER:-postgres}
PORT=${PORT:-8090}
JAR=${JAR:-target/gantry.jar}
JOBS=${JOBS:-1000000}
RUNS=${RUNS:-7}
DB=gantry_bench_sacct
PASSWORD=bench-admin-password
URL=http://127.0.0.1:$PORT
WORK=$(mktemp -d -t gantry-sacct.XXXXXX)
CONTROLLER_PID=

[ -f "$JAR" ] || { echo "no $JAR: run ./mvnw -o -q -DskipTests -DskipFrontend package first" >&2; exit 1; }
if curl -s -o /dev/null "$URL/actuator/health"; then
    echo "something already answers on port $PORT; set PORT to a free one" >&2
    exit 1
fi

cleanup() {
    if [ -n "$CONTROLLER_PID" ] && kill -0 "$CONTROLLER_PID" 2>/dev/null; then
        kill "$CONTROLLER_PID"
        wait "$CONTROLLER_PID" 2>/dev/null || true
    fi
    [ -n "${KEEP_DB:-}" ] || psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" >/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" -c "create database $DB" >/dev/null
java -Xms512m -Xmx1g -jar "$JAR" \
    --spring.profiles.active=postgres \
    --spring.datasource.url="jdbc:postgresql://$PGHOST:5432/$DB" \
    --spring.datasource.username="$PGUSER" \
    --server.port="$PORT" \
    --gantry.data-dir="$WORK/data" \
    --gantry.security.bootstrap-admin-password="$PASSWORD" \
    --logging.file.name="$WORK/controller.log" >/dev/null 2>&1 &
CONTROLLER_PID=$!
for _ in $(seq 1 180); do
    curl -sf -o /dev/null "$URL/actuator/health" && break
    kill -0 "$CONTROLLER_PID" 2>/dev/null || { tail -50 "$WORK/controller.log" >&2; exit 1; }
    sleep 1
done

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
fill_start=$(date +%s.%N)
psql -q -h "$PGHOST" -U "$PGUSER" -d "$DB" -v ON_ERROR_STOP=1 -v jobs="$JOBS" -f scripts/bench-accounting-fill.sql >/dev/null
printf 'fill: %d jobs in %.1f s (generate_series + indexes + ANALYZE); table %s\n' "$JOBS" \
    "$(echo "$(date +%s.%N) - $fill_start" | bc)" \
    "$(psql -At -h "$PGHOST" -U "$PGUSER" -d "$DB" -c "select pg_size_pretty(pg_total_relation_size('jobs'))")"

TOKEN=$(curl -sf -H 'Content-Type: application/json' \
    -d "{\"username\":\"admin\",\"password\":\"$PASSWORD\"}" "$URL/api/v1/auth/tokens" | sed 's/.*"token":"\([^"]*\)".*/\1/')

# name | query string | Accept
CASES=(
    "page 1 of a day (mid-year)|start=2025-07-01T00:00:00Z&end=2025-07-02T00:00:00Z|application/json"
    "page 1 of the year's last day|start=2025-12-31T00:00:00Z&end=2026-01-01T00:00:00Z|application/json"
    "page 20 of a day (mid-year)|start=2025-07-01T00:00:00Z&end=2025-07-02T00:00:00Z&page=19|application/json"
    "a user's month (user007, June)|start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z&user=user007&size=1000|application/json"
    "an account's month (acct03, June)|start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z&account=acct03|application/json"
    "failed gpu jobs of a week|start=2025-07-01T00:00:00Z&end=2025-07-08T00:00:00Z&state=FAILED,NODE_FAIL&partition=gpu|application/json"
    "CSV export of a day (mid-year)|start=2025-07-01T00:00:00Z&end=2025-07-02T00:00:00Z|text/csv"
    "CSV export of an account's month|start=2025-06-01T00:00:00Z&end=2025-07-01T00:00:00Z&account=acct03|text/csv"
)

printf '%-36s %8s %8s %8s %10s\n' case median_ms min_ms max_ms rows
for c in "${CASES[@]}"; do
    IFS='|' read -r name query accept <<<"$c"
    times=()
    for _ in $(seq 1 "$RUNS"); do
        t=$(curl -s -o "$WORK/out" -w '%{time_total}' -H "Authorization: Bearer $TOKEN" -H "Accept: $accept" \
            "$URL/api/v1/accounting/jobs?$query")
        times+=("$(echo "$t * 1000" | bc)")
    done
    if [ "$accept" = text/csv ]; then
        rows=$(( $(wc -l <"$WORK/out") - 1 ))
    else
        rows=$(sed 's/.*"total":\([0-9]*\).*/\1/' "$WORK/out")
    fi
    sorted=$(printf '%s\n' "${times[@]}" | sort -n)
    printf '%-36s %8.1f %8.1f %8.1f %10s\n' "$name" "$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")" \
        "$(echo "$sorted" | head -1)" "$(echo "$sorted" | tail -1)" "$rows"
done

if [ -n "${EXPLAIN:-}" ]; then
    # The SQL sacct sends (io.gantry.jobs.JobHistory), with the bound it computes (window end + longest job span,
    # 2 days 4 h in this data) and the "ended since the last scan" range.
    span=$(psql -At -h "$PGHOST" -U "$PGUSER" -d "$DB" -c "select ceil(extract(epoch from max(end_time - coalesce(start_time, eligible_time, submit_time)))) + 1 from jobs")
    recent=$(psql -At -h "$PGHOST" -U "$PGUSER" -d "$DB" -c "select max(end_time) - interval '1 hour' from jobs")
    COLS="job_id, array_task_id, name, user_name, account, partition, qos, state, exit_code, submit_time, start_time, end_time, allocation, allocated_nodes"
    win() { echo "(end_time IS NULL OR (end_time >= '$1' AND (end_time < timestamptz '$2' + interval '$span seconds' OR end_time >= '$recent'))) AND COALESCE(start_time, eligible_time, submit_time) < '$2'"; }
    for q in \
        "SELECT * FROM (SELECT $COLS FROM jobs WHERE $(win 2025-07-01T00:00:00Z 2025-07-02T00:00:00Z) OFFSET 0 ROWS) m ORDER BY job_id, array_task_id LIMIT 50" \
        "SELECT count(*) FROM jobs WHERE $(win 2025-07-01T00:00:00Z 2025-07-02T00:00:00Z)" \
        "SELECT * FROM (SELECT $COLS FROM jobs WHERE $(win 2025-06-01T00:00:00Z 2025-07-01T00:00:00Z) AND user_name IN ('user007') OFFSET 0 ROWS) m ORDER BY job_id, array_task_id LIMIT 1000" \
        "SELECT * FROM (SELECT $COLS FROM jobs WHERE $(win 2025-06-01T00:00:00Z 2025-07-01T00:00:00Z) AND account IN ('acct03') OFFSET 0 ROWS) m ORDER BY job_id, array_task_id LIMIT 50"; do
        echo "## $q"
        psql -h "$PGHOST" -U "$PGUSER" -d "$DB" -c "EXPLAIN (ANALYZE, BUFFERS) $q"
    done
fi
