package io.gantry.cli;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The controller's API held in memory with the jobs, nodes and partitions a recorded Slurm had
 * ({@code scontrol show job -o}, {@code show node -o}, {@code show partition -o}): the corpus runs
 * Gantry's commands against the same state Slurm printed.
 */
final class FakeController implements ControllerApi {

    private final List<ObjectNode> jobs = new ArrayList<>();
    private final List<ObjectNode> nodes = new ArrayList<>();
    private final List<ObjectNode> partitions = new ArrayList<>();
    private final List<ObjectNode> reservations = new ArrayList<>();
    private final List<String> calls = new ArrayList<>();
    /** The controller's clock: which reservations exist yet, and whether they are active. */
    private Instant now = Instant.EPOCH;
    private long nextId = 900001;

    static Map<String, String> pairs(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        String key = null;
        StringBuilder value = new StringBuilder();
        for (String word : line.strip().split(" ")) {
            int eq = word.indexOf('=');
            if (eq > 0 && Character.isUpperCase(word.charAt(0))) {
                if (key != null) {
                    out.put(key, value.toString());
                }
                key = word.substring(0, eq);
                value.setLength(0);
                value.append(word.substring(eq + 1));
            } else if (key != null && !word.isEmpty()) {
                value.append(' ').append(word);
            }
        }
        if (key != null) {
            out.put(key, value.toString());
        }
        return out;
    }

    private static long clockSeconds(String text) {
        if (text.equals("UNLIMITED")) {
            return 0;
        }
        return TimeLimit.seconds(text);
    }

    private static String time(String local) {
        return local.equals("Unknown") || local.equals("None") ? null
                : LocalDateTime.parse(local).toInstant(ZoneOffset.UTC).toString();
    }

    private static long megabytes(String text) {
        long n = Long.parseLong(text.replaceAll("[^0-9]", ""));
        return text.endsWith("G") ? n * 1024 : text.endsWith("T") ? n * 1024 * 1024 : n;
    }

    void addSlurmJob(String line) {
        Map<String, String> p = pairs(line);
        List<Integer> tasks = new ArrayList<>();
        if (p.containsKey("ArrayTaskId")) {
            for (String t : SlurmText.expand("t[" + p.get("ArrayTaskId") + "]")) {
                tasks.add(Integer.valueOf(t.substring(1)));
            }
        } else {
            tasks.add(null);
        }
        for (Integer task : tasks) {
            ObjectNode j = HttpControllerApi.JSON.createObjectNode();
            long id = Long.parseLong(p.get("JobId"));
            j.put("jobId", id);
            j.put("id", task == null ? Long.toString(id) : id + "_" + task);
            if (task != null) {
                j.put("arrayJobId", id);
                j.put("arrayTaskId", task);
            } else {
                j.putNull("arrayJobId");
                j.putNull("arrayTaskId");
            }
            j.put("name", p.get("JobName"));
            j.put("user", p.get("UserId").replaceAll("\\(.*", ""));
            putText(j, "account", p.get("Account"));
            putText(j, "qos", p.get("QOS"));
            j.put("partition", p.get("Partition"));
            j.put("state", p.get("JobState"));
            j.put("reason", p.get("Reason").replace('_', ' '));
            j.put("priority", Long.parseLong(p.get("Priority")));
            j.put("submitTime", time(p.get("SubmitTime")));
            j.put("eligibleTime", time(p.get("EligibleTime")));
            j.put("startTime", p.get("JobState").equals("PENDING") ? null : time(p.get("StartTime")));
            j.putNull("endTime");
            j.putNull("expectedStartTime");
            j.put("timeLimitSeconds", clockSeconds(p.get("TimeLimit")));
            j.put("nodes", Integer.parseInt(p.get("NumNodes").split("-")[0]));
            j.put("tasks", Integer.parseInt(p.get("NumTasks")));
            j.put("cpusPerTask", Integer.parseInt(p.get("CPUs/Task")));
            j.put("memoryMb", megabytes(p.get("MinMemoryNode")));
            j.put("gpus", 0);
            j.put("gpusPerNode", 0);
            putText(j, "allocatedNodes", p.get("NodeList"));
            String dependency = p.get("Dependency");
            putText(j, "dependency", dependency.replaceAll("\\(.*\\)$", ""));
            j.put("nice", Integer.parseInt(p.get("Nice")));
            j.put("requeue", true);
            j.put("hold", p.get("Reason").equals("JobHeldUser") ? "USER" : null);
            putText(j, "workdir", p.get("WorkDir"));
            jobs.add(j);
        }
    }

    private static void putText(ObjectNode node, String field, String value) {
        if (value == null || value.isEmpty() || value.equals("(null)")) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }

