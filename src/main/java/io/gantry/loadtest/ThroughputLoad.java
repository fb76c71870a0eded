package io.gantry.loadtest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import tools.jackson.databind.JsonNode;

/**
 * Jobs completed per second through simulated nodes: {@code --clients} threads submit
 * {@code --jobs} jobs of {@code --run-seconds} as arrays of {@code --array-size} tasks, as fast as
 * the API takes them, while the scheduler's own counters ({@code GET /api/v1/diag}) are sampled
 * every second until all of them have completed (or {@code --seconds} pass).
 */
final class ThroughputLoad {

    private ThroughputLoad() {
    }

    private record Sample(long nanos, long started, long completed) {
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int jobs = options.number("jobs", 20_000);
        int clients = options.number("clients", 4);
        int arraySize = options.number("array-size", 100);
        int runSeconds = options.number("run-seconds", 1);
        int timeout = options.number("seconds", 300);
        String partition = options.text("partition", null);

        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "bench-throughput");
        job.put("tasks", 1);
        job.put("timeLimitSeconds", 600);
        job.put("simulatedRunSeconds", runSeconds);
        if (arraySize > 1) {
            job.put("array", "0-" + (arraySize - 1));
        }
        if (partition != null) {
            job.put("partition", partition);
        }
        JsonNode before = client.diag();
        long started0 = before.get("jobsStarted").asLong();
        long completed0 = before.get("jobsCompleted").asLong();
        int batches = (jobs + arraySize - 1) / arraySize;
        int total = batches * arraySize;
        AtomicLong nextBatch = new AtomicLong();
        AtomicLong submitEnd = new AtomicLong();
        AtomicReference<String> error = new AtomicReference<>();
        double cpuBefore = client.controllerCpuNanos();
        long begin = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread thread = new Thread(() -> {
                while (nextBatch.getAndIncrement() < batches && error.get() == null) {
                    try {
                        client.submit(job);
                    } catch (RuntimeException e) {
                        error.compareAndSet(null, e.getMessage());
                    }
                }
                submitEnd.accumulateAndGet(System.nanoTime(), Math::max);
            }, "loadtest-submitter-" + c);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }

        List<Sample> samples = new ArrayList<>();
        samples.add(new Sample(begin, 0, 0));
        long deadline = begin + timeout * 1_000_000_000L;
        while (System.nanoTime() < deadline && error.get() == null) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            JsonNode diag = client.diag();
            Sample sample = new Sample(System.nanoTime(), diag.get("jobsStarted").asLong() - started0,
                    diag.get("jobsCompleted").asLong() - completed0);
            samples.add(sample);
            if (samples.size() % 5 == 0) {
                System.out.println("  t=" + (sample.nanos() - begin) / 1_000_000_000L + "s started=" + sample.started()
                        + " completed=" + sample.completed() + " pending=" + diag.get("pending").asLong()
                        + " running=" + diag.get("running").asLong() + " load=" + LoadTest.loadAverage());
            }
            if (sample.completed() >= total) {
                break;
            }
        }
        if (error.get() != null) {
            System.out.println("submission failed: " + error.get());
        }
        Sample last = samples.get(samples.size() - 1);
        JsonNode after = client.diag();
        String cycles = "cycles=" + (after.get("cycles").asLong() - before.get("cycles").asLong()) + " max_cycle_ms="
                + String.format(Locale.ROOT, "%.0f", after.get("maxCycleMs").asDouble()) + " mean_cycle_ms="
                + String.format(Locale.ROOT, "%.0f", after.get("meanCycleMs").asDouble());
        double peak = 0;
        for (int i = 1; i < samples.size(); i++) {
            Sample a = samples.get(i - 1);
            Sample b = samples.get(i);
            peak = Math.max(peak, (b.completed() - a.completed()) * 1e9 / (b.nanos() - a.nanos()));
        }
        long submitted = submitEnd.get() == 0 ? 0 : submitEnd.get() - begin;
        System.out.println("loadtest=throughput jobs=" + total + " run_seconds=" + runSeconds + " array_size="
                + arraySize + " completed=" + last.completed() + " wall_s=" + seconds(last.nanos() - begin) + " submit_s=" + seconds(submitted)
                + " completed_per_s=" + LoadTest.rate(last.completed(), last.nanos() - begin)
                + " steady_completed_per_s=" + steady(samples, total) + " peak_completed_per_s="
                + String.format(Locale.ROOT, "%.0f", peak) + " started_per_s="
                + LoadTest.rate(last.started(), last.nanos() - begin) + " " + cycles + " "
                + LoadTest.controllerCpu(cpuBefore, client.controllerCpuNanos(), last.completed(), last.nanos() - begin)
                + " load=" + LoadTest.loadAverage());
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }

    /** Completions per second between 10 % and 90 % of the jobs done: the run without its ramps. */
    private static String steady(List<Sample> samples, long total) {
        Sample from = null;
        Sample to = null;
        for (Sample s : samples) {
            if (from == null && s.completed() >= total / 10) {
                from = s;
            }
            if (to == null && s.completed() >= total * 9 / 10) {
                to = s;
            }
        }
        if (from == null || to == null || to == from) {
            return "n/a";
        }
        return LoadTest.rate(to.completed() - from.completed(), to.nanos() - from.nanos());
    }
}
