package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OnTheNode;
import io.gantry.support.OwnCluster;

/**
 * Issue 37: every command line of the corpus ({@code src/test/resources/slurm-corpus/corpus.tsv}, read from
 * the sources of Nextflow, batchspawner, submitit, dask-jobqueue, Open OnDemand, Cromwell, Snakemake 7 and 8,
 * Parsl and Toil) run through the launchers {@code cli install} writes, against a packaged controller with a
 * real agent, and its output parsed the way that tool parses it. The jobs the lines name are real: {@code {JOB}}
 * runs a script on the agent's node, {@code {DONE}} has completed there, {@code {NEW}} is a fresh held job and
 * {@code {NEWRUN}} a fresh running one, so a line that cancels, signals or requeues acts on a job of its own.
 */
@OnTheNode
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlurmToolsCorpusIntegrationTests {

    private static final String JOIN_TOKEN = "corpus-test-join-token-0123456789";
    private static final String DATABASE = "gantry_corpus_it_" + ProcessHandle.current().pid();
    private static final Path CORPUS = Path.of("src/test/resources/slurm-corpus/corpus.tsv");
    private static final String UUID = "corpus-4d1c0a77";
    private static final String US = "\u001f";
    private static final String RS = "\u001e";
    private static final Path REFERENCE = Path.of("src/test/resources/slurm-corpus/reference/lines");
    /** Where Gantry's answer differs in shape from the reference Slurm's, each with why (README's table). */
    private static final List<String> DOCUMENTED = List.of();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String token;
    private Path work;
    private final Map<String, String> values = new LinkedHashMap<>();

    /** One line of the corpus. */
    record Line(int number, String tool, String version, String source, String command, String parses, String check) {
        @Override
        public String toString() {
            return String.format("%02d %s (%s): %s", number, tool, source, command);
        }
    }

    private record Run(int exit, String stdout, String stderr) {
    }

    static List<Line> corpus() throws IOException {
        List<String> rows = Files.readAllLines(CORPUS, StandardCharsets.UTF_8);
        List<Line> lines = new ArrayList<>();
        for (int i = 1; i < rows.size(); i++) {
            if (rows.get(i).isBlank()) {
                continue;
            }
            String[] c = rows.get(i).split("\t", -1);
            assertThat(c).as("corpus row %d has its six columns", i).hasSize(6);
            lines.add(new Line(i, c[0], c[1], c[2], c[3], c[4], c[5]));
        }
        return lines;
    }

    @BeforeAll
    void start() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: corpus-test
                    nodes:
                      - names: node1
                        cpus: 8
                        memory-mb: 8000
                        simulated: false
                      - names: sim1
                        cpus: 8
                        memory-mb: 8000
                        gpus: 2
                        gpu-type: h100
                        simulated: true
                    partitions:
                      - name: cpu
                        nodes: node1
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 100
                      - name: gpu
                        nodes: sim1
                        default-time: "10:00"
                        default-mem-per-cpu: 100
                    switches:
                      - name: leaf1
                        nodes: node1,sim1
                    blocks:
                      - name: block1
                        nodes: node1,sim1
                  agents:
                    join-token: %s
                    default-partitions: [cpu]
                    kill-wait: 2s
                """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        controller = cluster.startController("controller");
        api = controller.api();
        token = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", 8, 8000);
        api.awaitNodeState("node1", token, Duration.ofSeconds(60), "IDLE");
        install();
        work = Files.createDirectories(dir.resolve("work"));
        String job = submit("sbatch --parsable -J " + UUID + " -p cpu -t 30:00 --wrap 'sleep 900'");
        String done = submit("sbatch --parsable -p cpu -t 1:00 --wrap true");
        api.awaitJobState(Long.parseLong(job), token, "RUNNING", Duration.ofSeconds(60));
        api.awaitJobState(Long.parseLong(done), token, "COMPLETED", Duration.ofSeconds(60));
        LocalDateTime now = LocalDateTime.now();
        values.put("JOB", job);
        values.put("DONE", done);
        values.put("USER", "admin");
        values.put("DIR", work.toString());
        values.put("CLUSTER", "gantry");
        values.put("UUID", UUID);
        values.put("US", US);
        values.put("RS", RS);
        values.put("NOW", DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss").format(now.plusMinutes(1)));
        values.put("STARTTIME", DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:00").format(now.minusDays(2)));
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void install() throws Exception {
        Process install = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ControllerProcess.JAR.toAbsolutePath().toString(), "cli", "install", "--prefix", dir.resolve("bin").toString())
                .redirectErrorStream(true).start();
        String said = new String(install.getInputStream().readAllBytes());
        assertThat(install.waitFor()).as(said).isZero();
    }

    private Run sh(String script) throws IOException, InterruptedException {
        Path file = dir.resolve("line-" + System.nanoTime() + ".sh");
        Files.writeString(file, script, StandardCharsets.UTF_8);
        ProcessBuilder builder = new ProcessBuilder("sh", file.toString()).directory(work.toFile());
        builder.environment().put("PATH", dir.resolve("bin") + ":" + System.getenv("PATH"));
        builder.environment().put("HOME", dir.resolve("home").toString());
        builder.environment().put("USER", "admin");
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", token);
        builder.environment().remove("GANTRY_CLUSTER");
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("the line ends: " + script).isTrue();
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private String submit(String line) throws IOException, InterruptedException {
        Run run = sh(line);
        assertThat(run.exit()).as(run.stderr()).isZero();
        return run.stdout().strip().split(";")[0];
    }

    /** The line with its placeholders filled; each {NEW} and {NEWRUN} is a job of its own. */
    private String fill(String command) throws Exception {
        String line = command;
        while (line.contains("{NEW}")) {
            line = line.replaceFirst("\\{NEW\\}", submit("sbatch --parsable -H -p gpu -J victim --wrap 'sleep 100'"));
        }
        while (line.contains("{NEWRUN}")) {
            String id = submit("sbatch --parsable -p cpu -J victim-run -t 10:00 --wrap 'sleep 300'");
            api.awaitJobState(Long.parseLong(id), token, "RUNNING", Duration.ofSeconds(60));
            line = line.replaceFirst("\\{NEWRUN\\}", id);
        }
        for (Map.Entry<String, String> e : values.entrySet()) {
            line = line.replace("{" + e.getKey() + "}", e.getValue());
        }
        return line;
    }

    @Test
    void everyCorpusLineIsAnsweredTheWayItsToolParsesIt() throws Exception {
        List<Line> corpus = corpus();
        assertThat(corpus).extracting(Line::tool).contains("nextflow", "batchspawner", "submitit", "dask-jobqueue",
                "ood_core", "cromwell", "snakemake-7", "snakemake-8", "parsl", "toil");
        List<String> failures = new ArrayList<>();
        for (Line line : corpus) {
            String command = fill(line.command());
            Run run = sh(command);
            String problem = problem(line, run);
            if (problem != null) {
                failures.add(line + "\n    " + problem + "\n    exit " + run.exit() + "\n    stdout: "
                        + visible(run.stdout()) + "\n    stderr: " + visible(run.stderr()));
            }
        }
        String job = values.get("JOB");
        String state = api.get("/api/v1/jobs/" + job, token).json().path("state").asString();
        String agent = Files.readString(cluster.agentLog("node1")).lines()
                .filter(l -> l.contains("job " + job + ":") || l.contains("job " + job + " ")).reduce("", (a, b) -> a + b + "\n");
        Path output = work.resolve("slurm-" + job + ".out");
        String printed = Files.exists(output) ? Files.readString(output) : "(no output file)";
        assertThat(failures).as("corpus lines whose output the tool could not parse (job %s is %s; its agent log:\n%s"
                + "its output: %s)", job, state, agent, printed).isEmpty();
    }

    /**
     * The other lines issue 37 names that no tool of the corpus runs as such: scancel by name, user, state
     * and partition; sbatch --wait with --export=NONE and ALL,VAR=value; sacct from the epoch.
     */
    @Test
    void scancelByNameUserAndStateAndSbatchWaitWithExportDoWhatSlurmDoes() throws Exception {
        Run run = sh("""
                set -u
                A=$(sbatch --parsable -H -p gpu -J sweep-a --wrap 'sleep 100')
                B=$(sbatch --parsable -H -p gpu -J sweep-a --wrap 'sleep 100')
                C=$(sbatch --parsable -H -p gpu -J keep --wrap 'sleep 100')
                scancel --name=sweep-a; echo "name $?"
                echo "after-name $(sacct -X -n -P -j $A,$B,$C -o JobName,State | sort | tr '\\n' ' ')"
                scancel -u admin -t PENDING -p gpu; echo "user-state $?"
                echo "after-user $(sacct -X -n -P -j $C -o State)"
                W=$(FOO=bar sbatch --parsable --wait -p cpu --export=NONE --wrap 'echo "x=${GANTRY_X:-} foo=${FOO:-}" > none.txt; exit 3')
                echo "wait $?"
                cat none.txt
                FOO=bar sbatch --wait -p cpu --export=ALL,GANTRY_X=2 --wrap 'echo "x=${GANTRY_X:-} foo=${FOO:-}" > all.txt' >/dev/null
                echo "wait2 $?"
                cat all.txt
                sacct -S 1970-01-01 --parsable2 --noconvert -X -o JobIDRaw,State,ExitCode | grep "^$W|" | sed "s/^$W/W/"
                """);
        assertThat(run.stdout().lines().toList()).as(run.stderr()).containsExactly("name 0",
                "after-name keep|PENDING sweep-a|CANCELLED sweep-a|CANCELLED ", "user-state 0", "after-user CANCELLED",
                "wait 3", "x= foo=", "wait2 0", "x=2 foo=bar", "W|FAILED|3:0");
    }

    /** What the reference Slurm 22.05 printed for corpus row {@code row} (reference/lines/NN-tool.txt). */
    private static String reference(Line line) throws IOException {
        Path file = REFERENCE.resolve(String.format("%02d-%s.txt", line.number(), line.tool()));
        String text = Files.readString(file, StandardCharsets.UTF_8);
        return text.substring(text.indexOf("--- stdout\n") + 11, text.indexOf("--- stderr\n"));
    }

    private static List<String> keys(String text) {
        List<String> keys = new ArrayList<>();
        Matcher m = Pattern.compile("(?:^|\\s)([A-Za-z_/:()]+)=").matcher(text);
        while (m.find()) {
            keys.add(m.group(1));
        }
        return keys;
    }

    /**
     * Lines the reference Slurm answered (recorded in reference/lines) compared with Gantry's answer field by
     * field where the two describe the same thing: the column headers of the -O and -o layouts, the keys of
     * scontrol's key=value records in their order, and the keys and units of {@code scontrol show config}
     * and the labels of {@code sdiag}. Values differ (other jobs, nodes, times); the differences left are
     * the documented ones below.
     */
    @Test
    void answersHaveTheReferenceSlurmsHeadersKeysAndUnits() throws Exception {
        Map<Integer, Line> rows = new LinkedHashMap<>();
        corpus().forEach(l -> rows.put(l.number(), l));
        List<String> differences = new ArrayList<>();
        for (int row : List.of(19, 20, 56)) {
            String gantry = sh(fill(rows.get(row).command())).stdout().lines().findFirst().orElse("");
            String slurm = reference(rows.get(row)).lines().findFirst().orElse("");
            if (!gantry.equals(slurm)) {
                differences.add(row + " header: " + visible(gantry) + " | Slurm: " + visible(slurm));
            }
        }
        for (int row : List.of(27, 59)) {
            String gantry = sh(fill(rows.get(row).command())).stdout();
            String slurm = reference(rows.get(row));
            List<String> ours = keys(gantry.split("\n\n|\n(?=PartitionName=)")[0]);
            List<String> theirs = keys(slurm.split("\n\n|\n(?=PartitionName=)")[0]);
            if (!theirs.contains("TRESBillingWeights") && ours.indexOf("TRESBillingWeights") == ours.size() - 1) {
                // README: every Gantry partition bills with weights (its own or gantry.fairshare's), so its record
                // always ends with them; Slurm prints the key only for a partition that sets TRESBillingWeights.
                ours = ours.subList(0, ours.size() - 1);
            }
            if (!ours.equals(theirs)) {
                differences.add(row + " keys: " + ours + " | Slurm: " + theirs);
            }
        }
        String config = sh("scontrol show config").stdout();
        String slurmConfig = Files.readString(REFERENCE.resolve("../scontrol-show-config.txt"), StandardCharsets.UTF_8);
        Map<String, String> units = new LinkedHashMap<>();
        for (String l : slurmConfig.split("\n")) {
            Matcher m = Pattern.compile("^(\\S+)\\s+= (\\S+)(.*)$").matcher(l);
            if (m.matches()) {
                units.put(m.group(1), m.group(3));
            }
        }
        assertThat(config).startsWith("Configuration data as of ").contains("\nMinJobAge               = 0 sec\n",
                "\nMaxArraySize            = 1001\n", "\nClusterName             = gantry\n");
        for (String l : config.split("\n")) {
            Matcher m = Pattern.compile("^(\\S+)\\s+= (\\S+)(.*)$").matcher(l);
            if (!m.matches()) {
                continue;
            }
            if (!units.containsKey(m.group(1))) {
                differences.add("config key " + m.group(1) + " is not Slurm's");
            } else if (!units.get(m.group(1)).equals(m.group(3))) {
                differences.add("config " + m.group(1) + " unit '" + m.group(3) + "' | Slurm: '" + units.get(m.group(1)) + "'");
            } else if (!l.startsWith(String.format("%-23s = ", m.group(1)))) {
                differences.add("config " + m.group(1) + " layout: " + l);
            }
        }
        String sdiag = sh("sdiag").stdout();
        String slurmSdiag = Files.readString(REFERENCE.resolve("../sdiag.txt"), StandardCharsets.UTF_8);
        assertThat(sdiag).contains("Jobs submitted: ", "Total cycles: ", "Total backfilled jobs (since last slurm start): ");
        for (String l : sdiag.split("\n")) {
            int colon = l.indexOf(':');
            boolean timestamp = l.startsWith("sdiag output at") || l.startsWith("Data since");
            if (colon > 0 && !timestamp && !l.startsWith("Controller ") && !slurmSdiag.contains(l.substring(0, colon + 1))) {
                differences.add("sdiag label " + l.substring(0, colon + 1) + " is not Slurm's");
            }
        }
        assertThat(differences).as("differences from Slurm 22.05's answers beyond the documented ones")
                .containsExactlyInAnyOrderElementsOf(DOCUMENTED);
    }

    private static String visible(String text) {
        return text.replace(US, "<US>").replace(RS, "<RS>").replace("\n", "\\n");
    }

    /** Why the tool would fail on this output, or null when it parses as the tool needs. */
    private String problem(Line line, Run run) throws Exception {
        String check = line.check();
        if (check.startsWith("unsupported:")) {
            // A line Gantry does not answer yet (README's table says why): it must still fail its check, so
            // the day it works the table and this mark are updated together.
            String problem = problem(new Line(line.number(), line.tool(), line.version(), line.source(), line.command(),
                    line.parses(), check.substring("unsupported:".length())), run);
            return problem != null ? null : "marked unsupported but parses now: update README and the corpus";
        }
        if (check.startsWith("exit:")) {
            int expected = Integer.parseInt(check.substring(5));
            return run.exit() == expected ? null : "exit " + run.exit() + ", the tool needs " + expected;
        }
        if (run.exit() != 0) {
            return "failed (the tool treats a non-zero exit as an error)";
        }
        if (check.startsWith("re:")) {
            Pattern pattern = Pattern.compile(fill(check.substring(3)));
            return pattern.matcher(run.stdout()).find() ? null : "no match for " + pattern;
        }
        if (check.startsWith("new:")) {
            Matcher m = Pattern.compile(fill(check.substring(4))).matcher(run.stdout());
            if (!m.find()) {
                return "no job id found with " + m.pattern();
            }
            ApiClient.Response job = api.get("/api/v1/jobs/" + m.group(1), token);
            return job.status() == 200 ? null : "the id parsed, " + m.group(1) + ", is no job: " + job.status();
        }
        return switch (check.substring("parser:".length())) {
            case "submitit-sacct" -> submititSacct(run.stdout());
            case "ood-squeue" -> oodSqueue(run.stdout(), 48);
            case "ood-squeue-short" -> oodSqueue(run.stdout(), 2);
            case "ood-sacct" -> oodSacct(run.stdout());
            case "ood-sinfo-nodes" -> oodSinfoNodes(run.stdout());
            case "minjobage" -> minJobAge(run.stdout());
            default -> "unknown check " + check;
        };
    }

    /** submitit: the header split on '|' names the columns; JobID without a '.' keys State. */
    private String submititSacct(String out) {
        List<String> lines = out.lines().toList();
        if (lines.size() < 2) {
            return "fewer than two lines: submitit reads that as no job known yet";
        }
        List<String> names = List.of(lines.get(0).split("\\|", -1));
        Map<String, String> states = new LinkedHashMap<>();
        for (String row : lines.subList(1, lines.size())) {
            String[] cells = row.split("\\|", -1);
            Map<String, String> stats = new LinkedHashMap<>();
            for (int i = 0; i < Math.min(names.size(), cells.length); i++) {
                stats.put(names.get(i), cells[i].strip());
            }
            String id = stats.getOrDefault("JobID", "");
            if (!id.isEmpty() && !id.contains(".")) {
                states.put(id, stats.get("State"));
            }
        }
        Map<String, String> expected = Map.of(values.get("JOB"), "RUNNING", values.get("DONE"), "COMPLETED");
        return states.equals(expected) ? null : "states " + states + ", expected " + expected;
    }

    /**
     * Open OnDemand: everything up to the first "\x1F\n" (the header) is skipped, then each line is chomped and
     * split on \x1F (Ruby's split drops trailing empty strings) and zipped with its field keys.
     */
    private String oodSqueue(String out, int fields) {
        int header = out.indexOf(US + "\n");
        if (header < 0) {
            return "no header ending in \\x1F\\n";
        }
        List<List<String>> rows = new ArrayList<>();
        for (String row : out.substring(header + 2).split("\n")) {
            List<String> values = new ArrayList<>(List.of(row.split(US, -1)));
            while (!values.isEmpty() && values.get(values.size() - 1).isEmpty()) {
                values.remove(values.size() - 1);
            }
            if (!values.isEmpty()) {
                rows.add(values);
            }
        }
        int idAt = fields == 48 ? 1 : 0;
        int stateAt = fields == 48 ? 34 : 1;
        List<String> mine = rows.stream().filter(r -> r.size() > idAt && r.get(idAt).equals(values.get("JOB")))
                .findFirst().orElse(null);
        if (mine == null) {
            return "no row with job_id " + values.get("JOB") + " in " + rows;
        }
        if (mine.size() > fields) {
            return mine.size() + " values for " + fields + " keys";
        }
        if (mine.size() <= stateAt || !mine.get(stateAt).equals("R")) {
            return "state_compact is not R: " + mine;
        }
        if (fields == 48 && !(mine.get(17).equals(UUID) && mine.get(30).equals("cpu") && mine.get(35).equals("RUNNING")
                && mine.get(36).equals("admin") && mine.get(26).equals("node1") && mine.get(2).equals("node1"))) {
            return "job_name, partition, state, user, node_list or exec_host wrong: " + mine;
        }
        return null;
    }

    /** Open OnDemand's sacct: each line split on \x1F, empty values nil, zipped with its 17 keys. */
    private String oodSacct(String out) {
        for (String row : out.strip().split("\n")) {
            String[] v = row.strip().split(US, -1);
            if (v.length >= 3 && v[2].equals(values.get("DONE"))) {
                if (v.length != 17) {
                    return v.length + " values for 17 keys: " + List.of(v);
                }
                boolean ok = v[0].equals("admin") && v[9].equals("COMPLETED") && v[12].equals("cpu")
                        && v[4].matches("\\d\\d:\\d\\d:\\d\\d") && v[6].matches("\\d+");
                return ok ? null : "user, state, partition, elapsed or alloc_cpus wrong: " + List.of(v);
            }
        }
        return "no line for job " + values.get("DONE");
    }

    /** Open OnDemand's nodes: records split on \x1E, each stripped and split on \x1F into procs, name, features. */
    private String oodSinfoNodes(String out) {
        List<String> names = new ArrayList<>();
        for (String record : out.split(RS)) {
            String[] v = record.strip().split(US);
            if (record.isBlank()) {
                continue;
            }
            if (v.length < 2 || !v[0].matches("\\d+")) {
                return "record not procs\\x1Fname\\x1Ffeatures: " + visible(record);
            }
            names.add(v[1].split(",")[0]);
        }
        return names.equals(List.of("node1", "sim1")) ? null : "nodes " + names;
    }

    /** Snakemake's plugin: the line starting with MinJobAge, split on '=', ^(\d+)\s*([a-zA-Z]*) as seconds. */
    private String minJobAge(String out) {
        for (String line : out.split("\n")) {
            if (line.strip().startsWith("MinJobAge")) {
                String[] parts = line.split("=");
                return parts.length > 1 && parts[1].strip().matches("^\\d+\\s*[a-zA-Z]*$") ? null
                        : "MinJobAge unreadable: " + line;
            }
        }
        return "no MinJobAge line";
    }
}
