package io.gantry.loadtest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;

import tools.jackson.databind.json.JsonMapper;

/**
 * Submissions per second: {@code --clients} threads each POST held jobs back to back for
 * {@code --warmup} seconds (not counted) and then {@code --seconds}; then one
 * {@code --array-size}-task array, timed, {@code --array-rounds} times (3). Held jobs never start, so
 * the cluster's size does not matter. {@code slurm-submit} sends the same load to slurmrestd.
 */
final class SubmitLoad {

    private SubmitLoad() {
    }

    /** One submission; throws when it was not accepted. */
    @FunctionalInterface
    interface Submitter {
        void submit();
    }

    static void run(GantryClient client, LoadTest.Options options) {
        int arraySize = options.number("array-size", 10_000);
        int arrayRounds = options.number("array-rounds", 3);
        Map<String, Object> job = job(options.text("partition", null));
        measure("submit", options, () -> client.submit(job), client::controllerCpuNanos);
        submitArrays(client, job, arraySize, arrayRounds);
    }

    /**
     * {@code loadtest slurm-submit}: the same load against slurmrestd, so the two rates come from one
     * machine in one run. {@code server_cpu_ms_per_job} is then the CPU of the daemons named by
     * {@code --cpu-pids} (slurmctld and slurmrestd).
     */
    static void runSlurm(LoadTest.Options options) {
        SlurmClient slurm = SlurmClient.from(options);
        byte[] body = JsonMapper.builder().build().writeValueAsBytes(SlurmClient.heldJob(options.text("partition", "cpu")));
        measure("slurm-submit", options, () -> slurm.submit(body), slurm::daemonCpuNanos);
    }

    private static void measure(String name, LoadTest.Options options, Submitter submitter, DoubleSupplier serverCpu) {
        int clients = options.number("clients", 16);
        int seconds = options.number("seconds", 30);
        int warmup = options.number("warmup", 5);
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
                        submitter.submit();
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
            cpu[0] = serverCpu.getAsDouble();
            sleepUntil(measureTo);
            cpu[1] = serverCpu.getAsDouble();
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
        System.out.println("loadtest=" + name + " clients=" + clients + " seconds=" + seconds + " warmup_s=" + warmup
                + " submitted=" + all.count() + " rate_per_s=" + LoadTest.rate(all.count(), measureTo - measureFrom)
                + " slowest_second=" + slowest + " fastest_second=" + fastest + " " + all.summary()
                + " errors=" + errors.get() + " " + LoadTest.controllerCpu(cpu[0], cpu[1], all.count(), measureTo - measureFrom)
                + " load=" + LoadTest.loadAverage());
        if (firstError.get() != null) {
            System.out.println("first error: " + firstError.get());
        }
    }

    private static void submitArrays(GantryClient client, Map<String, Object> job, int arraySize, int rounds) {
        Map<String, Object> array = new LinkedHashMap<>(job);
        array.put("name", "bench-array");
        array.put("array", "0-" + (arraySize - 1));
        for (int round = 1; round <= rounds; round++) {
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
