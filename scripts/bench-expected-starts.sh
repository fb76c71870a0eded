#!/bin/bash
# Expected starts through the whole service: the controller jar on PostgreSQL with 12,500 simulated
# 8-GPU nodes (scripts/bench-estimates-cluster.yml) kept busy for two days, then PENDING pending array
# tasks of five shapes (1, 4 and 8 GPUs, 2 and 8 whole nodes). Every 5 s it prints the time, how many
# pending jobs have no expected start yet, and how many are pending; at the end the controller's last
# expected-start passes and store writes.
#
#   ./mvnw -B -ntp -DskipTests -DskipFrontend package && scripts/bench-expected-starts.sh
#   JAR=/other/gantry.jar PENDING=50000 ROUNDS=60 scripts/bench-expected-starts.sh
set -u
cd "$(dirname "$0")/.."
JAR=${JAR:-target/gantry.jar}
DB=${DB:-gantry_bench_estimates}
PENDING=${PENDING:-100000}
ROUNDS=${ROUNDS:-30}
PORT=${PORT:-18301}
PGHOST=${PGHOST:-127.0.0.1}
PGUSER=${PGUSER:-postgres}
URL=http://127.0.0.1:$PORT
PASSWORD=bench-$RANDOM-$RANDOM
WORK=$(mktemp -d)
sql() { psql -h "$PGHOST" -U "$PGUSER" "$@"; }
sql -q -c "drop database if exists $DB with (force)" -c "create database $DB" >/dev/null
java -Xms1g -Xmx3g -jar "$JAR" --spring.profiles.active=postgres \
    --spring.datasource.url="jdbc:postgresql://$PGHOST:5432/$DB" --spring.datasource.username="$PGUSER" \
    --spring.config.additional-location=file:scripts/bench-estimates-cluster.yml --server.port="$PORT" \
    --gantry.data-dir="$WORK/data" --gantry.security.bootstrap-admin-password="$PASSWORD" \
    --logging.level.io.gantry.scheduling.ExpectedStarts=debug \
    --logging.level.io.gantry.scheduling.SchedulingCycle=debug \
    --logging.file.name="$WORK/controller.log" >"$WORK/out" 2>&1 &
PID=$!
cleanup() {
    kill "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    sql -q -c "drop database if exists $DB with (force)" >/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 180); do
    curl -sf -o /dev/null "$URL/actuator/health" && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 1
done
curl -sf -o /dev/null "$URL/actuator/health" || { echo "the controller did not start:" >&2; tail -20 "$WORK/out" >&2; exit 1; }
TOKEN=$(curl -s -X POST "$URL/api/v1/auth/tokens" -H 'Content-Type: application/json' \
    -d "{\"username\":\"admin\",\"password\":\"$PASSWORD\"}" | python3 -c 'import sys,json; print(json.load(sys.stdin)["token"])')
submit() {
    local code
    code=$(curl -s -o "$WORK/answer" -w '%{http_code}' -X POST "$URL/api/v1/jobs" -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' -d "$1")
    [ "$code" = 201 ] || { echo "submission answered $code: $(cat "$WORK/answer")" >&2; exit 1; }
}
script='"script":"#!/bin/bash\ntrue\n"'
submit "{\"name\":\"fill\",\"nodes\":1,\"exclusive\":true,\"timeLimitSeconds\":172800,\"simulatedRunSeconds\":172800,\"array\":\"0-9999\",$script}"
submit "{\"name\":\"fill\",\"nodes\":1,\"exclusive\":true,\"timeLimitSeconds\":172800,\"simulatedRunSeconds\":172800,\"array\":\"0-2499\",$script}"
running=0
for _ in $(seq 1 120); do
    running=$(sql -d "$DB" -tAc "select count(*) from jobs where state='RUNNING'")
    [ "$running" -ge 12500 ] && break
    sleep 2
done
echo "# $running jobs running at $(date +%T)"
shapes=('"gpus":1,"timeLimitSeconds":3600' '"gpus":4,"timeLimitSeconds":14400'
    '"nodes":2,"exclusive":true,"timeLimitSeconds":28800' '"gpus":8,"timeLimitSeconds":7200'
    '"nodes":8,"exclusive":true,"timeLimitSeconds":86400')
left=$PENDING
k=0
began=$(date +%s)
while [ "$left" -gt 0 ]; do
    n=$((left < 10000 ? left : 10000))
    submit "{\"name\":\"queued$k\",${shapes[$((k % 5))]},\"simulatedRunSeconds\":600,\"array\":\"0-$((n - 1))\",$script}"
    left=$((left - n))
    k=$((k + 1))
done
echo "# $PENDING submitted at $(date +%T) in $(($(date +%s) - began)) s"
echo "# time | pending without an expected start | pending"
for _ in $(seq 1 "$ROUNDS"); do
    sleep 5
    sql -d "$DB" -tAc "select to_char(now(), 'HH24:MI:SS'), count(*) filter (where expected_start_time is null),
        count(*) from jobs where state = 'PENDING'"
done
echo "# the last expected-start passes and writes:"
grep "Expected starts" "$WORK/controller.log" | tail -6 | sed 's/.*: Expected starts/  Expected starts/'
