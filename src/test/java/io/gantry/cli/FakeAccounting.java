package io.gantry.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The accounting API held in memory with what a recorded Slurm with slurmdbd had: accounts, users,
 * associations and QOS ({@code sacctmgr -P} listings), the fair-share tree ({@code sshare -a -l -P}),
 * pending jobs' priorities ({@code sprio}) and the usage sreport reported. Writes change it as the
 * controller would; a caller who is not an ADMIN is refused with 403, as the controller refuses.
 */
final class FakeAccounting implements ControllerApi {

    private final Map<String, ObjectNode> accounts = new LinkedHashMap<>();
    private final List<ObjectNode> associations = new ArrayList<>();
    private final Map<String, ObjectNode> users = new LinkedHashMap<>();
    private final Map<String, ObjectNode> qos = new LinkedHashMap<>();
    private final List<ObjectNode> fairshare = new ArrayList<>();
    private final List<ObjectNode> priorities = new ArrayList<>();
    private ObjectNode weights;
    private final List<ObjectNode> accountingJobs = new ArrayList<>();
    private ObjectNode clusterUsage;
    private final List<ObjectNode> nodes = new ArrayList<>();
    private final List<ObjectNode> running = new ArrayList<>();
    private long nextAssociation = 1;
    private String caller = "root";

    /** A running job, as {@code GET /jobs?state=RUNNING} lists it. */
    void addRunningJob(String user, String account, int cpus, long memoryMb, String startTime, long limitSeconds) {
        ObjectNode j = node();
        j.put("jobId", 900000 + running.size());
        j.put("user", user);
        j.put("account", account);
        j.put("state", "RUNNING");
        j.put("tasks", 1);
        j.put("cpusPerTask", cpus);
        j.put("memoryMb", memoryMb);
        j.put("nodes", 1);
        j.put("startTime", startTime);
        j.put("timeLimitSeconds", limitSeconds);
        running.add(j);
    }

    void callAs(String user) {
        caller = user;
    }

    private boolean admin() {
        ObjectNode u = users.get(caller);
        return u != null && u.get("roles").toString().contains("ADMIN");
    }

    private static ObjectNode node() {
        return HttpControllerApi.JSON.createObjectNode();
    }

