package io.gantry.loadtest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Submit to RUNNING on an idle cluster: {@code --jobs} jobs one after another, each timed from just
 * before its POST until the live event stream says it runs. Each job runs {@code --run-seconds} on
 * a simulated node; the next is submitted only once the previous one runs, so the queue stays empty
 * and every start is the work of an event-triggered cycle ({@code --gpus G}: each job asks for G
 * GPUs, e.g. a 1-GPU job on an idle node of partition {@code gpu} next to a long queue). It stops
 * early after {@code --max-seconds}, so a slow controller still gives figures (over fewer jobs).
 */
final class LatencyLoad {

    private LatencyLoad() {
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int jobs = options.number("jobs", 200);
        int warmup = options.number("warmup", 20);
        int runSeconds = options.number("run-seconds", 1);
        String partition = options.text("partition", null);
        int gpus = options.number("gpus", 0);
        long deadline = System.nanoTime() + options.number("max-seconds", 3600) * 1_000_000_000L;

        Map<String, CountDownLatch> waiting = new ConcurrentHashMap<>();
        client.followJobEvents((id, change) -> {
            if ("RUNNING".equals(change)) {
                waiting.computeIfAbsent(id, k -> new CountDownLatch(1)).countDown();
            }
        });
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "bench-latency");
        job.put("tasks", 1);
        job.put("timeLimitSeconds", 600);
        job.put("simulatedRunSeconds", runSeconds);
        if (partition != null) {
            job.put("partition", partition);
        }
        if (gpus > 0) {
            job.put("gpus", gpus);
        }
        Latencies latencies = new Latencies();
        double cpuBefore = -1;
        long measuredFrom = 0;
        int lost = 0;
        for (int i = 0; i < warmup + jobs && System.nanoTime() < deadline; i++) {
            if (i == warmup) {
                cpuBefore = client.controllerCpuNanos();
                measuredFrom = System.nanoTime();
            }
            long sent = System.nanoTime();
            String id = Long.toString(client.submit(job));
            CountDownLatch running = waiting.computeIfAbsent(id, k -> new CountDownLatch(1));
            try {
                if (!running.await(30, TimeUnit.SECONDS)) {
                    lost++;
                    continue;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long elapsed = System.nanoTime() - sent;
            waiting.remove(id);
            if (i >= warmup) {
                latencies.add(elapsed);
            }
        }
        System.out.println("loadtest=latency jobs=" + latencies.count() + " warmup=" + warmup + " gpus=" + gpus + " "
                + latencies.summary()
                + " not_running_after_30s=" + lost + " "
                + LoadTest.controllerCpu(cpuBefore, client.controllerCpuNanos(), latencies.count(),
                        System.nanoTime() - measuredFrom) + " load=" + LoadTest.loadAverage());
    }
}
