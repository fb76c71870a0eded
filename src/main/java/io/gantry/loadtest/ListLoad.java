package io.gantry.loadtest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import tools.jackson.databind.JsonNode;

/**
 * {@code GET /api/v1/jobs} as squeue users call it: {@code --requests} calls of the first page
 * ({@code --query}, e.g. {@code state=PENDING&size=100}; the default page when empty) spread over
 * {@code --clients} threads, each timed from request to the last byte of the answer; after
 * {@code --warmup} calls not counted; it stops early after {@code --max-seconds}.
 */
final class ListLoad {

    private ListLoad() {
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int requests = options.number("requests", 200);
        int warmup = options.number("warmup", 10);
        int clients = options.number("clients", 1);
        String query = options.text("query", "");
        long maxNanos = options.number("max-seconds", 3600) * 1_000_000_000L;
        String path = "api/v1/jobs" + (query.isEmpty() ? "" : "?" + query);

        AtomicReference<Long> total = new AtomicReference<>();
        for (int i = 0; i < warmup; i++) {
            total.set(client.get(path).path("total").asLong());
        }
        AtomicLong next = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Latencies> latencies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        double cpuBefore = client.controllerCpuNanos();
        long begin = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            Latencies mine = new Latencies();
            latencies.add(mine);
            Thread thread = new Thread(() -> {
                while (next.getAndIncrement() < requests && System.nanoTime() - begin < maxNanos) {
                    long sent = System.nanoTime();
                    try {
                        JsonNode page = client.get(path);
                        mine.add(System.nanoTime() - sent);
                        total.set(page.path("total").asLong());
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, e.getMessage());
                    }
                }
            }, "loadtest-list-" + c);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        long wall = System.nanoTime() - begin;
        Latencies all = Latencies.merge(latencies);
        System.out.println("loadtest=list query=\"" + query + "\" clients=" + clients + " requests=" + all.count()
                + " total_jobs=" + total.get() + " " + all.summary() + " errors=" + errors.get() + " "
                + LoadTest.controllerCpu(cpuBefore, client.controllerCpuNanos(), all.count(), wall).replace("per_job",
                        "per_request")
                + " load=" + LoadTest.loadAverage());
        if (firstError.get() != null) {
            System.out.println("first error: " + firstError.get());
        }
    }
}
