package io.gantry.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * sacct's {@code Comment} column: the accounting records do not carry a job's comment, the job does
 * ({@code sbatch --comment}), so it is read from {@code GET /api/v1/jobs/{id}} once per job, and only when
 * the column is asked for (Snakemake's Slurm plugin asks for it in its efficiency report, where the
 * comment names the rule).
 */
final class SacctComments {

    private SacctComments() {
    }

    static void fill(ControllerApi api, List<JsonNode> records) {
        Map<String, String> comments = new HashMap<>();
        for (JsonNode record : records) {
            String id = record.path("jobId").asString();
            if (id.contains(".") || !(record instanceof ObjectNode object)) {
                continue;
            }
            String comment = comments.computeIfAbsent(id, k -> {
                JsonNode job = api.get("/api/v1/jobs/" + HttpControllerApi.encode(k));
                return job == null ? "" : SlurmText.text(job, "comment", "");
            });
            object.put("comment", comment);
        }
    }
}
