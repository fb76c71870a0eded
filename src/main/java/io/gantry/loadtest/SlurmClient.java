package io.gantry.loadtest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one slurmrestd call the side-by-side submission benchmark makes: {@code POST
 * /slurm/v0.0.38/job/submit} (Slurm 22.05) with JWT headers, and the CPU time of the Slurm daemons
 * that serve it, read from {@code /proc/<pid>/stat} (slurmrestd parses and forwards; slurmctld
 * stores), so both sides of the comparison report CPU per submission.
 */
final class SlurmClient {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** USER_HZ: the unit of utime/stime in /proc/<pid>/stat, 100 on every Linux architecture Slurm runs on. */
    private static final double NANOS_PER_TICK = 1e9 / 100;

    private final HttpClient http;
    private final URI submit;
    private final String user;
    private final String token;
    private final List<Long> pids;

    SlurmClient(String url, String user, String token, List<Long> pids) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        this.submit = URI.create(url.replaceAll("/$", "") + "/slurm/v0.0.38/job/submit");
        this.user = user;
        this.token = token;
        this.pids = pids;
    }

    static SlurmClient from(LoadTest.Options options) {
        String token = options.text("token", null);
        if (token == null) {
            try {
                token = Files.readString(Path.of(options.required("token-file"))).strip();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        String pids = options.text("cpu-pids", "");
        return new SlurmClient(options.text("url", "http://127.0.0.1:6820"), options.text("slurm-user", "root"), token,
                pids.isBlank() ? List.of() : java.util.Arrays.stream(pids.split(",")).map(String::strip)
                        .map(Long::parseLong).toList());
    }

    /**
     * A held batch job as sbatch --hold would send it: slurmctld stores it and schedules nothing.
     * 22.05 answers 200 with a job id and the informational error 2042 ("Job is in held state").
     */
    static Map<String, Object> heldJob(String partition) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "bench-submit");
        job.put("partition", partition);
        job.put("hold", true);
        job.put("current_working_directory", "/tmp");
        job.put("environment", Map.of("PATH", "/usr/bin:/bin"));
        job.put("time_limit", 10);
        return Map.of("job", job, "script", "#!/bin/bash\nsleep 600\n");
    }

    /** Submits; returns the job id, or throws with slurmrestd's answer when it gave none. */
    long submit(byte[] body) {
        HttpRequest request = HttpRequest.newBuilder(submit).timeout(Duration.ofSeconds(60))
                .header("X-SLURM-USER-NAME", user).header("X-SLURM-USER-TOKEN", token)
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<byte[]> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException("POST " + submit + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        JsonNode reply = response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
        if (reply == null || !reply.path("job_id").isNumber()) {
            throw new IllegalStateException("POST " + submit + " answered " + response.statusCode() + ": "
                    + new String(response.body(), StandardCharsets.UTF_8));
        }
        return reply.get("job_id").asLong();
    }

    /** CPU time (user + system) of the named daemons in nanoseconds; -1 when none was named or readable. */
    double daemonCpuNanos() {
        if (pids.isEmpty()) {
            return -1;
        }
        double total = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // Fields after the command name, which is in parentheses and may hold spaces.
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                total += (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }
        return total;
    }
}
