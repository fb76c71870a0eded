package io.gantry.scheduling;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.gantry.support.ApiClient;

/**
 * The jobs a test class submits to partition {@code sim} of its own cluster: each a simulated run of
 * 600 s unless the test says otherwise, cancelled after each test so that the next starts on idle nodes.
 */
final class SimulatedJobs {

    private final ApiClient api;
    private final String token;
    private final List<Long> submitted = new ArrayList<>();

    SimulatedJobs(ApiClient api, String token) {
        this.api = api;
        this.token = token;
    }

    /** A job's fields: {@code fields} over the defaults (partition sim, a 600 s simulated run, a script). */
    static Map<String, Object> job(Map<String, Object> fields) {
        Map<String, Object> job = new HashMap<>(Map.of("partition", "sim", "simulatedRunSeconds", 600,
                "script", "#!/bin/bash\ntrue\n"));
        job.putAll(fields);
        return job;
    }

    /** Submits {@link #job} of {@code fields}; fails unless it is accepted. Returns its id. */
    long submit(Map<String, Object> fields) {
        long id = api.submitJob(token, job(fields));
        submitted.add(id);
        return id;
    }

    /** Cancels every job submitted so far and waits until none runs. */
    void cancelAll() {
        for (long id : submitted) {
            api.send("DELETE", "/api/v1/jobs/" + id, token, null);
        }
        submitted.clear();
        await().atMost(Duration.ofSeconds(30)).until(() -> api.get("/api/v1/jobs?state=RUNNING", token).json()
                .get("items").isEmpty());
    }
}
