#!/usr/bin/env bash
# The control-plane targets of issue 11, one command. Each part starts the controller jar on profile
# "postgres" against a fresh PostgreSQL database and the cluster of scripts/bench-cluster.yml, runs
# its load, stops the controller, and prints one line per target:
#
#   target=<name> figure=<value> goal=<goal> met=<yes|no> [slurmrestd=<value>] [more figures]
#
# The raw lines of the load generator (`java -jar gantry.jar loadtest ...`) are printed above them,
# and every target line again at the end.
#
#   ./mvnw -B -ntp -DskipTests -DskipFrontend package && scripts/bench-control-plane.sh
#
# Parts (PARTS, default all, in this order):
#   submit      16 clients POST held jobs for SUBMIT_SECONDS (after SUBMIT_WARMUP), then the same load
#               against a live slurmrestd (../shared/tools/slurm-ref.sh: Slurm 22.05, JWT; started when
#               nothing answers on 127.0.0.1:6820 and stopped at the end only then; SLURM=0 skips it):
#               rate, p50/p99, server CPU ms per submission on both sides, and the ratio.
#   latency     FINISHED finished jobs filled by SQL (scripts/bench-accounting-fill.sql), then
#               QUEUED_HELD held array tasks and QUEUED_PENDING pending tasks in partition cpu (kept
#               waiting by one exclusive job per cpu node) via the API; then LATENCY_JOBS 1-GPU jobs
#               one at a time on idle gpu nodes (submit to RUNNING), LIST_REQUESTS first pages of
#               GET /api/v1/jobs, and the controller's peak heap over the whole part.
#   throughput  THROUGHPUT_JOBS one-second jobs (arrays of 100) through the 1,000 simulated sim nodes:
#               steady completions per second (10 %-90 % of the jobs done).
#   agents      pseudo-agents join and long-poll (AGENT_STEPS, e.g. "2500 12500"): poll p99, controller
#               cores at rest and request threads at each step; then AGENT_JOBS_PER_SECOND one-CPU jobs
#               a second on the pseudo nodes, whose STARTED/ENDED reports are timed.
#   simulate    SDSC-BLUE's first SIMULATE_JOBS jobs on SIMULATE_NODES x 16-CPU nodes, timed.
#
# A quick run (a few minutes):
#   FINISHED=50000 QUEUED_HELD=9000 QUEUED_PENDING=1000 ARRAY_SIZE=3000 LATENCY_JOBS=50 \
#   SUBMIT_SECONDS=10 THROUGHPUT_JOBS=5000 AGENT_STEPS="200 1000" AGENT_SECONDS=15 SIMULATE_JOBS=5000 \
#   scripts/bench-control-plane.sh
#
# Environment: PGHOST (127.0.0.1), PGUSER (postgres, trust auth), DB (gantry_bench_cp; dropped and
# recreated per part, dropped at the end), PORT (8080), JAR (target/gantry.jar), CONTROLLER_OPTS
# (-Xms1g -Xmx2g), START_TIMEOUT (600 s), CLIENTS (16), SUBMIT_SECONDS (30), SUBMIT_WARMUP (60),
# SUBMIT_LOADGEN (wrk, or java), SLURM (1),
# SLURM_REF (../shared/tools/slurm-ref.sh), SLURM_URL (http://127.0.0.1:6820), SLURM_PARTITION (cpu),
# FINISHED (1000000), QUEUED_HELD (90000), QUEUED_PENDING (10000), ARRAY_SIZE (10000; at most
# gantry.jobs.max-array-size), LATENCY_JOBS (200), LIST_REQUESTS (200), MAX_SECONDS (300: the latency
# and list loads stop early after it), THROUGHPUT_JOBS (30000),
# AGENT_STEPS ("2500 12500"), AGENT_SECONDS (30), AGENT_POLL_WAIT (10 s), AGENT_JOBS_PER_SECOND (20),
# AGENT_CONTROLLER_OPTS (-Xms1g -Xmx4g: each held poll keeps Tomcat's buffers of its request, about 100 KB
# of heap an agent; with 2 GB, 18,500 agents ran the heap out and the poller thread died),
# SIMULATE_JOBS (50000), SIMULATE_NODES (5000), TRACE (../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz),
# SIMULATE_OPTS (-Xmx2g), KEEP_WORK (set: keep the controller logs, printed at the end).
set -euo pipefail