    void addSlurmNodeOrPartition(String line) {
        Map<String, String> p = pairs(line);
        ObjectNode n = HttpControllerApi.JSON.createObjectNode();
        if (p.containsKey("NodeName")) {
            n.put("name", p.get("NodeName"));
            n.put("state", p.get("State").replaceAll("\\+.*", ""));
            n.put("cpus", Integer.parseInt(p.get("CPUTot")));
            n.put("allocCpus", Integer.parseInt(p.get("CPUAlloc")));
            n.put("memoryMb", Long.parseLong(p.get("RealMemory")));
            n.put("allocMemoryMb", Long.parseLong(p.get("AllocMem")));
            String[] gres = p.get("Gres").split(":");
            n.put("gpus", gres.length == 3 ? Integer.parseInt(gres[2]) : 0);
            n.put("gpuType", gres.length == 3 ? gres[1] : null);
            ArrayNode features = n.putArray("features");
            for (String f : p.get("AvailableFeatures").split(",")) {
                features.add(f);
            }
            ArrayNode parts = n.putArray("partitions");
            for (String f : p.get("Partitions").strip().split(",")) {
                parts.add(f);
            }
            nodes.add(n);
        } else {
            n.put("name", p.get("PartitionName"));
            // Only the nodes recorded: the reference's controller host is not a Gantry node.
            n.put("nodes", "ref2");
            n.put("totalNodes", 1);
            n.put("state", p.get("State"));
            n.put("isDefault", p.get("Default").equals("YES"));
            if (p.get("MaxTime").equals("UNLIMITED")) {
                n.putNull("maxTimeSeconds");
            } else {
                n.put("maxTimeSeconds", clockSeconds(p.get("MaxTime")));
            }
            partitions.add(n);
        }
    }

    /**
     * A reservation as {@code scontrol show res -o} printed it, created at {@code createdAt}: the controller
     * shows it from then on. SPEC_NODES is Slurm's word for nodes given by name, not one of Gantry's flags.
     */
    void addSlurmReservation(String line, Instant createdAt) {
        Map<String, String> p = pairs(line);
        ObjectNode r = HttpControllerApi.JSON.createObjectNode();
        r.put("name", p.get("ReservationName"));
        r.put("nodes", p.get("Nodes"));
        r.put("nodeCount", Integer.parseInt(p.get("NodeCnt")));
        putText(r, "partition", p.get("PartitionName"));
        String start = time(p.get("StartTime"));
        String end = time(p.get("EndTime"));
        r.put("startTime", start);
        r.put("endTime", end);
        r.put("durationSeconds", Instant.parse(end).getEpochSecond() - Instant.parse(start).getEpochSecond());
        for (String list : List.of("Users", "Accounts", "Flags")) {
            ArrayNode array = r.putArray(list.toLowerCase(java.util.Locale.ROOT));
            String value = p.get(list);
            if (!value.isEmpty() && !value.equals("(null)")) {
                for (String item : value.split(",")) {
                    if (!item.equals("SPEC_NODES")) {
                        array.add(item);
                    }
                }
            }
        }
        r.put("createdBy", "root");
        r.put("createdAt", createdAt.toString());
        reservations.add(r);
    }

    void now(Instant instant) {
        now = instant;
    }

    /** Those created by now, with the state the controller gives them now. */
    private List<ObjectNode> reservationsNow() {
        List<ObjectNode> out = new ArrayList<>();
        for (ObjectNode r : reservations) {
            if (!Instant.parse(r.get("createdAt").asString()).isAfter(now)) {
                Instant start = Instant.parse(r.get("startTime").asString());
                Instant end = Instant.parse(r.get("endTime").asString());
                ObjectNode copy = r.deepCopy();
                copy.put("state", end.isAfter(now) ? (start.isAfter(now) ? "INACTIVE" : "ACTIVE") : "ENDED");
                out.add(copy);
            }
        }
        // the controller's order: by start, then name
        out.sort(java.util.Comparator.comparing((ObjectNode r) -> r.get("startTime").asString())
                .thenComparing(r -> r.get("name").asString()));
        return out;
    }

    List<String> calls() {
        return calls;
    }

    @Override
    public String host() {
        return "{CTLHOST}";
    }

    private ObjectNode job(String id) {
        return jobs.stream().filter(j -> j.get("id").asString().equals(id)).findFirst()
                .orElseGet(() -> jobs.stream().filter(j -> j.get("jobId").asString().equals(id)).findFirst().orElse(null));
    }

    private static ObjectNode page(List<? extends JsonNode> items) {
        ObjectNode page = HttpControllerApi.JSON.createObjectNode();
        ArrayNode array = page.putArray("items");
        items.forEach(array::add);
        page.put("page", 0);
        page.put("size", 1000);
        page.put("total", items.size());
        return page;
    }

