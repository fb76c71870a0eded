package io.gantry.loadtest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Submissions per second: {@code --clients} threads each POST held jobs back to back for
 * {@code --warmup} seconds (not counted) and then {@code --seconds}; then one
 * {@code --array-size}-task array, timed, three times. Held jobs never start, so the cluster's
 * size does not matter.
 */
final class SubmitLoad {

    private SubmitLoad() {
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int clients = options.number("clients", 16);
        int seconds = options.number("seconds", 30);
        int warmup = options.number("warmup", 5);
        int arraySize = options.number("array-size", 10_000);
        String partition = options.text("partition", null);

        Map<String, Object> job = job(partition);
        double[] cpu = {-1, -1};
        long begin = System.nanoTime();
        long measureFrom = begin + warmup * 1_000_000_000L;
        long measureTo = measureFrom + seconds * 1_000_000_000L;
        AtomicLongArray perSecond = new AtomicLongArray(seconds);
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Latencies> latencies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Latencies mine = new Latencies();
            latencies.add(mine);
            Thread thread = new Thread(() -> {
                for (long sent = System.nanoTime(); sent < measureTo; sent = System.nanoTime()) {
                    try {
                        client.submit(job);
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, e.getMessage());
                        continue;
                    }
                    long done = System.nanoTime();
                    if (sent >= measureFrom && done < measureTo) {
                        mine.add(done - sent);
                        perSecond.incrementAndGet((int) ((done - measureFrom) / 1_000_000_000L));
                    }
                }
            }, "loadtest-client-" + c);
            threads.add(thread);
            thread.start();
        }
        Thread cpuReader = new Thread(() -> {
            sleepUntil(measureFrom);
            cpu[0] = client.controllerCpuNanos();
            sleepUntil(measureTo);
            cpu[1] = client.controllerCpuNanos();
        }, "loadtest-cpu");
        cpuReader.start();
        threads.add(cpuReader);
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        Latencies all = Latencies.merge(latencies);
        long slowest = Long.MAX_VALUE;
        long fastest = 0;
        for (int s = 0; s < seconds; s++) {
            slowest = Math.min(slowest, perSecond.get(s));
            fastest = Math.max(fastest, perSecond.get(s));
        }
        System.out.println("loadtest=submit clients=" + clients + " seconds=" + seconds + " warmup_s=" + warmup
                + " submitted=" + all.count() + " rate_per_s=" + LoadTest.rate(all.count(), measureTo - measureFrom)
                + " slowest_second=" + slowest + " fastest_second=" + fastest + " " + all.summary()
                + " errors=" + errors.get() + " " + LoadTest.controllerCpu(cpu[0], cpu[1], all.count(), measureTo - measureFrom)
                + " load=" + LoadTest.loadAverage());
        if (firstError.get() != null) {
            System.out.println("first error: " + firstError.get());
        }

        Map<String, Object> array = new LinkedHashMap<>(job);
        array.put("name", "bench-array");
        array.put("array", "0-" + (arraySize - 1));
        for (int round = 1; round <= 3; round++) {
            double cpuBefore = client.controllerCpuNanos();
            long sent = System.nanoTime();
            String outcome;
            try {
                outcome = "job_id=" + client.submit(array);
            } catch (RuntimeException e) {
                outcome = "error=\"" + e.getMessage() + "\"";
            }
            System.out.println("loadtest=submit-array tasks=" + arraySize + " round=" + round + " ms="
                    + LoadTest.ms(System.nanoTime() - sent) + " " + outcome + " server_cpu_ms="
                    + LoadTest.ms(client.controllerCpuNanos() - cpuBefore) + " load=" + LoadTest.loadAverage());
        }
    }

    private static void sleepUntil(long nanoTime) {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            try {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Map<String, Object> job(String partition) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "bench-submit");
        job.put("script", "#!/bin/bash\n#SBATCH --ntasks=1\n#SBATCH --time=10:00\nsleep 600\n");
        job.put("hold", true);
        job.put("simulatedRunSeconds", 600);
        if (partition != null) {
            job.put("partition", partition);
        }
        return job;
    }
}
