package io.gantry.cli.srun;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.StepProtocol.StepCreated;
import io.gantry.noded.protocol.StepProtocol.StepIo;
import io.gantry.noded.protocol.StepProtocol.StepOutputChunk;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.noded.protocol.StepProtocol.StepTaskExit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** srun's command line, its output, and its exchanges with a fake controller. */
class SrunTests {

    private static final String TOKEN = "job-token-7";

    @TempDir
    Path dir;

    private FakeController controller;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<Long> sleeps = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startController() throws IOException {
        controller = new FakeController();
    }

    @AfterEach
    void stopController() {
        controller.server.stop(0);
    }

    /** Answers srun's calls from scripted answers, and records what it was asked. */
    static final class FakeController {
        record Answer(int status, Object body, String retryAfter) {
        }

        final HttpServer server;
        final Deque<Answer> creates = new ConcurrentLinkedDeque<>();
        final Deque<StepIo> io = new ConcurrentLinkedDeque<>();
        final List<StepRequest> requests = new CopyOnWriteArrayList<>();
        final List<String> polls = new CopyOnWriteArrayList<>();
        final List<String> signals = new CopyOnWriteArrayList<>();
        final List<String> authorizations = new CopyOnWriteArrayList<>();
        volatile Runnable onPoll = () -> { };

        FakeController() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/api/v1/jobs/", this::handle);
            server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
        }

        private void handle(HttpExchange exchange) throws IOException {
            authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
            String path = exchange.getRequestURI().getPath();
            byte[] body = exchange.getRequestBody().readAllBytes();
            if (path.equals("/api/v1/jobs/42/steps") && exchange.getRequestMethod().equals("POST")) {
                requests.add(AgentJson.MAPPER.readValue(body, StepRequest.class));
                Answer answer = creates.size() > 1 ? creates.poll() : creates.peek();
                if (answer.retryAfter() != null) {
                    exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
                }
                answer(exchange, answer.status(), answer.body());
            } else if (path.equals("/api/v1/jobs/42/steps/3/io")) {
                polls.add(exchange.getRequestURI().getQuery());
                onPoll.run();
                answer(exchange, 200, io.size() > 1 ? io.poll() : io.peek());
            } else if (path.equals("/api/v1/jobs/42/steps/3/signal")) {
                signals.add(exchange.getRequestURI().getQuery());
                answer(exchange, 202, Map.of());
            } else {
                answer(exchange, 404, Map.of("detail", "no such path " + path));
            }
        }

