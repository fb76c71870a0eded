package io.gantry.loadtest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code loadtest agents --agents N[,N2,...] --seconds S}: pseudo-agents join the controller (as
 * unknown nodes of its default partitions, feature {@code loadtest}) and keep a long poll open
 * each, as real agents do. For each step of the list, the agents join up to that count, settle for
 * {@code --settle} seconds (the joining burst over), then for S seconds only poll ("at rest"): the
 * line gives polls per second, poll round trips, the controller's CPU (cores), the most request
 * threads busy at once (sampled each second) and the thread counts at the end of the window, so the
 * steps show whether threads grow with the agents. With
 * {@code --jobs-per-second J} a further S seconds submit J one-CPU jobs a second onto the pseudo
 * nodes ({@code --partition}, constraint {@code loadtest}); the agents answer each LAUNCH with a
 * STARTED report at once and an ENDED one {@code --job-seconds} later, and the report round trips
 * are timed. The nodes stay (they go DOWN when the test ends). The polls go over {@link RawPolls}, the
 * rest over the JDK's client. Each line also gives the load generator's own CPU ({@code loadgen_cores}).
 */
final class AgentLoad {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final GantryClient client;
    private final HttpClient http;
    private final RawPolls rawPolls;
    private final String base;
    private final String joinToken;
    private final String prefix = "load" + Long.toString(System.nanoTime() % 100_000, 36) + "-";
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "loadtest-job-ends");
        t.setDaemon(true);
        return t;
    });
    private final List<Agent> agents = new ArrayList<>();
    private final AtomicLong polls = new AtomicLong();
    private final AtomicLong pollErrors = new AtomicLong();
    private final AtomicLong launches = new AtomicLong();
    private final AtomicLong reportErrors = new AtomicLong();
    private final AtomicReference<String> firstReportError = new AtomicReference<>();
    private volatile Latencies pollLatencies = new Latencies();
    private volatile Latencies reportLatencies = new Latencies();
    private final int jobSeconds;
    private final Clock clock = Clock.systemUTC();

    private record Agent(String node, String credential, Set<String> runningJobs) {
    }

    private AgentLoad(GantryClient client, String base, int jobSeconds) {
        this.client = client;
        this.base = base;
        this.jobSeconds = jobSeconds;
        this.joinToken = client.joinToken();
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newFixedThreadPool(4)).connectTimeout(Duration.ofSeconds(30)).build();
        this.rawPolls = new RawPolls(base, 2);
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int seconds = options.number("seconds", 60);
        int settle = options.number("settle", 15);
        int jobsPerSecond = options.number("jobs-per-second", 0);
        String partition = options.text("partition", "cpu");
        AgentLoad load = new AgentLoad(client, options.text("url", "http://127.0.0.1:8080").replaceAll("/$", ""),
                options.number("job-seconds", 1));
        for (String step : options.text("agents", "1000").split(",")) {
            int count = Integer.parseInt(step.strip());
            long joinStart = System.nanoTime();
            int before = load.agents.size();
            load.join(count);
            long joinNanos = System.nanoTime() - joinStart;
            sleep(settle * 1000L);
            load.measureRest(count, load.agents.size() - before, joinNanos, seconds);
            if (jobsPerSecond > 0) {
                load.measureJobs(jobsPerSecond, partition, seconds);
            }
        }
        load.running.set(false);
        load.rawPolls.stop();
    }

    /** Joins agents until there are {@code count}; each starts polling as soon as it has joined. */
    private void join(int count) {
        Semaphore inFlight = new Semaphore(32);
        List<CompletableFuture<Void>> joins = new ArrayList<>();
        for (int i = agents.size(); i < count; i++) {
            String name = prefix + String.format(Locale.ROOT, "%05d", i);
            String body = JSON.writeValueAsString(Map.of("name", name, "cpus", 8, "memoryMb", 32000,
                    "features", List.of("loadtest")));
            inFlight.acquireUninterruptibly();
            joins.add(http.sendAsync(post("/api/v1/agents/register", joinToken, body),
                    HttpResponse.BodyHandlers.ofString()).thenAccept(r -> {
                        if (r.statusCode() == 200) {
                            JsonNode reply = JSON.readTree(r.body());
                            Agent agent = new Agent(reply.get("node").asString(), reply.get("credential").asString(),
                                    ConcurrentHashMap.newKeySet());
                            synchronized (agents) {
                                agents.add(agent);
                            }
                            poll(agent);
                        } else {
                            System.err.println("join of " + name + " failed: " + r.statusCode() + " " + r.body());
                        }
                    }).whenComplete((v, e) -> inFlight.release()));
            if (i % 1000 == 999) {
                // Not a hot loop of failures: a refused join costs a line, not the run.
                joins.removeIf(CompletableFuture::isDone);
            }
        }
        CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).join();
    }

    private void measureRest(int count, int joined, long joinNanos, int seconds) {
        pollLatencies = new Latencies();
        polls.set(0);
        pollErrors.set(0);
        double cpuBefore = client.controllerCpuNanos();
        String metricsBefore = client.metrics();
        long ownBefore = ownCpuNanos();
        long from = System.nanoTime();
        // Request threads actually taken, sampled each second: a held poll must not keep one.
        double maxBusy = -1;
        for (int s = 0; s < seconds; s++) {
            sleep(Math.max(0, (from + (s + 1) * 1_000_000_000L - System.nanoTime()) / 1_000_000));
            maxBusy = Math.max(maxBusy, GantryClient.metric(client.metrics(), "gantry_http_threads_busy_threads"));
        }
        long wall = System.nanoTime() - from;
        double cpuAfter = client.controllerCpuNanos();
        String metrics = client.metrics();
        Latencies latencies;
        synchronized (this) {
            latencies = pollLatencies;
        }
        System.out.printf(Locale.ROOT, "loadtest=agents agents=%d connected=%d joined_now=%d join_rate_per_s=%s "
                        + "seconds=%d polls=%d polls_per_s=%s poll_errors=%d %s %s server_cores_busy=%s loadgen_cores=%s "
                        + "tomcat_threads_busy_max=%s %s load=%s%n",
                count, agents.size(), joined, LoadTest.rate(joined, joinNanos), seconds, polls.get(),
                LoadTest.rate(polls.get(), wall), pollErrors.get(), latencies.summary("poll_"),
                serverPolls(metricsBefore, metrics), cpuBefore < 0 || cpuAfter < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", (cpuAfter - cpuBefore) / wall),
                cores(ownBefore, wall), whole(maxBusy), threads(metrics), LoadTest.loadAverage());
    }

    /**
     * The polls as the controller timed them over the window (Spring's {@code http.server.requests} for the
     * poll URI, from the request's arrival to its answer): their mean, next to the round trip the load
     * generator measures, tells the controller's time from the generator's own delays.
     */
    private static String serverPolls(String before, String after) {
        String uri = "uri=\"/api/v1/agents/{node}/poll\"";
        double count = GantryClient.metric(after, "http_server_requests_seconds_count", uri)
                - GantryClient.metric(before, "http_server_requests_seconds_count", uri);
        double sum = GantryClient.metric(after, "http_server_requests_seconds_sum", uri)
                - GantryClient.metric(before, "http_server_requests_seconds_sum", uri);
        double max = GantryClient.metric(after, "http_server_requests_seconds_max", uri);
        return String.format(Locale.ROOT, "server_polls=%d server_poll_mean_ms=%s server_poll_max_ms=%s",
                Math.round(Math.max(0, count)), count > 0 ? String.format(Locale.ROOT, "%.1f", sum / count * 1000) : "n/a",
                max >= 0 ? String.format(Locale.ROOT, "%.1f", max * 1000) : "n/a");
    }

    private void measureJobs(int jobsPerSecond, String partition, int seconds) {
        pollLatencies = new Latencies();
        reportLatencies = new Latencies();
        polls.set(0);
        pollErrors.set(0);
        launches.set(0);
        reportErrors.set(0);
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "bench-agents");
        job.put("script", "#!/bin/bash\nsleep " + jobSeconds + "\n");
        job.put("partition", partition);
        job.put("tasks", 1);
        job.put("constraints", "loadtest");
        job.put("timeLimitSeconds", 600);
        AtomicLong submitted = new AtomicLong();
        AtomicLong submitErrors = new AtomicLong();
        AtomicReference<String> firstSubmitError = new AtomicReference<>();
        double cpuBefore = client.controllerCpuNanos();
        long ownBefore = ownCpuNanos();
        long from = System.nanoTime();
        long to = from + seconds * 1_000_000_000L;
        // Paced: job i goes out at from + i/J seconds, on a few threads so one slow answer does not stall the pace.
        List<Thread> submitters = new ArrayList<>();
        AtomicLong next = new AtomicLong();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (long i = next.getAndIncrement(); ; i = next.getAndIncrement()) {
                    long due = from + i * 1_000_000_000L / jobsPerSecond;
                    if (due >= to) {
                        return;
                    }
                    sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                    try {
                        client.submit(job);
                        submitted.incrementAndGet();
                    } catch (RuntimeException e) {
                        submitErrors.incrementAndGet();
                        firstSubmitError.compareAndSet(null, e.getMessage());
                    }
                }
            }, "loadtest-agent-jobs-" + t);
            submitters.add(thread);
            thread.start();
        }
        for (Thread thread : submitters) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        sleep(Math.max(0, (to - System.nanoTime()) / 1_000_000) + (jobSeconds + 2) * 1000L);
        long wall = System.nanoTime() - from;
        double cpuAfter = client.controllerCpuNanos();
        Latencies polled;
        Latencies reported;
        synchronized (this) {
            polled = pollLatencies;
            reported = reportLatencies;
        }
        System.out.printf(Locale.ROOT, "loadtest=agents-jobs agents=%d jobs_per_s=%d submitted=%d submit_errors=%d "
                        + "launched=%d reports=%d report_errors=%d %s poll_p99_ms=%s polls=%d poll_errors=%d "
                        + "server_cores_busy=%s loadgen_cores=%s %s load=%s%n",
                agents.size(), jobsPerSecond, submitted.get(), submitErrors.get(), launches.get(), reported.count(),
                reportErrors.get(), reported.summary("report_"), LoadTest.ms(polled.percentile(99)), polls.get(),
                pollErrors.get(),
                cpuBefore < 0 || cpuAfter < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", (cpuAfter - cpuBefore) / wall),
                cores(ownBefore, wall), threads(client.metrics()), LoadTest.loadAverage());
        if (firstSubmitError.get() != null) {
            System.out.println("first submit error: " + firstSubmitError.get());
        }
        if (firstReportError.get() != null) {
            System.out.println("first report error: " + firstReportError.get());
        }
    }

    /** Tomcat's request threads (busy, current) and the JVM's live threads, from the controller's metrics. */
    private static String threads(String metrics) {
        return "tomcat_threads_busy=" + whole(GantryClient.metric(metrics, "gantry_http_threads_busy_threads"))
                + " tomcat_threads_current=" + whole(GantryClient.metric(metrics, "gantry_http_threads_current_threads"))
                + " jvm_threads_live=" + whole(GantryClient.metric(metrics, "jvm_threads_live_threads"));
    }

    /** This load generator's own CPU time: it shares the machine with the controller it measures. */
    private static long ownCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(-1L);
    }

    private static String cores(long ownBefore, long wallNanos) {
        long after = ownCpuNanos();
        return ownBefore < 0 || after < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", (double) (after - ownBefore) / wallNanos);
    }

    private static String whole(double value) {
        return value < 0 ? "n/a" : String.format(Locale.ROOT, "%.0f", value);
    }

    /** One agent's poll loop: the next poll goes out as soon as the last is answered (or failed). */
    private void poll(Agent agent) {
        rawPolls.start("/api/v1/agents/" + agent.node() + "/poll", agent.credential(),
                () -> JSON.writeValueAsString(Map.of("runningJobs", List.copyOf(agent.runningJobs()), "sync", false)),
                (status, body, roundTrip, error) -> {
                    if (!running.get()) {
                        return;
                    }
                    if (status != 200) {
                        pollErrors.incrementAndGet();
                        return;
                    }
                    polls.incrementAndGet();
                    synchronized (this) {
                        pollLatencies.add(roundTrip);
                    }
                    commands(agent, JSON.readTree(body));
                });
    }

    /** LAUNCH: started at once, ended {@code jobSeconds} later; KILL: ended as asked. */
    private void commands(Agent agent, JsonNode answer) {
        for (JsonNode command : answer.path("commands")) {
            String jobId = command.path("jobId").asString();
            if ("LAUNCH".equals(command.path("type").asString()) && agent.runningJobs().add(jobId)) {
                launches.incrementAndGet();
                report(agent, jobId, "STARTED", null);
                timers.schedule(() -> {
                    if (agent.runningJobs().remove(jobId)) {
                        report(agent, jobId, "ENDED", "COMPLETED");
                    }
                }, jobSeconds, TimeUnit.SECONDS);
            } else if ("KILL".equals(command.path("type").asString()) && agent.runningJobs().remove(jobId)) {
                report(agent, jobId, "ENDED", command.path("endState").asString("CANCELLED"));
            }
        }
    }

    private void report(Agent agent, String jobId, String type, String state) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("jobId", jobId);
        report.put("type", type);
        report.put("time", clock.instant().toString());
        if (state != null) {
            report.put("state", state);
            report.put("exitCode", 0);
        }
        String body = JSON.writeValueAsString(Map.of("reports", List.of(report)));
        long sent = System.nanoTime();
        http.sendAsync(post("/api/v1/agents/" + agent.node() + "/reports", agent.credential(), body),
                HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                    if (e != null || r.statusCode() != 200) {
                        reportErrors.incrementAndGet();
                        firstReportError.compareAndSet(null, e != null ? e.toString() : r.statusCode() + " " + r.body());
                    } else {
                        synchronized (this) {
                            reportLatencies.add(System.nanoTime() - sent);
                        }
                    }
                });
    }

    private HttpRequest post(String path, String bearer, String body) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + bearer).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
