package io.gantry.loadtest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code loadtest agents --agents N --seconds S}: N pseudo-agents join the controller (as unknown
 * nodes of its default partitions) and keep a long poll open each, as real agents do, for S seconds.
 * Prints the join rate, polls answered per second, poll errors and round-trip percentiles: whether
 * one controller holds that many connected agents. The nodes stay (they go DOWN when the test ends).
 */
final class AgentLoad {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private AgentLoad() {
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int agents = Integer.parseInt(options.text("agents", "1000"));
        int seconds = Integer.parseInt(options.text("seconds", "60"));
        String base = options.text("url", "http://127.0.0.1:8080").replaceAll("/$", "");
        String joinToken = client.joinToken();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newFixedThreadPool(4)).connectTimeout(Duration.ofSeconds(30)).build();
        String prefix = "load" + Long.toString(System.nanoTime() % 100_000, 36) + "-";

        long joinStart = System.nanoTime();
        List<String[]> joined = new ArrayList<>();
        Semaphore inFlight = new Semaphore(32);
        List<CompletableFuture<Void>> joins = new ArrayList<>();
        ConcurrentLinkedQueue<String[]> credentials = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < agents; i++) {
            String name = prefix + String.format(Locale.ROOT, "%05d", i);
            String body = JSON.writeValueAsString(java.util.Map.of("name", name, "cpus", 8, "memoryMb", 32000,
                    "features", List.of("loadtest")));
            inFlight.acquireUninterruptibly();
            joins.add(http.sendAsync(post(base + "/api/v1/agents/register", joinToken, body),
                    HttpResponse.BodyHandlers.ofString()).thenAccept(r -> {
                        if (r.statusCode() == 200) {
                            JsonNode reply = JSON.readTree(r.body());
                            credentials.add(new String[] {reply.get("node").asString(), reply.get("credential").asString()});
                        } else {
                            System.err.println("join of " + name + " failed: " + r.statusCode() + " " + r.body());
                        }
                    }).whenComplete((v, e) -> inFlight.release()));
        }
        CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).join();
        joined.addAll(credentials);
        long joinNanos = System.nanoTime() - joinStart;

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong polls = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        Latencies latencies = new Latencies();
        long pollStart = System.nanoTime();
        for (String[] agent : joined) {
            poll(http, base, agent, running, polls, errors, latencies);
        }
        try {
            Thread.sleep(seconds * 1000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        running.set(false);
        long pollNanos = System.nanoTime() - pollStart;
        System.out.printf(Locale.ROOT, "agents=%d joined=%d join_rate_per_s=%s seconds=%d polls=%d polls_per_s=%s "
                        + "poll_errors=%d %s load=%s%n", agents, joined.size(), LoadTest.rate(joined.size(), joinNanos),
                seconds, polls.get(), LoadTest.rate(polls.get(), pollNanos), errors.get(), latencies.summary(),
                LoadTest.loadAverage());
    }

    /** One agent's poll loop: the next poll goes out as soon as the last is answered (or failed). */
    private static void poll(HttpClient http, String base, String[] agent, AtomicBoolean running, AtomicLong polls,
            AtomicLong errors, Latencies latencies) {
        if (!running.get()) {
            return;
        }
        long sent = System.nanoTime();
        http.sendAsync(post(base + "/api/v1/agents/" + agent[0] + "/poll", agent[1], "{\"runningJobs\":[],\"sync\":false}"),
                HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                    if (e != null || r.statusCode() != 200) {
                        errors.incrementAndGet();
                    } else {
                        polls.incrementAndGet();
                        synchronized (latencies) {
                            latencies.add(System.nanoTime() - sent);
                        }
                    }
                    poll(http, base, agent, running, polls, errors, latencies);
                });
    }

    private static HttpRequest post(String url, String bearer, String body) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + bearer).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