        private static void answer(HttpExchange exchange, int status, Object body) throws IOException {
            byte[] bytes = AgentJson.MAPPER.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        }
    }

    private static final StepCreated TWO_NODES = new StepCreated(3, "node[1-2]", List.of("node1", "node2"),
            List.of(List.of(0, 1), List.of(2, 3)));

    private Map<String, String> jobEnvironment() {
        return Map.of("SLURM_JOB_ID", "42", "GANTRY_JOB_ID", "42", "GANTRY_JOB_TOKEN", TOKEN, "GANTRY_URL",
                "http://127.0.0.1:1," + controller.url(), "USER", "alice");
    }

    private int srun(Map<String, String> env, String... args) {
        return new Srun(env, out, err, dir, sleeps::add).run(List.of(args));
    }

    private int srun(String... args) {
        return srun(jobEnvironment(), args);
    }

    private static StepOutputChunk chunk(long seq, int procId, String data) {
        return new StepOutputChunk(seq, procId, "stdout", data);
    }

    private static StepTaskExit exit(int procId, Integer code, Integer signal) {
        return new StepTaskExit(procId, code, signal);
    }

    // --- the command line

    @Test
    void optionsAreReadAsSlurmReadsThem() {
        SrunOptions o = SrunOptions.parse(List.of("-ln4", "-N", "2", "--ntasks-per-node=2", "-c", "3",
                "--gpus-per-task=a100:1", "--gpus-per-node", "4", "-K", "--export=ALL,A=1", "-J", "train",
                "-w", "node[1-2]", "--mpi=none", "--overlap", "--exact", "--cpu-bind=none", "-D", "/scratch",
                "-o", "out-%t.txt", "--error=err.txt", "python", "train.py", "-n", "3"));
        assertThat(o.label()).isTrue();
        assertThat(o.ntasks()).isEqualTo(4);
        assertThat(o.nodes()).isEqualTo(2);
        assertThat(o.ntasksPerNode()).isEqualTo(2);
        assertThat(o.cpusPerTask()).isEqualTo(3);
        assertThat(o.gpusPerTask()).isEqualTo(1);
        assertThat(o.gpusPerNode()).isEqualTo(4);
        assertThat(o.killOnBadExit()).isTrue();
        assertThat(o.export()).isEqualTo("ALL,A=1");
        assertThat(o.jobName()).isEqualTo("train");
        assertThat(o.nodelist()).isEqualTo("node[1-2]");
        assertThat(o.mpi()).isEqualTo("none");
        assertThat(o.overlap()).isTrue();
        assertThat(o.exact()).isTrue();
        assertThat(o.chdir()).isEqualTo("/scratch");
        assertThat(o.output()).isEqualTo("out-%t.txt");
        assertThat(o.error()).isEqualTo("err.txt");
        assertThat(o.command()).containsExactly("python", "train.py", "-n", "3");
    }

    @Test
    void pyxisContainerOptionsGiveTheStepItsContainer() {
        SrunOptions o = SrunOptions.parse(List.of("-N2", "--container-image=127.0.0.1:5000/test:1",
                "--container-mounts=/data:/data:ro,/scratch", "--container-workdir", "/data", "--container-name=c1",
                "--container-env=A,B", "--no-container-mount-home", "--container-remap-root", "--container-readonly",
                "--no-container-entrypoint", "--container-save=/tmp/x.sqsh", "hostname"));
        io.gantry.noded.protocol.ContainerSpec c = o.container();
        assertThat(c.image()).isEqualTo("127.0.0.1:5000/test:1");
        assertThat(c.mounts()).containsExactly("/data:/data:ro", "/scratch:/scratch");
        assertThat(c.workdir()).isEqualTo("/data");
        assertThat(c.name()).isEqualTo("c1");
        assertThat(c.env()).containsExactly("A", "B");
        assertThat(c.mountHome()).isFalse();
        assertThat(c.remapRoot()).isTrue();
        assertThat(c.writable()).isFalse();
        assertThat(c.entrypoint()).isFalse();
        assertThat(o.command()).containsExactly("hostname");
        // not part of the job srun asks for outside one: the step's own
        assertThat(o.allocation()).containsExactly("nodes=2");

        assertThat(SrunOptions.parse(List.of("--container=/srv/bundle", "true")).container().bundle())
                .isEqualTo("/srv/bundle");
        assertThat(SrunOptions.parse(List.of("hostname")).container()).isNull();
        assertThatThrownBy(() -> SrunOptions.parse(List.of("--container-mounts=/a:/b:rshared", "true")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--container-mounts: ");
    }

    @Test
    void theSrunLinesOpenMpiStartsItsDaemonsWithAreRead() {
        // OpenMPI 4.1 (Debian's openmpi-bin) on one node of a two-node allocation; --nodes and --nodelist
        // come only when it needs fewer daemons than the allocation has nodes
        SrunOptions o = SrunOptions.parse(List.of("--ntasks-per-node=1", "--kill-on-bad-exit", "--mpi=none",
                "--nodes=1", "--nodelist=node2", "--ntasks=1", "orted", "-mca", "ess", "\"slurm\""));
        assertThat(o.ntasksPerNode()).isEqualTo(1);
        assertThat(o.killOnBadExit()).isTrue();
        assertThat(o.mpi()).isEqualTo("none");
        assertThat(o.nodes()).isEqualTo(1);
        assertThat(o.nodelist()).isEqualTo("node2");
        assertThat(o.ntasks()).isEqualTo(1);
        assertThat(o.command()).containsExactly("orted", "-mca", "ess", "\"slurm\"");
        // OpenMPI up to 4.0 spells it --cpu_bind, which Slurm 22.05 still takes
        SrunOptions older = SrunOptions.parse(List.of("--ntasks-per-node=1", "--kill-on-bad-exit", "--cpu_bind=none",
                "--ntasks=2", "orted"));
        assertThat(older.ntasks()).isEqualTo(2);
        assertThat(older.command()).containsExactly("orted");
    }

    @Test
    void theSrunLineMpichsMpiexecStartsItsProxiesWithIsRead() {
        // hydra's Slurm bootstrap (MPICH 4.0, slurm_launch.c) inside an allocation it read from SLURM_NODELIST
        SrunOptions o = SrunOptions.parse(List.of("-N", "2", "-n", "2", "--input", "none",
                "/usr/bin/hydra_pmi_proxy", "--control-port", "vm:37001", "--rmk", "slurm", "--launcher", "slurm",
                "--demux", "poll", "--pgid", "0", "--retries", "10", "--usize", "-2", "--proxy-id", "-1"));
        assertThat(o.nodes()).isEqualTo(2);
        assertThat(o.ntasks()).isEqualTo(2);
        assertThat(o.command()).startsWith("/usr/bin/hydra_pmi_proxy", "--control-port").endsWith("--proxy-id", "-1");
        // and with a node list, when it is told not to use Slurm's resource manager
        assertThat(SrunOptions.parse(List.of("--nodelist", "node[1-2]", "-N", "2", "-n", "2", "--input", "none",
                "proxy")).nodelist()).isEqualTo("node[1-2]");
    }

    @Test
    void mpiListPrintsTheTypesAsSlurmDoes() {
        assertThat(srun("--mpi=list")).isZero();
        assertThat(out.toString()).isEqualTo("MPI plugin types are...\n\tnone\n\tpmi2\n");
        assertThat(controller.requests).isEmpty();
    }

    @Test
    void longFormsTakeTheirValueFromTheNextWordAndPrefixesThatAreUnambiguous() {
        SrunOptions o = SrunOptions.parse(List.of("--ntasks", "8", "--nodes=1-3", "--label", "--kill-on-bad-exit=0",
                "--ntasks-per=4", "--", "-x"));
        assertThat(o.ntasks()).isEqualTo(8);
        assertThat(o.nodes()).as("the minimum of min-max").isEqualTo(1);
        assertThat(o.ntasksPerNode()).isEqualTo(4);
        assertThat(o.killOnBadExit()).isFalse();
        assertThat(o.command()).containsExactly("-x");
        assertThat(SrunOptions.parse(List.of("-K1", "hostname")).killOnBadExit()).isTrue();
        assertThat(SrunOptions.parse(List.of("hostname", "-n", "4")).ntasks()).as("options end at the command")
                .isNull();
    }

    @Test
    void badCommandLinesAreRefusedInSlurmsWords() {
        assertThatThrownBy(() -> SrunOptions.parse(List.of("--bogus", "x")))
                .hasMessage("unrecognized option '--bogus'");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("-Z"))).hasMessage("invalid option -- 'Z'");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("-n"))).hasMessage("option requires an argument -- 'n'");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("--ntasks"))).hasMessage(
                "option '--ntasks' requires an argument");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("-n", "0", "x")))
                .hasMessage("Invalid numeric value \"0\" for --ntasks.");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("--nt=2", "x"))).hasMessage("option '--nt=2' is ambiguous");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("--mpi=pmix", "x"))).hasMessage(
                "--mpi=pmix is not supported: Gantry serves PMI to MPICH programs with --mpi=pmi2; start OpenMPI "
                        + "programs with mpirun inside the allocation");
        assertThatThrownBy(() -> SrunOptions.parse(List.of("--mpi=bogus", "x"))).hasMessage(
                "Invalid MPI type 'bogus', --mpi=list for acceptable types");
        assertThat(SrunOptions.parse(List.of("--mpi=pmi2", "x")).mpi()).isEqualTo("pmi2");
    }

    @Test
    void aBadCommandLineExitsOneWithTheHint() {
        assertThat(srun("--bogus", "hostname")).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("srun: unrecognized option '--bogus'\nTry \"srun --help\" for more "
                + "information\n");
        err.reset();
        assertThat(srun("--mpi=pmix", "hostname")).isEqualTo(1);
        assertThat(err.toString()).startsWith("srun: error: --mpi=pmix is not supported");
        err.reset();
        assertThat(srun("-n", "2")).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("srun: fatal: No command given to execute.\n");
        assertThat(controller.requests).isEmpty();
    }

    // --- output

    @Test
    void labelsPrefixEveryLinePaddedToTheHighestTask() throws IOException {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        SrunOutput output = new SrunOutput(true, false, 12, (p, s) -> s.equals("stdout") ? o : e);
        output.write(3, "stdout", "hel");
        output.write(11, "stdout", "a\nb\n");
        output.write(3, "stdout", "lo\nwor");
        output.write(3, "stderr", "bad\n");
        output.finish();
        assertThat(o.toString()).isEqualTo("11: a\n11: b\n 3: hello\n 3: wor");
        assertThat(e.toString()).isEqualTo(" 3: bad\n");
    }

    @Test
    void unlabelledOutputIsPassedOnLineByLineAndUnbufferedAsItComes() throws IOException {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        SrunOutput lines = new SrunOutput(false, false, 2, (p, s) -> o);
        lines.write(0, "stdout", "par");
        assertThat(o.toString()).isEmpty();
        lines.write(0, "stdout", "tial\n");
        assertThat(o.toString()).isEqualTo("partial\n");

        ByteArrayOutputStream u = new ByteArrayOutputStream();
        SrunOutput raw = new SrunOutput(true, true, 2, (p, s) -> u);
        raw.write(1, "stdout", "pro");
        raw.write(1, "stdout", "gress\nnext");
        assertThat(u.toString()).isEqualTo("1: progress\n1: next");
    }

    // --- exit codes and the controller

    @Test
    void withoutAJobCredentialOrALoginSrunSaysHowToLogIn() {
        // outside a job srun acts as the logged-in user (SrunOutsideJobIntegrationTests); here nobody is
        assertThat(srun(Map.of("PATH", "/bin", "HOME", dir.toString()), "hostname")).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("srun: error: not inside a job allocation, and not logged in: run "
                + "'gantry login' (or set GANTRY_URL and GANTRY_TOKEN) to run srun from here\n");
    }

    @Test
    void srunRelaysLabelledOutputAndExitsWithTheHighestExitCode() {
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(chunk(0, 0, "zero\n"), chunk(1, 2, "two\n")), 2, false, List.of()));
        controller.io.add(new StepIo(List.of(new StepOutputChunk(2, 1, "stderr", "warn\n"), chunk(3, 3, "three\n")),
                4, true, List.of(exit(0, 0, null), exit(1, 3, null), exit(2, 0, null), exit(3, 2, null))));

        int code = srun("-l", "--ntasks-per-node=2", "-J", "hello", "bash", "-c", "echo");

        assertThat(code).isEqualTo(3);
        assertThat(out.toString()).isEqualTo("0: zero\n2: two\n3: three\n");
        assertThat(err.toString()).contains("1: warn\n", "srun: error: node1: task 1: Exited with exit code 3",
                "srun: error: node2: task 3: Exited with exit code 2");
        assertThat(controller.polls).containsExactly("after=0", "after=2");
        assertThat(controller.signals).isEmpty();
        assertThat(controller.authorizations).allMatch(("Bearer " + TOKEN)::equals);
        StepRequest request = controller.requests.get(0);
        assertThat(request.argv()).containsExactly("bash", "-c", "echo");
        assertThat(request.ntasksPerNode()).isEqualTo(2);
        assertThat(request.name()).isEqualTo("hello");
        assertThat(request.workdir()).isEqualTo(dir.toString());
        assertThat(request.environment()).containsEntry("SLURM_JOB_ID", "42");
    }

    @Test
    void aTaskEndedBySignalCountsAs128PlusTheSignal() {
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(), 0, true, List.of(exit(0, 1, null), exit(2, null, 9))));
        assertThat(srun("hostname")).isEqualTo(137);
        assertThat(err.toString()).contains("srun: error: node2: task 2: Killed");
        assertThat(Srun.exitCode(exit(0, null, 15))).isEqualTo(143);
        assertThat(Srun.exitCode(exit(0, 0, null))).isZero();
    }

    @Test
    void killOnBadExitSignalsTheStepAsSoonAsATaskFails() {
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(), 0, false, List.of(exit(1, 4, null))));
        controller.io.add(new StepIo(List.of(), 0, true, List.of(exit(1, 4, null), exit(0, null, 9))));
        assertThat(srun("-K", "hostname")).isEqualTo(137);
        assertThat(controller.signals).containsExactly("signal=KILL");
        assertThat(err.toString()).containsOnlyOnce("srun: Terminating StepId=42.3");
    }

    @Test
    void withoutKillOnBadExitTheOtherTasksRunOn() {
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(), 0, false, List.of(exit(1, 4, null))));
        controller.io.add(new StepIo(List.of(), 0, true, List.of(exit(1, 4, null), exit(0, 0, null))));
        assertThat(srun("hostname")).isEqualTo(4);
        assertThat(controller.signals).isEmpty();
    }

    @Test
    void aStepThatMustWaitIsRetriedWithOneMessage() {
        controller.creates.add(new FakeController.Answer(409, Map.of("detail", "Requested nodes are busy"), "2"));
        controller.creates.add(new FakeController.Answer(409, Map.of("detail", "Requested nodes are busy"), "2"));
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(), 0, true, List.of(exit(0, 0, null))));
        assertThat(srun("hostname")).isZero();
        assertThat(err.toString()).isEqualTo("srun: Job 42 step creation temporarily disabled, retrying "
                + "(Requested nodes are busy)\nsrun: Step created for StepId=42.3\n");
        assertThat(sleeps).containsExactly(2000L, 2000L);
    }

    @Test
    void aStepTheAllocationCannotHoldIsRefusedWithTheControllersMessage() {
        controller.creates.add(new FakeController.Answer(400, Map.of("title", "Bad Request", "detail",
                "Unable to create step for job 42: More processors requested than permitted"), null));
        assertThat(srun("-n", "99", "hostname")).isEqualTo(1);
        assertThat(err.toString()).isEqualTo(
                "srun: error: Unable to create step for job 42: More processors requested than permitted\n");
        assertThat(controller.polls).isEmpty();
    }

    @Test
    void outputFilesTakeSlurmsPatterns() throws IOException {
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(chunk(0, 0, "zero\n"), chunk(1, 3, "three\n"),
                new StepOutputChunk(2, 3, "stderr", "oops\n")), 3, true, List.of(exit(0, 0, null), exit(3, 0, null))));
        assertThat(srun("-o", "out-%j.%s-%t-%N.txt", "hostname")).isZero();
        assertThat(Files.readString(dir.resolve("out-42.3-0-node1.txt"))).isEqualTo("zero\n");
        assertThat(Files.readString(dir.resolve("out-42.3-3-node2.txt"))).isEqualTo("three\noops\n");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anInterruptedSrunSignalsItsStepWhileItRuns() {
        controller.creates.add(new FakeController.Answer(201, TWO_NODES, null));
        controller.io.add(new StepIo(List.of(), 0, false, List.of()));
        controller.io.add(new StepIo(List.of(), 0, true, List.of(exit(0, null, 15))));
        Srun srun = new Srun(jobEnvironment(), out, err, dir, sleeps::add);
        srun.interrupted();
        assertThat(controller.signals).as("nothing to signal before the step exists").isEmpty();
        controller.onPoll = () -> {
            controller.onPoll = () -> { };
            srun.interrupted();
        };
        assertThat(srun.run(List.of("hostname"))).isEqualTo(143);
        assertThat(controller.signals).containsExactly("signal=TERM");
        assertThat(err.toString()).contains("srun: forcing job termination");
        srun.interrupted();
        assertThat(controller.signals).as("nothing more to signal once it is over").hasSize(1);
    }
}
