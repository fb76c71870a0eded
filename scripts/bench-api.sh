#!/usr/bin/env bash
# The job API benchmarks of issue 4, one command: for each of the three load tests it starts the
# controller jar on profile "postgres" against a fresh PostgreSQL database and the 1,000-node
# simulated cluster of scripts/bench-cluster.yml, runs the test, prints its figures and stops the
# controller. A fresh store per test keeps one test's queue from slowing the next.
#
#   ./mvnw -B -ntp -DskipTests package && scripts/bench-api.sh
#
# Environment: PGHOST (127.0.0.1), PGUSER (postgres, trust auth), PORT (8080), JAR
# (target/gantry.jar), LOADTEST_JAR (the jar whose loadtest command drives it, default JAR: set it
# to measure an older controller), CONTROLLER_OPTS (JVM options of the controller), TESTS (the load tests to
# run, default "latency throughput submit"), SUBMIT_SECONDS (30), LATENCY_JOBS (200),
# THROUGHPUT_JOBS (20000), CLIENTS (16).
set -euo pipefail

cd "$(dirname "$0")/.."
PGHOST=${PGHOST:-127.0.0.1}
PGUSER=${PGUSER:-postgres}
PORT=${PORT:-8080}
JAR=${JAR:-target/gantry.jar}
LOADTEST_JAR=${LOADTEST_JAR:-$JAR}
CONTROLLER_OPTS=${CONTROLLER_OPTS:--Xms1g -Xmx2g}
TESTS=${TESTS:-latency throughput submit}
CLIENTS=${CLIENTS:-16}
DB=gantry_bench_api
PASSWORD=bench-admin-password
URL=http://127.0.0.1:$PORT
WORK=$(mktemp -d -t gantry-bench.XXXXXX)
CONTROLLER_PID=

[ -f "$JAR" ] || { echo "no $JAR: run ./mvnw -B -ntp -DskipTests package first" >&2; exit 1; }
if curl -s -o /dev/null "$URL/actuator/health"; then
    echo "something already answers on port $PORT; set PORT to a free one" >&2
    exit 1
fi

stop_controller() {
    if [ -n "$CONTROLLER_PID" ] && kill -0 "$CONTROLLER_PID" 2>/dev/null; then
        kill "$CONTROLLER_PID"
        wait "$CONTROLLER_PID" 2>/dev/null || true
    fi
    CONTROLLER_PID=
}
trap 'stop_controller; rm -rf "$WORK"' EXIT

start_controller() {
    local name=$1
    psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" -c "create database $DB" >/dev/null
    rm -rf "$WORK/data"
    # shellcheck disable=SC2086
    java $CONTROLLER_OPTS -jar "$JAR" \
        --spring.profiles.active=postgres \
        --spring.datasource.url="jdbc:postgresql://$PGHOST:5432/$DB" \
        --spring.datasource.username="$PGUSER" \
        --spring.config.additional-location=file:scripts/bench-cluster.yml \
        --server.port="$PORT" \
        --gantry.data-dir="$WORK/data" \
        --gantry.security.bootstrap-admin-password="$PASSWORD" \
        --logging.file.name="$WORK/controller-$name.log" >/dev/null 2>&1 &
    CONTROLLER_PID=$!
    for _ in $(seq 1 180); do
        if curl -sf -o /dev/null "$URL/actuator/health"; then
            return 0
        fi
        kill -0 "$CONTROLLER_PID" 2>/dev/null || break
        sleep 1
    done
    echo "the controller did not start; its log:" >&2
    tail -50 "$WORK/controller-$name.log" >&2 || true
    exit 1
}

loadtest() {
    java -jar "$LOADTEST_JAR" loadtest "$@" --url "$URL" --user admin --password "$PASSWORD"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
for test in $TESTS; do
    start_controller "$test"
    case $test in
        latency) loadtest latency --jobs "${LATENCY_JOBS:-200}" --run-seconds 1 ;;
        throughput) loadtest throughput --jobs "${THROUGHPUT_JOBS:-20000}" --run-seconds 1 --array-size 100 --clients 4 ;;
        submit) loadtest submit --clients "$CLIENTS" --seconds "${SUBMIT_SECONDS:-30}" --warmup 5 --array-size 10000 ;;
        *) echo "unknown test $test" >&2; exit 2 ;;
    esac
    stop_controller
done
psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB" >/dev/null
