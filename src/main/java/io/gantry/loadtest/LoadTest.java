package io.gantry.loadtest;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code java -jar gantry.jar loadtest <submit|latency|throughput|agents|list> --url U --user U --password P ...}
 * (or {@code loadtest slurm-submit --url U --token-file F}, the submit load against slurmrestd):
 * drives a running controller over its REST API and prints figures. It starts no Spring context of
 * its own, so it measures the controller and not itself.
 */
public final class LoadTest {

    private LoadTest() {
    }

    public static void main(String[] args) {
        if (args.length == 0 || args[0].startsWith("-")) {
            usage("name a load test");
        }
        Options options = Options.parse(args);
        if (args[0].equals("slurm-submit")) {
            SubmitLoad.runSlurm(options);
            System.exit(0);
        }
        GantryClient client = GantryClient.signIn(options.text("url", "http://127.0.0.1:8080"),
                options.text("user", "admin"), options.required("password"));
        switch (args[0]) {
            case "submit" -> SubmitLoad.run(client, options);
            case "latency" -> LatencyLoad.run(client, options);
            case "throughput" -> ThroughputLoad.run(client, options);
            case "agents" -> AgentLoad.run(client, options);
            case "list" -> ListLoad.run(client, options);
            default -> usage("unknown load test '" + args[0] + "'");
        }
        // The HTTP client's selector and the event reader are daemon threads; nothing else keeps us.
        System.exit(0);
    }

    private static void usage(String problem) {
        System.err.println("loadtest: " + problem + "\nusage: loadtest <submit|latency|throughput|agents|list> --url URL --user U"
                + " --password P [--clients 16] [--jobs N] [--seconds S] [--partition P] [--run-seconds R]"
                + " [--array-size N] [--array-rounds 3] [--warmup S] [--gpus G] [--agents N[,N2...]]"
                + " [--requests N] [--query Q]\n       loadtest slurm-submit --url http://127.0.0.1:6820"
                + " --token-file F [--slurm-user root] [--partition cpu] [--cpu-pids PID,PID] [--clients 16]"
                + " [--seconds S] [--warmup S]");
        System.exit(2);
    }

    /** The machine's load averages (1, 5, 15 min): a shared machine's figures mean little without them. */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + "," + parts[1] + "," + parts[2];
        } catch (IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }

    static String rate(double count, double nanos) {
        return String.format(Locale.ROOT, "%.0f", nanos <= 0 ? 0 : count * 1e9 / nanos);
    }

    /** The controller's CPU per job and the cores it kept busy, between two readings of its CPU time. */
    static String controllerCpu(double cpuBefore, double cpuAfter, long jobs, long wallNanos) {
        if (cpuBefore < 0 || cpuAfter < 0 || wallNanos <= 0) {
            return "server_cpu_ms_per_job=n/a";
        }
        double cpu = cpuAfter - cpuBefore;
        return String.format(Locale.ROOT, "server_cpu_ms_per_job=%.2f server_cores_busy=%.2f",
                jobs == 0 ? 0 : cpu / 1e6 / jobs, cpu / wallNanos);
    }

    /** {@code --name value} pairs after the test's name. */
    record Options(Map<String, String> values) {

        static Options parse(String[] args) {
            Map<String, String> values = new HashMap<>();
            for (int i = 1; i < args.length; i++) {
                String arg = args[i];
                if (!arg.startsWith("--")) {
                    usage("unexpected argument '" + arg + "'");
                }
                int eq = arg.indexOf('=');
                if (eq > 0) {
                    values.put(arg.substring(2, eq), arg.substring(eq + 1));
                } else if (i + 1 < args.length) {
                    values.put(arg.substring(2), args[++i]);
                } else {
                    usage(arg + " needs a value");
                }
            }
            return new Options(values);
        }

        String text(String name, String fallback) {
            return values.getOrDefault(name, fallback);
        }

        String required(String name) {
            String value = values.get(name);
            if (value == null) {
                usage("--" + name + " is required");
            }
            return value;
        }

        int number(String name, int fallback) {
            String value = values.get(name);
            try {
                return value == null ? fallback : Integer.parseInt(value);
            } catch (NumberFormatException e) {
                usage("--" + name + " must be a whole number, was '" + value + "'");
                return fallback;
            }
        }
    }
}