    private static List<String[]> rows(Path file) throws IOException {
        List<String[]> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                out.add(line.split("\\|", -1));
            }
        }
        return out;
    }

    private static void putText(ObjectNode node, String field, String value) {
        if (value == null || value.isEmpty()) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }

    private static void putInt(ObjectNode node, String field, String value) {
        if (value == null || value.isEmpty()) {
            node.putNull(field);
        } else {
            node.put(field, Integer.parseInt(value));
        }
    }

    static FakeAccounting load(Path dir) throws IOException {
        FakeAccounting f = new FakeAccounting();
        Map<String, String> parents = new HashMap<>();
        for (String[] r : rows(dir.resolve("assoc.state"))) {
            // account|user|parentname|share|maxjobs|maxsubmit|grptres|qos|defaultqos
            ObjectNode a = node();
            a.put("id", f.nextAssociation++);
            a.put("account", r[0]);
            putText(a, "user", r[1]);
            a.put("shares", Integer.parseInt(r[3]));
            putInt(a, "maxJobs", r[4]);
            putInt(a, "maxSubmitJobs", r[5]);
            putText(a, "grpTres", r[6]);
            putText(a, "defaultQos", r[8]);
            ArrayNode qos = a.putArray("qos");
            for (String q : r[7].split(",")) {
                if (!q.isEmpty()) {
                    qos.add(q);
                }
            }
            f.associations.add(a);
            if (r[1].isEmpty()) {
                parents.put(r[0], r[2]);
            }
        }
        for (String[] r : rows(dir.resolve("account.state"))) {
            ObjectNode acc = node();
            acc.put("name", r[0]);
            putText(acc, "parent", parents.get(r[0]));
            putText(acc, "description", r[1]);
            putText(acc, "organization", r[2]);
            f.accounts.put(r[0], acc);
        }
        for (String[] r : rows(dir.resolve("user.state"))) {
            ObjectNode u = node();
            u.put("username", r[0]);
            putText(u, "defaultAccount", r[1]);
            u.putArray("roles").add(r[2].equals("Administrator") ? "ADMIN" : r[2].equals("Operator") ? "OPERATOR"
                    : "USER");
            f.users.put(r[0], u);
        }
        for (String[] r : rows(dir.resolve("qos.state"))) {
            // name|description|priority|maxwall|maxjobspu|maxsubmitpu|maxtrespu|maxtres|grptres|preempt|preemptmode|
            // usagefactor|gracetime
            ObjectNode q = node();
            q.put("name", r[0]);
            putText(q, "description", r[1]);
            q.put("priority", Integer.parseInt(r[2]));
            if (r[3].isEmpty()) {
                q.putNull("maxWallSeconds");
            } else {
                q.put("maxWallSeconds", TimeLimit.seconds(r[3]));
            }
            putInt(q, "maxJobsPerUser", r[4]);
            putInt(q, "maxSubmitJobsPerUser", r[5]);
            putText(q, "maxTresPerUser", r[6]);
            putText(q, "maxTresPerJob", r[7]);
            putText(q, "grpTres", r[8]);
            ArrayNode preempt = q.putArray("preempt");
            for (String p : r[9].split(",")) {
                if (!p.isEmpty()) {
                    preempt.add(p);
                }
            }
            if (r[10].equals("cluster")) {
                q.putNull("preemptMode");
            } else {
                q.put("preemptMode", r[10].toUpperCase(java.util.Locale.ROOT));
            }
            q.put("usageFactor", Double.parseDouble(r[11]));
            q.put("graceSeconds", TimeLimit.seconds(r[12]));
            f.qos.put(r[0], q);
        }
        f.loadFairshare(dir.resolve("sshare.state"), parents);
        f.loadPriorities(dir.resolve("sprio.state"), dir.resolve("sprio-weights.state"));
        f.loadUsage(dir.resolve("sreport-cluster.state"), dir.resolve("sacct.state"));
        for (String[] r : rows(dir.resolve("nodes.state"))) {
            ObjectNode n = node();
            n.put("name", r[0]);
            n.put("cpus", Integer.parseInt(r[1]));
            f.nodes.add(n);
        }
        return f;
    }

    private void loadFairshare(Path file, Map<String, String> parents) throws IOException {
        List<String[]> lines = rows(file);
        if (lines.isEmpty()) {
            return;
        }
        // Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins
        for (String[] r : lines.subList(1, lines.size())) {
            String account = r[0].strip();
            boolean user = !r[1].isEmpty();
            ObjectNode l = node();
            l.put("account", account);
            putText(l, "user", r[1]);
            String parent = user ? account : parents.get(account);
            putText(l, "parent", parent == null || parent.isEmpty() ? null : parent);
            int depth = 0;
            for (String a = account; parents.get(a) != null && !parents.get(a).isEmpty(); a = parents.get(a)) {
                depth++;
            }
            l.put("depth", user ? depth + 1 : depth);
            l.put("rawShares", r[2].isEmpty() ? 1 : Long.parseLong(r[2]));
            l.put("normShares", Double.parseDouble(r[3]));
            l.put("rawUsage", Double.parseDouble(r[4]));
            l.put("effectiveUsage", Double.parseDouble(r[6]));
            if (r[8].isEmpty() || r[8].equals("inf")) {
                l.putNull("levelFairShare");
            } else {
                l.put("levelFairShare", Double.parseDouble(r[8]));
            }
            if (r[7].isEmpty()) {
                l.putNull("fairShareFactor");
            } else {
                l.put("fairShareFactor", Double.parseDouble(r[7]));
            }
            fairshare.add(l);
        }
    }

    private void loadPriorities(Path file, Path weightsFile) throws IOException {
        // %i|%u|%r|%Y|%y|%a|%A|%f|%F|%j|%J|%p|%P|%q|%Q|%S|%t|%T|%N
        for (String[] r : rows(file)) {
            ObjectNode j = node();
            j.put("jobId", CliAccountingCorpusTests.ids(r[0]));
            j.put("user", r[1]);
            j.put("partition", r[2]);
            j.put("priority", Long.parseLong(r[3]));
            j.put("nice", Integer.parseInt(r[18]));
            ObjectNode factors = j.putObject("factors");
            ObjectNode weighted = j.putObject("weighted");
            String[][] pairs = { { "age", "5", "6" }, { "fairShare", "7", "8" }, { "jobSize", "9", "10" },
                    { "partition", "11", "12" }, { "qos", "13", "14" } };
            for (String[] p : pairs) {
                factors.put(p[0], Double.parseDouble(r[Integer.parseInt(p[1])]));
                weighted.put(p[0], Double.parseDouble(r[Integer.parseInt(p[2])]));
            }
            priorities.add(j);
        }
        if (Files.exists(weightsFile)) {
            String[] w = Files.readString(weightsFile).strip().split("\\s+");
            // Weights SITE AGE FAIRSHARE JOBSIZE PARTITION QOS
            weights = node();
            weights.put("age", Double.parseDouble(w[2]));
            weights.put("fairShare", Double.parseDouble(w[3]));
            weights.put("jobSize", Double.parseDouble(w[4]));
            weights.put("partition", Double.parseDouble(w[5]));
            weights.put("qos", Double.parseDouble(w[6]));
        }
    }

    private void loadUsage(Path clusterFile, Path jobsFile) throws IOException {
        for (String[] r : rows(clusterFile)) {
            // Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported, in seconds
            clusterUsage = node();
            clusterUsage.put("allocated", Long.parseLong(r[1]) / 3600.0);
            clusterUsage.put("down", Long.parseLong(r[2]) / 3600.0);
            clusterUsage.put("idle", Long.parseLong(r[4]) / 3600.0);
            clusterUsage.put("reserved", Long.parseLong(r[5]) / 3600.0);
            clusterUsage.put("total", Long.parseLong(r[6]) / 3600.0);
        }
        for (String[] r : rows(jobsFile)) {
            // JobIDRaw|User|Account|AllocCPUS|Start|End|State|Partition|QOS
            ObjectNode j = node();
            j.put("jobId", r[0]);
            j.put("user", r[1]);
            j.put("account", r[2]);
            j.put("allocTres", "cpu=" + r[3] + ",node=1");
            j.put("startTime", time(r[4]));
            j.put("endTime", time(r[5]));
            j.put("state", r[6]);
            j.put("partition", r[7]);
            j.put("qos", r[8]);
            accountingJobs.add(j);
        }
    }

    private static String time(String local) {
        return local.isEmpty() || local.equals("Unknown") || local.equals("None") ? null
                : LocalDateTime.parse(local).toInstant(ZoneOffset.UTC).toString();
    }

    private static ObjectNode page(List<? extends JsonNode> items) {
        ObjectNode page = node();
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
                out.put(kv[0], java.net.URLDecoder.decode(kv.length > 1 ? kv[1] : "",
                        java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private ObjectNode account(String name) {
        ObjectNode acc = accounts.get(name).deepCopy();
        associations.stream().filter(a -> a.get("account").asString().equals(name) && a.get("user").isNull())
                .findFirst().ifPresent(a -> acc.put("shares", a.get("shares").asInt()));
        return acc;
    }

    @Override
    public JsonNode get(String path) {
        String bare = path.replaceAll("\\?.*", "");
        Map<String, String> q = query(path);
        switch (bare) {
            case "/api/v1/accounts":
                return page(accounts.keySet().stream().map(this::account).toList());
            case "/api/v1/users":
                if (!admin()) {
                    throw new ApiException(403, "Access Denied");
                }
                return page(new ArrayList<>(users.values()));
            case "/api/v1/associations":
                return page(associations.stream()
                        .filter(a -> !q.containsKey("account") || a.get("account").asString().equals(q.get("account")))
                        .filter(a -> !q.containsKey("user") || q.get("user").equals(a.path("user").asString()))
                        .toList());
            case "/api/v1/qos":
                return page(new ArrayList<>(qos.values()));
            case "/api/v1/fairshare": {
                ArrayNode out = HttpControllerApi.JSON.createArrayNode();
                fairshare.forEach(out::add);
                return out;
            }
            case "/api/v1/priority": {
                ObjectNode out = node();
                out.set("weights", weights);
                ArrayNode jobs = out.putArray("jobs");
                priorities.stream().filter(j -> !q.containsKey("user") || j.get("user").asString().equals(q.get("user")))
                        .forEach(jobs::add);
                return out;
            }
            case "/api/v1/auth/whoami": {
                ObjectNode me = node();
                me.put("username", caller);
                return me;
            }
            case "/api/v1/jobs":
                return page("RUNNING".equals(q.get("state")) ? running : List.of());
            case "/api/v1/nodes":
                return page(nodes);
            case "/api/v1/accounting/jobs":
                return page(accountingJobs);
            case "/api/v1/reports/utilization": {
                ObjectNode report = node();
                report.put("start", q.get("start"));
                report.put("end", q.get("end"));
                ArrayNode buckets = report.putArray("buckets");
                if (clusterUsage != null) {
                    ObjectNode b = buckets.addObject();
                    b.put("start", q.get("start"));
                    b.put("end", q.get("end"));
                    b.set("cpuHours", clusterUsage);
                }
                return report;
            }
            default:
                throw new ApiException(404, "no such path " + path);
        }
    }

    private void mustBeAdmin() {
        if (!admin()) {
            throw new ApiException(403, "Access Denied");
        }
    }

    private static String last(String path) {
        return java.net.URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public JsonNode post(String path, Object body) {
        mustBeAdmin();
        JsonNode b = HttpControllerApi.JSON.valueToTree(body);
        switch (path) {
            case "/api/v1/accounts": {
                String name = b.get("name").asString();
                if (accounts.containsKey(name)) {
                    throw new ApiException(409, "Account '" + name + "' exists");
                }
                ObjectNode acc = node();
                acc.put("name", name);
                acc.put("parent", b.path("parent").asString("root"));
                putText(acc, "description", b.path("description").asString(null));
                putText(acc, "organization", b.path("organization").asString(null));
                accounts.put(name, acc);
                ObjectNode a = node();
                a.put("id", nextAssociation++);
                a.put("account", name);
                a.putNull("user");
                a.put("shares", b.path("shares").asInt(1));
                a.putNull("maxJobs");
                a.putNull("maxSubmitJobs");
                a.putNull("grpTres");
                a.putNull("defaultQos");
                a.putArray("qos").add("normal");
                associations.add(a);
                return account(name);
            }
            case "/api/v1/associations": {
                ObjectNode a = node();
                a.put("id", nextAssociation++);
                a.put("account", b.get("account").asString());
                a.put("user", b.get("user").asString());
                a.put("shares", b.path("shares").asInt(1));
                a.putNull("maxJobs");
                a.putNull("maxSubmitJobs");
                a.putNull("grpTres");
                a.putNull("defaultQos");
                a.putArray("qos").add("normal");
                associations.add(a);
                return a;
            }
            case "/api/v1/qos": {
                ObjectNode q = (ObjectNode) b.deepCopy();
                if (!q.has("priority")) {
                    q.put("priority", 0);
                }
                q.put("usageFactor", q.path("usageFactor").asDouble(1.0));
                qos.put(q.get("name").asString(), q);
                return q;
            }
            default:
                throw new ApiException(404, "no such path " + path);
        }
    }

    @Override
    public JsonNode patch(String path, Object body) {
        mustBeAdmin();
        ObjectNode b = (ObjectNode) HttpControllerApi.JSON.valueToTree(body);
        if (path.startsWith("/api/v1/accounts/")) {
            String name = last(path);
            if (b.has("shares")) {
                associations.stream().filter(a -> a.get("account").asString().equals(name) && a.get("user").isNull())
                        .forEach(a -> a.put("shares", b.get("shares").asInt()));
                b.remove("shares");
            }
            accounts.get(name).setAll(b);
            return account(name);
        }
        if (path.startsWith("/api/v1/users/")) {
            ObjectNode u = users.get(last(path));
            u.setAll(b);
            return u;
        }
        if (path.startsWith("/api/v1/associations/")) {
            long id = Long.parseLong(last(path));
            ObjectNode a = associations.stream().filter(x -> x.get("id").asLong() == id).findFirst().orElseThrow();
            a.setAll(b);
            return a;
        }
        if (path.startsWith("/api/v1/qos/")) {
            ObjectNode q = qos.get(last(path));
            q.setAll(b);
            return q;
        }
        throw new ApiException(404, "no such path " + path);
    }

    @Override
    public JsonNode delete(String path) {
        mustBeAdmin();
        if (path.startsWith("/api/v1/accounts/")) {
            String name = last(path);
            accounts.remove(name);
            associations.removeIf(a -> a.get("account").asString().equals(name));
        } else if (path.startsWith("/api/v1/associations/")) {
            long id = Long.parseLong(last(path));
            associations.removeIf(a -> a.get("id").asLong() == id);
        } else if (path.startsWith("/api/v1/qos/")) {
            qos.remove(last(path));
        } else if (path.startsWith("/api/v1/users/")) {
            String name = last(path);
            users.remove(name);
            associations.removeIf(a -> name.equals(a.path("user").asString()));
        }
        return null;
    }

    @Override
    public String host() {
        return "{CTLHOST}";
    }
}