cd "$(dirname "$0")/.."
PARTS=${PARTS:-submit latency throughput agents simulate}
PGHOST=${PGHOST:-127.0.0.1}
PGUSER=${PGUSER:-postgres}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
DB=${DB:-gantry_bench_cp}
PORT=${PORT:-8080}
JAR=${JAR:-target/gantry.jar}
CONTROLLER_OPTS=${CONTROLLER_OPTS:--Xms1g -Xmx2g}
AGENT_CONTROLLER_OPTS=${AGENT_CONTROLLER_OPTS:--Xms1g -Xmx4g}
START_TIMEOUT=${START_TIMEOUT:-600}
CLIENTS=${CLIENTS:-16}
SUBMIT_SECONDS=${SUBMIT_SECONDS:-30}
SUBMIT_WARMUP=${SUBMIT_WARMUP:-60}
# The submit part's load generator: wrk (C, event loop; installed from Debian's packages when missing)
# or java (the jar's own loadtest, which takes about 0.4 of a core from the 2 it measures).
SUBMIT_LOADGEN=${SUBMIT_LOADGEN:-wrk}
SLURM=${SLURM:-1}
SLURM_REF=${SLURM_REF:-../shared/tools/slurm-ref.sh}
SLURM_URL=${SLURM_URL:-http://127.0.0.1:6820}
SLURM_PARTITION=${SLURM_PARTITION:-cpu}
SLURM_STATE=/tmp/slurmref  # where slurm-ref.sh keeps its configuration and pid files
FINISHED=${FINISHED:-1000000}
QUEUED_HELD=${QUEUED_HELD:-90000}
QUEUED_PENDING=${QUEUED_PENDING:-10000}
ARRAY_SIZE=${ARRAY_SIZE:-10000}
LATENCY_JOBS=${LATENCY_JOBS:-200}
LIST_REQUESTS=${LIST_REQUESTS:-200}
MAX_SECONDS=${MAX_SECONDS:-300}
THROUGHPUT_JOBS=${THROUGHPUT_JOBS:-30000}
AGENT_STEPS=${AGENT_STEPS:-2500 12500}
AGENT_SECONDS=${AGENT_SECONDS:-30}
AGENT_POLL_WAIT=${AGENT_POLL_WAIT:-10}
AGENT_JOBS_PER_SECOND=${AGENT_JOBS_PER_SECOND:-20}
SIMULATE_JOBS=${SIMULATE_JOBS:-50000}
SIMULATE_NODES=${SIMULATE_NODES:-5000}
TRACE=${TRACE:-../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz}
SIMULATE_OPTS=${SIMULATE_OPTS:--Xmx2g}
PASSWORD=bench-admin-password
URL=http://127.0.0.1:$PORT
WORK=$(mktemp -d -t gantry-control-plane.XXXXXX)
CONTROLLER_PID=
SAMPLER_PID=
SLURM_STARTED=
TARGETS=()

[ -f "$JAR" ] || { echo "no $JAR: run ./mvnw -B -ntp -DskipTests -DskipFrontend package first" >&2; exit 1; }
if curl -s -o /dev/null "$URL/actuator/health"; then
    echo "something already answers on port $PORT; set PORT to a free one" >&2
    exit 1
fi

stop_controller() {
    if [ -n "$SAMPLER_PID" ] && kill -0 "$SAMPLER_PID" 2>/dev/null; then
        kill "$SAMPLER_PID"
        wait "$SAMPLER_PID" 2>/dev/null || true
    fi
    SAMPLER_PID=
    if [ -n "$CONTROLLER_PID" ] && kill -0 "$CONTROLLER_PID" 2>/dev/null; then
        kill "$CONTROLLER_PID"
        wait "$CONTROLLER_PID" 2>/dev/null || true
    fi
    CONTROLLER_PID=
}

cleanup() {
    stop_controller
    if [ -n "$SLURM_STARTED" ]; then
        bash "$SLURM_REF" stop >/dev/null 2>&1 || true
    fi
    psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
    if [ -n "${KEEP_WORK:-}" ]; then
        echo "# logs kept in $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

fresh_database() {
    psql -q -h "$PGHOST" -U "$PGUSER" -c "drop database if exists $DB with (force)" -c "create database $DB" >/dev/null
    rm -rf "$WORK/data"
}

# start_controller NAME [extra Spring arguments]: on the current database, waits until healthy.
start_controller() {
    local name=$1
    shift
    # shellcheck disable=SC2086
    java $CONTROLLER_OPTS -jar "$JAR" \
        --spring.profiles.active=postgres \
        --spring.datasource.url="jdbc:postgresql://$PGHOST:5432/$DB" \
        --spring.datasource.username="$PGUSER" \
        --spring.config.additional-location=file:scripts/bench-cluster.yml \
        --server.port="$PORT" \
        --gantry.data-dir="$WORK/data" \
        --gantry.security.bootstrap-admin-password="$PASSWORD" \
        --logging.file.name="$WORK/controller-$name.log" "$@" >"$WORK/controller-$name.out" 2>&1 &
    CONTROLLER_PID=$!
    local began=$SECONDS
    while [ $((SECONDS - began)) -lt "$START_TIMEOUT" ]; do
        if curl -sf -o /dev/null "$URL/actuator/health"; then
            echo "# controller ($name) healthy after $((SECONDS - began)) s"
            return 0
        fi
        kill -0 "$CONTROLLER_PID" 2>/dev/null || break
        sleep 1
    done
    echo "the controller did not start; its log:" >&2
    tail -n 50 "$WORK/controller-$name.log" "$WORK/controller-$name.out" >&2 || true
    exit 1
}

loadtest() {
    java -jar "$JAR" loadtest "$@" --url "$URL" --user admin --password "$PASSWORD"
}

# Runs a load test, shows its lines (indented) and keeps them in $WORK/last.
run_loadtest() {
    loadtest "$@" | tee "$WORK/last" | sed 's/^/  /'
}

# field NAME [LINE-PREFIX]: the value of NAME=... in the last line of $WORK/last starting with the prefix.
field() {
    grep "^${2:-}" "$WORK/last" | tail -1 | grep -o "\(^\| \)$1=[^ ]*" | head -1 | cut -d= -f2
}

# met EXPRESSION: yes or no as awk finds the comparison; n/a when a figure in it is missing.
met() {
    if [[ "$1" == *n/a* ]] || [[ "$1" =~ (^|\&\&|\|\|)\ *[\<\>=] ]] || [[ "$1" =~ [\<\>=]\ *($|\&\&|\|\|) ]]; then
        echo n/a
    elif awk "BEGIN { exit !($1) }" 2>/dev/null; then
        echo yes
    else
        echo no
    fi
}

target() {
    TARGETS+=("$*")
    echo "$*"
}

token() {
    curl -sf -H 'Content-Type: application/json' -d "{\"username\":\"admin\",\"password\":\"$PASSWORD\"}" \
        "$URL/api/v1/auth/tokens" | sed 's/.*"token":"\([^"]*\)".*/\1/'
}

# api METHOD PATH [JSON]: one authenticated call; prints the answer, fails on a non-2xx.
api() {
    curl -sf -X "$1" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
        ${3:+-d "$3"} "$URL/api/v1$2"
}

total_of() {
    api GET "$1" | sed 's/.*"total":\([0-9]*\).*/\1/'
}

# Samples the controller's used heap (all heap pools) and live data after the last GC each second.
start_heap_sampler() {
    (
        while true; do
            curl -s "$URL/actuator/prometheus" 2>/dev/null | awk '
                /^jvm_memory_used_bytes\{/ && /area="heap"/ { used += $NF }
                /^jvm_gc_live_data_size_bytes/ { live = $NF }
                END { if (used > 0) printf "%.0f %.0f\n", used, live }'
            sleep 1
        done
    ) >"$WORK/heap" &
    SAMPLER_PID=$!
}

# cpu_ticks PID...: the user + system CPU time of these processes, in ticks of 1/100 s.
cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do
        if [ -r "/proc/$pid/stat" ]; then
            total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
        fi
    done
    echo "$total"
}

ensure_wrk() {
    command -v wrk >/dev/null && return 0
    echo "# installing wrk (apt-get install wrk)"
    { apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }; } >"$WORK/wrk-install.out" 2>&1 \
        || { cat "$WORK/wrk-install.out" >&2; echo "no wrk: set SUBMIT_LOADGEN=java" >&2; exit 1; }
}

# in_ms VALUE: wrk's latency (e.g. 812.00us, 3.21ms, 1.02s) in milliseconds.
in_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
        printf "%.1f", n }'
}

