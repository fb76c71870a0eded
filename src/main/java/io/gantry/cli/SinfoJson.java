package io.gantry.cli;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code sinfo --json}: the nodes in Slurm 22.05's shape ({@code openapi/v0.0.38}: {@code meta}, {@code errors},
 * {@code nodes}), with the fields of a node that Gantry has under Slurm's names and types. A draining or
 * drained node is its base state with the {@code DRAIN} flag, as Slurm prints it. Fields Gantry has no
 * value for (boards, sockets, load, slurmd version, ...) are left out rather than invented.
 */
final class SinfoJson {

    private SinfoJson() {
    }

    static String render(List<JsonNode> nodes, List<JsonNode> partitions) {
        ObjectNode root = SqueueJson.envelope();
        ArrayNode out = root.putArray("nodes");
        for (JsonNode n : nodes) {
            out.add(node(n, partitions));
        }
        return HttpControllerApi.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    private static ObjectNode node(JsonNode n, List<JsonNode> partitions) {
        ObjectNode o = HttpControllerApi.JSON.createObjectNode();
        String name = n.path("name").asString();
        int cpus = n.path("cpus").asInt();
        int alloc = n.path("allocCpus").asInt();
        long memory = n.path("memoryMb").asLong();
        String state = n.path("state").asString();
        String base = switch (state) {
            case "DRAINING" -> alloc >= cpus ? "allocated" : "mixed";
            case "DRAINED" -> "idle";
            case "POWERED_DOWN", "POWERING_UP", "POWERING_DOWN" -> alloc == 0 ? "idle" : alloc >= cpus ? "allocated" : "mixed";
            default -> state.toLowerCase(Locale.ROOT);
        };
        String gpuType = n.hasNonNull("gpuType") ? n.get("gpuType").asString() + ":" : "";
        int gpus = n.path("gpus").asInt();
        o.put("cpus", cpus);
        o.put("features", SlurmText.text(n, "features", ""));
        o.put("active_features", SlurmText.text(n, "features", ""));
        o.put("gres", gpus > 0 ? "gpu:" + gpuType + gpus : "");
        o.put("gres_used", gpus > 0 ? "gpu:" + gpuType + n.path("allocGpus").asInt() : "");
        o.put("name", name);
        o.put("hostname", name);
        o.put("state", base);
        ArrayNode flags = o.putArray("state_flags");
        if (state.startsWith("DRAIN")) {
            flags.add("DRAIN");
        }
        if (state.startsWith("POWER")) {
            flags.add(state); // Slurm's flags: POWERED_DOWN, POWERING_UP, POWERING_DOWN
        }
        List<String> in = new ArrayList<>();
        for (JsonNode p : partitions) {
            if (SlurmText.expand(p.path("nodes").asString("")).contains(name)) {
                in.add(p.path("name").asString());
            }
        }
        ArrayNode parts = o.putArray("partitions");
        in.forEach(parts::add);
        o.put("real_memory", memory);
        o.put("reason", SlurmText.text(n, "reason", ""));
        Instant changed = SlurmText.instant(n.get("reasonTime"));
        o.put("reason_changed_at", changed == null ? 0 : changed.getEpochSecond());
        o.put("tres", "cpu=" + cpus + ",mem=" + (memory % 1024 == 0 && memory > 0 ? memory / 1024 + "G" : memory + "M")
                + ",billing=" + cpus + (gpus > 0 ? ",gres/gpu=" + gpus : ""));
        o.put("alloc_memory", n.path("allocMemoryMb").asLong());
        o.put("alloc_cpus", alloc);
        o.put("idle_cpus", Math.max(0, cpus - alloc));
        return o;
    }
}
