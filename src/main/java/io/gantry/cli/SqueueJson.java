package io.gantry.cli;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code squeue --json}: the jobs in Slurm 22.05's shape ({@code openapi/v0.0.38}: {@code meta}, {@code errors},
 * {@code jobs}), with the fields of a job that Gantry has, named and typed as Slurm's (times as epoch
 * seconds, 0 when unset; {@code time_limit} in minutes). Fields Gantry has no value for (sockets, cores,
 * burst buffers, federation, ...) are left out rather than filled with made-up values; a reader keyed on
 * the common ones (job_id, job_state, name, partition, user_name, nodes) reads them as from Slurm.
 */
final class SqueueJson {

    private SqueueJson() {
    }

    /**
     * Slurm 22.05's data_parser envelope (openapi/v0.0.38) that its {@code --json} answers share, with no
     * errors: what squeue and sinfo put their records under.
     */
    static ObjectNode envelope() {
        ObjectNode root = HttpControllerApi.JSON.createObjectNode();
        ObjectNode meta = root.putObject("meta");
        ObjectNode plugin = meta.putObject("plugin");
        plugin.put("type", "openapi/v0.0.38");
        plugin.put("name", "Slurm OpenAPI v0.0.38");
        ObjectNode slurm = meta.putObject("Slurm");
        ObjectNode version = slurm.putObject("version");
        version.put("major", 22);
        version.put("micro", 8);
        version.put("minor", 5);
        slurm.put("release", "22.05.8");
        root.putArray("errors");
        return root;
    }

    static String render(List<JsonNode> jobs, String cluster) {
        ObjectNode root = SqueueJson.envelope();
        ArrayNode out = root.putArray("jobs");
        for (JsonNode j : jobs) {
            out.add(job(j, cluster));
        }
        return HttpControllerApi.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    private static ObjectNode job(JsonNode j, String cluster) {
        ObjectNode o = HttpControllerApi.JSON.createObjectNode();
        boolean pending = "PENDING".equals(j.path("state").asString());
        String nodes = pending ? "" : SlurmText.text(j, "allocatedNodes", "");
        o.put("account", SlurmText.text(j, "account", ""));
        o.put("accrue_time", epoch(j, "eligibleTime"));
        o.put("array_job_id", j.path("arrayJobId").asLong(0));
        if (j.hasNonNull("arrayTaskId")) {
            o.put("array_task_id", j.get("arrayTaskId").asLong());
        } else {
            o.putNull("array_task_id");
        }
        o.put("batch_flag", true);
        o.put("batch_host", nodes.isEmpty() ? "" : SlurmText.expand(nodes).get(0));
        o.put("cluster", cluster);
        o.put("comment", SlurmText.text(j, "comment", ""));
        o.put("cpus_per_task", j.path("cpusPerTask").asInt(1));
        o.put("deadline", epoch(j, "deadline"));
        o.put("dependency", SlurmText.text(j, "dependency", ""));
        o.put("eligible_time", epoch(j, "eligibleTime"));
        o.put("end_time", epoch(j, "endTime"));
        o.put("excluded_nodes", SlurmText.text(j, "exclude", ""));
        o.put("exit_code", j.path("exitCode").asInt(0));
        o.put("features", SlurmText.text(j, "constraints", ""));
        o.put("group_name", SlurmText.text(j, "user", ""));
        o.put("job_id", j.path("jobId").asLong());
        o.put("job_state", j.path("state").asString());
        o.put("name", SlurmText.text(j, "name", ""));
        o.put("nodes", nodes);
        o.put("nice", j.path("nice").asInt(0));
        o.put("cpus", Math.max(1, j.path("tasks").asInt(1)) * Math.max(1, j.path("cpusPerTask").asInt(1)));
        o.put("node_count", nodes.isEmpty() ? Math.max(1, j.path("nodes").asInt()) : SlurmText.expand(nodes).size());
        o.put("tasks", Math.max(1, j.path("tasks").asInt(1)));
        o.put("partition", SlurmText.text(j, "partition", ""));
        o.put("priority", j.path("priority").asLong());
        o.put("qos", SlurmText.text(j, "qos", ""));
        o.put("required_nodes", SlurmText.text(j, "nodelist", ""));
        o.put("requeue", j.path("requeue").asBoolean(true));
        o.put("restart_cnt", j.path("requeueCount").asInt(0));
        o.put("resv_name", SlurmText.text(j, "reservation", ""));
        o.put("start_time", epoch(j, "startTime"));
        o.put("state_reason", SlurmText.text(j, "reason", "None"));
        o.put("standard_error", SlurmText.text(j, "stderr", ""));
        o.put("standard_input", "/dev/null");
        o.put("standard_output", SlurmText.text(j, "stdout", ""));
        o.put("submit_time", epoch(j, "submitTime"));
        long limit = j.path("timeLimitSeconds").asLong();
        o.put("time_limit", limit <= 0 ? 0 : (limit + 59) / 60);
        o.put("user_name", SlurmText.text(j, "user", ""));
        o.put("current_working_directory", SlurmText.text(j, "workdir", ""));
        return o;
    }

    private static long epoch(JsonNode j, String field) {
        Instant at = SlurmText.instant(j.get(field));
        return at == null ? 0 : at.getEpochSecond();
    }
}