# wrk_ok FILE: the requests of a wrk run answered 2xx (all, less non-2xx answers and socket errors).
wrk_ok() {
    awk '/requests in/ { n = $1 } /Non-2xx/ { bad += $NF }
        /Socket errors/ { gsub(/,/, ""); bad += $4 + $6 + $8 + $10 } END { print n - bad }' "$1"
}

# wrk_load NAME URL BODY-FILE PIDS [HEADER: VALUE]...: CLIENTS connections POST the body back to back
# for SUBMIT_WARMUP s (not counted), then SUBMIT_SECONDS; prints a loadtest= line as the jar's
# loadtest does (server CPU: the processes PIDS, comma-separated; PostgreSQL's alongside) and keeps it
# in $WORK/last. Non-2xx answers and socket errors count as errors, not submissions.
wrk_load() {
    local name=$1 url=$2 body=$3 pids=$4
    shift 4
    local lua="$WORK/$name.lua" header
    {
        echo 'wrk.method = "POST"'
        echo "local f = io.open(\"$body\", \"rb\"); wrk.body = f:read(\"*a\"); f:close()"
        echo 'wrk.headers["Content-Type"] = "application/json"'
        echo 'wrk.headers["Accept"] = "application/json"'
        for header in "$@"; do
            echo "wrk.headers[\"${header%%:*}\"] = \"${header#*: }\""
        done
    } >"$lua"
    if [ "$SUBMIT_WARMUP" -gt 0 ]; then
        wrk -t2 -c"$CLIENTS" -d"${SUBMIT_WARMUP}s" -s "$lua" "$url" >"$WORK/$name-warmup.out" 2>&1
    fi
    local server0 pg0 server1 pg1
    server0=$(cpu_ticks ${pids//,/ })
    pg0=$(cpu_ticks $(pgrep -x postgres))
    wrk -t2 -c"$CLIENTS" -d"${SUBMIT_SECONDS}s" --latency -s "$lua" "$url" >"$WORK/$name.out" 2>&1
    server1=$(cpu_ticks ${pids//,/ })
    pg1=$(cpu_ticks $(pgrep -x postgres))
    local out="$WORK/$name.out"
    local requests elapsed ok
    requests=$(awk '/requests in/ { print $1 }' "$out")
    elapsed=$(awk '/requests in/ { sub(/s,?$/, "", $4); print $4 }' "$out")
    ok=$(wrk_ok "$out")
    awk -v name="$name" -v clients="$CLIENTS" -v seconds="$SUBMIT_SECONDS" -v warmup="$SUBMIT_WARMUP" \
        -v ok="$ok" -v elapsed="$elapsed" -v errors="$((requests - ok))" \
        -v p50="$(in_ms "$(awk '$1 == "50%" { print $2 }' "$out")")" \
        -v p90="$(in_ms "$(awk '$1 == "90%" { print $2 }' "$out")")" \
        -v p99="$(in_ms "$(awk '$1 == "99%" { print $2 }' "$out")")" \
        -v server=$((server1 - server0)) -v pg=$((pg1 - pg0)) -v la="$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)" \
        'BEGIN {
            printf "loadtest=%s loadgen=wrk clients=%d seconds=%d warmup_s=%d submitted=%d rate_per_s=%.0f", name, clients, seconds, warmup, ok, ok / elapsed
            printf " p50_ms=%s p90_ms=%s p99_ms=%s errors=%d", p50, p90, p99, errors
            printf " server_cpu_ms_per_job=%.2f server_cores_busy=%.2f postgres_cpu_ms_per_job=%.2f load=%s\n", ok ? server * 10 / ok : -1, server / 100 / elapsed, ok ? pg * 10 / ok : -1, la
        }' | tee "$WORK/last" | sed 's/^/  /'
}

part_submit() {
    echo "## submit: $CLIENTS clients, held jobs, ${SUBMIT_WARMUP} s warm-up + ${SUBMIT_SECONDS} s"
    local slurm_token=""
    if [ "$SLURM" = 1 ]; then
        if [ "$(curl -s -o /dev/null -w '%{http_code}' "$SLURM_URL/slurm/v0.0.38/ping")" = 000 ]; then
            echo "# starting the Slurm reference ($SLURM_REF start; installs its packages on the first run)"
            bash "$SLURM_REF" start >"$WORK/slurm-ref.out" 2>&1 || { cat "$WORK/slurm-ref.out" >&2; exit 1; }
            SLURM_STARTED=1
        fi
        slurm_token=$(bash "$SLURM_REF" token)
    fi
    fresh_database
    start_controller submit
    if [ "$SUBMIT_LOADGEN" = wrk ]; then
        ensure_wrk
        printf '%s' '{"name":"bench-submit","script":"#!/bin/bash\n#SBATCH --ntasks=1\n#SBATCH --time=10:00\nsleep 600\n","hold":true,"simulatedRunSeconds":600}' \
            >"$WORK/gantry-job.json"
        TOKEN=$(token)
        wrk_load submit "$URL/api/v1/jobs" "$WORK/gantry-job.json" "$CONTROLLER_PID" "Authorization: Bearer $TOKEN"
        local answered=$(( $(wrk_ok "$WORK/submit.out") + ( SUBMIT_WARMUP > 0 ? $(wrk_ok "$WORK/submit-warmup.out") : 0 ) ))
        echo "  stored=$(psql -Atq -h "$PGHOST" -U "$PGUSER" "$DB" -c "select count(*) from jobs where name = 'bench-submit'")" \
            "answered_2xx=$answered (warm-up included: every job answered 201 is in the store)"
    else
        run_loadtest submit --clients "$CLIENTS" --seconds "$SUBMIT_SECONDS" --warmup "$SUBMIT_WARMUP" --array-rounds 0
    fi
    local rate p50 p99 cpu
    rate=$(field rate_per_s) p50=$(field p50_ms) p99=$(field p99_ms) cpu=$(field server_cpu_ms_per_job)
    stop_controller
    local srate=n/a sp50=n/a sp99=n/a scpu=n/a ratio=n/a
    if [ "$SLURM" = 1 ]; then
        local pids
        pids=$(
            cat "$SLURM_STATE/slurmctld.pid" 2>/dev/null || true
            # slurm-ref.sh records runuser's pid; slurmrestd is its child.
            pgrep -x slurmrestd -P "$(cat "$SLURM_STATE/slurmrestd.pid" 2>/dev/null || echo 0)" || true
        )
        pids=$(echo "$pids" | grep -E '^[0-9]+$' | paste -sd, -)
        if [ "$SUBMIT_LOADGEN" = wrk ]; then
            # The body loadtest slurm-submit sends: a held batch job, as sbatch --hold would.
            printf '%s' "{\"job\":{\"name\":\"bench-submit\",\"partition\":\"$SLURM_PARTITION\",\"hold\":true,\"current_working_directory\":\"/tmp\",\"environment\":{\"PATH\":\"/usr/bin:/bin\"},\"time_limit\":10},\"script\":\"#!/bin/bash\\nsleep 600\\n\"}" \
                >"$WORK/slurm-job.json"
            wrk_load slurm-submit "$SLURM_URL/slurm/v0.0.38/job/submit" "$WORK/slurm-job.json" "$pids" \
                "X-SLURM-USER-NAME: root" "X-SLURM-USER-TOKEN: $(cat "$slurm_token")"
            echo "  stored=$(SLURM_CONF="$SLURM_STATE/slurm.conf" squeue -h -n bench-submit 2>/dev/null | wc -l) (held jobs in slurmctld's queue)"
        else
            java -jar "$JAR" loadtest slurm-submit --url "$SLURM_URL" --token-file "$slurm_token" \
                --partition "$SLURM_PARTITION" --cpu-pids "$pids" --clients "$CLIENTS" --seconds "$SUBMIT_SECONDS" \
                --warmup "$SUBMIT_WARMUP" | tee "$WORK/last" | sed 's/^/  /'
        fi
        srate=$(field rate_per_s) sp50=$(field p50_ms) sp99=$(field p99_ms) scpu=$(field server_cpu_ms_per_job)
        # The held jobs would otherwise stay in slurmctld's queue for the next run.
        SLURM_CONF="$SLURM_STATE/slurm.conf" scancel --name=bench-submit >/dev/null 2>&1 || true
        ratio=$(awk -v g="$rate" -v s="$srate" 'BEGIN { if (s > 0) printf "%.2f", g / s; else print "n/a" }')
        if [ -n "$SLURM_STARTED" ]; then
            # Not needed by the other parts: its daemons should not share the machine with them.
            bash "$SLURM_REF" stop >/dev/null 2>&1 || true
            SLURM_STARTED=
        fi
    fi
    target "target=submit figure=${rate}/s goal=>=2000/s,>=2.3x_slurmrestd" \
        "met=$(met "$rate >= 2000 && $ratio >= 2.3")" "slurmrestd=${srate}/s ratio=${ratio}x" \
        "p50_ms=$p50 p99_ms=$p99 cpu_ms_per_submission=$cpu" \
        "slurmrestd_p50_ms=$sp50 slurmrestd_p99_ms=$sp99 slurmrestd_cpu_ms_per_submission=$scpu" \
        "clients=$CLIENTS seconds=$SUBMIT_SECONDS"
}

# submit_arrays COUNT JSON-WITHOUT-ARRAY: COUNT tasks as arrays of at most ARRAY_SIZE.
submit_arrays() {
    local left=$1 body=$2 n
    while [ "$left" -gt 0 ]; do
        n=$((left < ARRAY_SIZE ? left : ARRAY_SIZE))
        api POST /jobs "${body%\}},\"array\":\"0-$((n - 1))\"}" >/dev/null
        left=$((left - n))
    done
}

part_latency() {
    echo "## latency: $FINISHED finished jobs, $QUEUED_HELD held + $QUEUED_PENDING pending queued"
    fresh_database
    # First start creates the schema; the finished jobs go in while no controller holds ids.
    start_controller latency-schema
    stop_controller
    local began=$SECONDS
    psql -q -h "$PGHOST" -U "$PGUSER" -d "$DB" -v ON_ERROR_STOP=1 -v jobs="$FINISHED" \
        -f scripts/bench-accounting-fill.sql >/dev/null
    echo "# filled $FINISHED finished jobs in $((SECONDS - began)) s"
    start_controller latency
    start_heap_sampler
    TOKEN=$(token)
    began=$SECONDS
    submit_arrays "$QUEUED_HELD" \
        '{"name":"bench-held","partition":"sim","hold":true,"tasks":1,"timeLimitSeconds":3600,"simulatedRunSeconds":600,"script":"#!/bin/bash\nsleep 600\n"}'
    # One exclusive job per cpu node, running for a day, keeps the pending tasks waiting on Resources.
    local cpu_nodes
    cpu_nodes=$(api GET /partitions/cpu | sed 's/.*"totalNodes":\([0-9]*\).*/\1/')
    api POST /jobs "{\"name\":\"bench-blocker\",\"partition\":\"cpu\",\"exclusive\":true,\"tasks\":1,\"timeLimitSeconds\":172800,\"simulatedRunSeconds\":86400,\"array\":\"0-$((cpu_nodes - 1))\"}" >/dev/null
    for _ in $(seq 1 120); do
        [ "$(total_of "/jobs?state=RUNNING&partition=cpu&size=1")" -ge "$cpu_nodes" ] && break
        sleep 1
    done
    submit_arrays "$QUEUED_PENDING" \
        '{"name":"bench-pending","partition":"cpu","tasks":1,"timeLimitSeconds":3600,"simulatedRunSeconds":600,"script":"#!/bin/bash\nsleep 600\n"}'
    local queued running
    queued=$(total_of "/jobs?state=PENDING&size=1")
    running=$(total_of "/jobs?state=RUNNING&size=1")
    echo "# queued $queued jobs (pending and held) in $((SECONDS - began)) s; $running running (the cpu blockers);" \
        "a pending task: $(api GET "/jobs?state=PENDING&name=bench-pending&size=1" | grep -o '"reason":"[^"]*"' | head -1),"\
        "a held one: $(api GET "/jobs?state=PENDING&name=bench-held&size=1" | grep -o '"reason":"[^"]*"' | head -1)"
    run_loadtest latency --partition gpu --gpus 1 --jobs "$LATENCY_JOBS" --warmup 20 --run-seconds 1 \
        --max-seconds "$MAX_SECONDS"
    local p50 p99 lost probes
    p50=$(field p50_ms) p99=$(field p99_ms) lost=$(field not_running_after_30s) probes=$(field jobs loadtest=latency)
    run_loadtest list --requests "$LIST_REQUESTS" --warmup 10 --max-seconds "$MAX_SECONDS"
    local lp50 lp99 total
    lp50=$(field p50_ms) lp99=$(field p99_ms) total=$(field total_jobs)
    stop_controller
    local peak live
    peak=$(awk '$1 > m { m = $1 } END { printf "%.0f", m / 1048576 }' "$WORK/heap")
    # G1 reports live data only once a concurrent cycle has run; none ran when it stays 0.
    live=$(awk '$2 > m { m = $2 } END { if (m > 0) printf "%.0f", m / 1048576; else print "n/a" }' "$WORK/heap")
    local oom=no
    grep -q OutOfMemoryError "$WORK/controller-latency.log" "$WORK/controller-latency.out" 2>/dev/null && oom=yes
    local sizes="queued=$queued finished=$FINISHED"
    target "target=start-latency figure=p50_ms=$p50,p99_ms=$p99 goal=p50<50ms,p99<250ms" \
        "met=$(met "$p50 < 50 && $p99 < 250")" "jobs=$probes not_running_after_30s=$lost $sizes"
    target "target=list-first-page figure=p99_ms=$lp99 goal=p99<100ms met=$(met "$lp99 < 100")" \
        "p50_ms=$lp50 requests=$(field requests loadtest=list) total_jobs=$total $sizes"
    target "target=heap figure=peak_used_mib=$peak goal=<2048MiB met=$(met "$peak < 2048 && \"$oom\" == \"no\"")" \
        "peak_live_after_gc_mib=$live out_of_memory=$oom controller_opts=\"$CONTROLLER_OPTS\" $sizes"
}

part_throughput() {
    echo "## throughput: $THROUGHPUT_JOBS one-second jobs through simulated nodes"
    fresh_database
    start_controller throughput
    run_loadtest throughput --jobs "$THROUGHPUT_JOBS" --run-seconds 1 --array-size 100 --clients 4 \
        --seconds $((THROUGHPUT_JOBS / 50 + 120))
    local steady
    steady=$(field steady_completed_per_s loadtest=)
    target "target=throughput figure=${steady}/s goal=>=1000/s met=$(met "$steady >= 1000")" \
        "overall_per_s=$(field completed_per_s loadtest=) peak_per_s=$(field peak_completed_per_s loadtest=)" \
        "completed=$(field completed loadtest=) jobs=$THROUGHPUT_JOBS cpu_ms_per_job=$(field server_cpu_ms_per_job loadtest=)"
    stop_controller
}

part_agents() {
    local steps top
    steps=$(echo "$AGENT_STEPS" | tr ' ' ',')
    top=${steps##*,}
    echo "## agents: $AGENT_STEPS pseudo-agents, ${AGENT_SECONDS} s per window, poll wait ${AGENT_POLL_WAIT} s"
    # Each agent is one connection on both sides: raise the descriptor limit to the hard one, and the
    # hard one too when it is too low and we may (root).
    local want=$((top + 2000))
    [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge "$want" ] || ulimit -Hn "$want" 2>/dev/null || true
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    local fds ports
    fds=$(ulimit -n)
    ports=$(awk '{ print $2 - $1 + 1 }' /proc/sys/net/ipv4/ip_local_port_range)
    echo "# open files limit $fds, ephemeral ports $ports"
    [ "$fds" = unlimited ] || [ "$fds" -gt $((top + 1000)) ] ||
        echo "# WARNING: open files limit $fds is below $top agents + 1000: raise the hard limit (ulimit -Hn)"
    [ "$ports" -gt "$top" ] || echo "# WARNING: $ports ephemeral ports for $top agents (ip_local_port_range)"
    fresh_database
    CONTROLLER_OPTS=$AGENT_CONTROLLER_OPTS start_controller agents --gantry.agents.poll-wait="${AGENT_POLL_WAIT}s"
    run_loadtest agents --agents "$steps" --seconds "$AGENT_SECONDS" --settle $((AGENT_POLL_WAIT + 5)) \
        --jobs-per-second "$AGENT_JOBS_PER_SECOND" --partition cpu --job-seconds 1
    local goal_ms=$(((AGENT_POLL_WAIT + 1) * 1000)) threads="" step line
    for step in ${steps//,/ }; do
        line=$(grep "^loadtest=agents agents=$step " "$WORK/last" | tail -1 || true)
        for name in tomcat_threads_busy_max tomcat_threads_current jvm_threads_live; do
            threads="$threads $name@$step=$(echo "$line" | grep -o " $name=[^ ]*" | cut -d= -f2)"
        done
    done
    local poll99 cores connected first_busy last_busy
    poll99=$(field poll_p99_ms "loadtest=agents agents=$top ")
    cores=$(field server_cores_busy "loadtest=agents agents=$top ")
    connected=$(field connected "loadtest=agents agents=$top ")
    first_busy=$(field tomcat_threads_busy_max "loadtest=agents agents=${steps%%,*} ")
    last_busy=$(field tomcat_threads_busy_max "loadtest=agents agents=$top ")
    local polls cpu_per_poll
    polls=$(field polls_per_s "loadtest=agents agents=$top ")
    # The regression guard's third figure: controller CPU a poll costs at rest (the busy cores over the polls).
    cpu_per_poll=$(awk -v c="$cores" -v p="$polls" 'BEGIN { if (p + 0 > 0) printf "%.3f", c * 1000 / p; else print "n/a" }')
    target "target=agents-poll figure=poll_p99_ms=$poll99 goal=p99<${goal_ms}ms met=$(met "$poll99 < $goal_ms")" \
        "agents=$top connected=$connected polls_per_s=$polls cpu_ms_per_poll=$cpu_per_poll" \
        "poll_errors=$(field poll_errors "loadtest=agents agents=$top ")"
    if [ "$AGENT_JOBS_PER_SECOND" -gt 0 ]; then
        local r99
        r99=$(field report_p99_ms loadtest=agents-jobs)
        # A report (a job started or ended) is answered at once, not held: under a second.
        target "target=agents-report figure=report_p99_ms=$r99 goal=p99<1000ms met=$(met "$r99 < 1000")" \
            "poll_p99_ms=$(field poll_p99_ms loadtest=agents-jobs) jobs_per_s=$AGENT_JOBS_PER_SECOND" \
            "submitted=$(field submitted loadtest=agents-jobs) launched=$(field launched loadtest=agents-jobs)" \
            "reports=$(field reports loadtest=agents-jobs) report_errors=$(field report_errors loadtest=agents-jobs)"
    fi
    # Busy request threads at rest, at most, sampled each second; one of them is the metrics request
    # itself, so a difference of 2 is sampling noise, not growth.
    target "target=agents-threads figure=busy_request_threads=${first_busy}@${steps%%,*},${last_busy}@$top" \
        "goal=no_growth_with_agents met=$(met "$last_busy <= $first_busy + 2")$threads"
    target "target=agents-rest-cpu figure=cores=$cores goal=<1core met=$(met "$cores < 1")" \
        "agents=$top seconds=$AGENT_SECONDS"
    stop_controller
}

part_simulate() {
    echo "## simulate: $TRACE, first $SIMULATE_JOBS jobs, $SIMULATE_NODES nodes x 16 CPUs"
    local began end wall
    began=$(date +%s.%N)
    # shellcheck disable=SC2086
    java $SIMULATE_OPTS -jar "$JAR" simulate --trace "$TRACE" --nodes "$SIMULATE_NODES" --cpus-per-node 16 \
        --max-jobs "$SIMULATE_JOBS" --out "$WORK/schedule.csv" 2>&1 | tee "$WORK/last" | sed 's/^/  /'
    end=$(date +%s.%N)
    wall=$(awk -v a="$began" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    target "target=simulate figure=${wall}s goal=<30s met=$(met "$wall < 30")" \
        "replay_wall_s=$(field wall_s jobs=) jobs=$(field jobs jobs=) nodes=$SIMULATE_NODES" \
        "mean_cycle_ms=$(field mean_cycle_ms jobs=) max_cycle_ms=$(field max_cycle_ms jobs=)"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), parts: $PARTS"
for part in $PARTS; do
    case $part in
        submit | latency | throughput | agents | simulate) "part_$part" ;;
        *) echo "unknown part $part (submit latency throughput agents simulate)" >&2; exit 2 ;;
    esac
done
echo "# summary $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${TARGETS[@]}"