    private static Map<String, String> query(String path) {
        Map<String, String> out = new LinkedHashMap<>();
        int q = path.indexOf('?');
        if (q >= 0) {
            for (String pair : path.substring(q + 1).split("&")) {
                String[] kv = pair.split("=", 2);
                out.put(kv[0], java.net.URLDecoder.decode(kv.length > 1 ? kv[1] : "", java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Override
    public JsonNode get(String path) {
        calls.add("GET " + path);
        String bare = path.replaceAll("\\?.*", "");
        Map<String, String> q = query(path);
        if (bare.equals("/api/v1/jobs")) {
            List<ObjectNode> out = new ArrayList<>(jobs);
            if (q.containsKey("state")) {
                List<String> states = List.of(q.get("state").split(","));
                out.removeIf(j -> !states.contains(j.get("state").asString()));
            }
            if (q.containsKey("arrayJobId")) {
                out.removeIf(j -> !j.get("arrayJobId").asString().equals(q.get("arrayJobId")));
            }
            return page(out);
        }
        if (bare.startsWith("/api/v1/jobs/")) {
            return job(java.net.URLDecoder.decode(bare.substring("/api/v1/jobs/".length()), java.nio.charset.StandardCharsets.UTF_8));
        }
        if (bare.equals("/api/v1/nodes")) {
            return page(nodes);
        }
        if (bare.startsWith("/api/v1/nodes/")) {
            return nodes.stream().filter(n -> n.get("name").asString().equals(bare.substring(14))).findFirst().orElse(null);
        }
        if (bare.equals("/api/v1/partitions")) {
            return page(partitions);
        }
        if (bare.startsWith("/api/v1/partitions/")) {
            return partitions.stream().filter(n -> n.get("name").asString().equals(bare.substring(19))).findFirst().orElse(null);
        }
        if (bare.equals("/api/v1/reservations")) {
            ArrayNode all = HttpControllerApi.JSON.createArrayNode();
            reservationsNow().forEach(all::add);
            return all;
        }
        if (bare.startsWith("/api/v1/reservations/")) {
            String name = java.net.URLDecoder.decode(bare.substring("/api/v1/reservations/".length()),
                    java.nio.charset.StandardCharsets.UTF_8);
            return reservationsNow().stream().filter(r -> r.get("name").asString().equals(name)).findFirst().orElse(null);
        }
        if (bare.equals("/api/v1/auth/whoami")) {
            ObjectNode me = HttpControllerApi.JSON.createObjectNode();
            me.put("username", "root");
            return me;
        }
        throw new ApiException(404, "no such path " + path);
    }

    @Override
    public JsonNode post(String path, Object body) {
        calls.add("POST " + path);
        if (path.equals("/api/v1/jobs")) {
            JsonNode submission = HttpControllerApi.JSON.valueToTree(body);
            String script = submission.path("script").asString();
            for (String line : script.lines().toList()) {
                if (line.startsWith("#SBATCH --partition=")) {
                    String name = line.substring("#SBATCH --partition=".length());
                    if (partitions.stream().noneMatch(p -> p.get("name").asString().equals(name))) {
                        throw new ApiException(400, "partition: unknown partition '" + name + "'; known: cpu, gpu");
                    }
                }
            }
            ObjectNode answer = HttpControllerApi.JSON.createObjectNode();
            answer.put("jobId", nextId++);
            return answer;
        }
        String[] parts = path.split("/");
        ObjectNode job = job(parts[4]);
        if (job == null) {
            throw new ApiException(404, "Job '" + parts[4] + "' does not exist");
        }
        switch (parts[5]) {
            case "hold" -> {
                job.put("reason", "JobHeldAdmin");
                job.put("hold", "ADMIN");
            }
            case "release" -> {
                job.put("reason", job.hasNonNull("dependency") ? "Dependency" : "None");
                job.putNull("hold");
            }
            default -> throw new ApiException(400, "unexpected " + path);
        }
        return HttpControllerApi.JSON.createObjectNode();
    }

    @Override
    public JsonNode patch(String path, Object body) {
        calls.add("PATCH " + path);
        ObjectNode job = job(path.substring("/api/v1/jobs/".length()));
        if (job == null) {
            throw new ApiException(404, "not found");
        }
        JsonNode update = HttpControllerApi.JSON.valueToTree(body);
        if (update.has("timeLimitSeconds")) {
            job.put("timeLimitSeconds", update.get("timeLimitSeconds").asLong());
        }
        return job;
    }

    @Override
    public JsonNode delete(String path) {
        calls.add("DELETE " + path);
        String id = path.substring("/api/v1/jobs/".length());
        List<ObjectNode> matching = jobs.stream().filter(j -> j.get("id").asString().equals(id)
                || j.get("jobId").asString().equals(id)).toList();
        if (matching.isEmpty()) {
            throw new ApiException(404, "Job '" + id + "' does not exist");
        }
        matching.forEach(j -> j.put("state", "CANCELLED"));
        return HttpControllerApi.JSON.createObjectNode();
    }

    static Instant epoch() {
        return Instant.EPOCH;
    }
}
