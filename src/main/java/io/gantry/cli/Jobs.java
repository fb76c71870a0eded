package io.gantry.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Reading jobs from the controller as the commands need them: by id (a whole array for its id) or by filter, every page. */
final class Jobs {

    private static final int PAGE = 1000;

    private Jobs() {
    }

    /** The job, array task, or every task of the array {@code id} names; empty when none exists. */
    static List<JsonNode> byId(ControllerApi api, String id) {
        JsonNode job = api.get("/api/v1/jobs/" + HttpControllerApi.encode(id));
        if (job == null) {
            return List.of();
        }
        if (!id.contains("_") && job.hasNonNull("arrayJobId")) {
            return list(api, Map.of("arrayJobId", job.get("arrayJobId").asString()));
        }
        return List.of(job);
    }

    /** Every job the filters select, all pages. */
    static List<JsonNode> list(ControllerApi api, Map<String, String> filters) {
        List<JsonNode> jobs = new ArrayList<>();
        for (int page = 0;; page++) {
            StringBuilder query = new StringBuilder("/api/v1/jobs?size=" + PAGE + "&page=" + page);
            new LinkedHashMap<>(filters).forEach((k, v) -> {
                if (v != null && !v.isEmpty()) {
                    query.append('&').append(k).append('=').append(HttpControllerApi.encode(v));
                }
            });
            JsonNode answer = api.get(query.toString());
            if (answer == null || !answer.has("items")) {
                return jobs;
            }
            answer.get("items").forEach(jobs::add);
            long total = answer.path("total").asLong(0);
            if (answer.get("items").isEmpty() || (long) (page + 1) * PAGE >= total) {
                return jobs;
            }
        }
    }

    /** The id as Slurm writes it: 42, or 42_7 for an array task. */
    static String id(JsonNode job) {
        return job.hasNonNull("id") ? job.get("id").asString() : job.get("jobId").asString();
    }
}
