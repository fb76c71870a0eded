package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.Commands;
import io.gantry.noded.protocol.AgentProtocol.Poll;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import io.gantry.noded.protocol.AgentProtocol.Registered;
import io.gantry.noded.protocol.AgentProtocol.Registration;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import io.gantry.noded.protocol.AgentProtocol.Reports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's loop against a small fake controller on the JDK's HTTP server. */
class AgentLoopTests {

    private static final String JOIN_TOKEN = "join-secret";

    @TempDir
    Path dir;

    private FakeController controller;
    private final List<Agent> agents = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Integer>> runs = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        agents.forEach(Agent::close);
        // An agent still ending writes its state files: wait for it, else the temporary directory's removal races it.
        for (CompletableFuture<Integer> run : runs) {
            try {
                run.get(15, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // how it ended is the test's business; here only that it has ended
            }
        }
        if (controller != null) {
            controller.stop();
        }
    }

    /** Accepts the join token and the credentials it issued; queues commands for the polls. */
    static final class FakeController {
        final HttpServer server;
        final List<String> registerAuthorizations = new CopyOnWriteArrayList<>();
        final List<Poll> polls = new CopyOnWriteArrayList<>();
        final List<Report> reports = new CopyOnWriteArrayList<>();
        final BlockingQueue<Command> commands = new LinkedBlockingQueue<>();
        final Set<String> credentials = ConcurrentHashMap.newKeySet();
        volatile boolean acceptJoinToken = true;
        /** Reports about these jobs get the whole batch refused (400), as the controller refuses forged ones. */
        final Set<String> refusedJobs = ConcurrentHashMap.newKeySet();
        private int issued;

        FakeController(int port) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
            server.createContext(AgentProtocol.BASE, this::handle);
            server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
            server.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        void stop() {
            server.stop(0);
        }

        private synchronized String issue() {
            String credential = "cred-" + (++issued);
            credentials.add(credential);
            return credential;
        }

        private void handle(HttpExchange exchange) throws IOException {
            String path = exchange.getRequestURI().getPath();
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            String bearer = auth == null ? "" : auth.substring("Bearer ".length());
            byte[] body = exchange.getRequestBody().readAllBytes();
            try {
                if (path.equals(AgentProtocol.REGISTER)) {
                    registerAuthorizations.add(bearer);
                    Registration registration = AgentJson.MAPPER.readValue(body, Registration.class);
                    String credential = null;
                    if (bearer.equals(JOIN_TOKEN) && acceptJoinToken) {
                        credential = issue();
                    } else if (!credentials.contains(bearer)) {
                        answer(exchange, 401, Map.of("title", "Unauthorized", "detail", "unknown token"));
                        return;
                    }
                    answer(exchange, 200, new Registered(registration.name(), credential, 1, 1, 60, "IDLE", null,
                            List.of(), new NodeSettings(true, null, 60, false, null, null)));
                } else if (!credentials.contains(bearer)) {
                    answer(exchange, 401, Map.of("detail", "unknown credential"));
                } else if (path.endsWith("/poll")) {
                    polls.add(AgentJson.MAPPER.readValue(body, Poll.class));
                    Command first = commands.poll(300, TimeUnit.MILLISECONDS);
                    List<Command> answer = new java.util.ArrayList<>();
                    if (first != null) {
                        answer.add(first);
                        commands.drainTo(answer);
                    }
                    answer(exchange, 200, new Commands(answer));
                } else if (path.endsWith("/reports")) {
                    Reports received = AgentJson.MAPPER.readValue(body, Reports.class);
                    if (received.reports().stream().anyMatch(r -> refusedJobs.contains(r.jobId()))) {
                        answer(exchange, 400, Map.of("title", "Invalid", "detail", "reports[0].jobId: refused"));
                        return;
                    }
                    reports.addAll(received.reports());
                    answer(exchange, 200, new AgentProtocol.ReportsAccepted(received.reports().size()));
                } else {
                    answer(exchange, 404, Map.of("detail", "no such path"));
                }
            } catch (InterruptedException e) {
                answer(exchange, 503, Map.of());
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

    private CompletableFuture<Integer> startAgent(String joinToken) {
        AgentOptions options = new AgentOptions(controller.uri(), joinToken, "node7", dir, 2, "h100", List.of("ib"),
                2, 1000L);
        Agent agent = new Agent(options, NodeResources.detect(options), Clock.systemUTC());
        agents.add(agent);
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        runs.add(exit);
        Thread t = new Thread(() -> {
            try {
                exit.complete(agent.run());
            } catch (RuntimeException | Error e) {
                exit.completeExceptionally(e);
                throw e;
            }
        }, "test-agent");
        t.setDaemon(true);
        t.start();
        return exit;
    }

    @Test
    void joinsWithTheJoinTokenAndKeepsTheCredentialOwnerOnly() throws Exception {
        controller = new FakeController(0);
        startAgent(JOIN_TOKEN);
        await().atMost(Duration.ofSeconds(10)).until(() -> !controller.polls.isEmpty());
        assertThat(controller.registerAuthorizations).containsExactly(JOIN_TOKEN);
        assertThat(controller.polls.get(0).sync()).isTrue();
        Path credential = dir.resolve("state/credential.json");
        assertThat(Files.getPosixFilePermissions(credential)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        String stored = Files.readString(credential);
        assertThat(stored).contains("\"credential\":\"cred-1\"").contains("\"node\":\"node7\"")
                .contains("\"controller\":\"" + controller.uri() + "\"");
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.polls.size() >= 2);
        assertThat(controller.polls.get(1).sync()).isFalse();
    }

    @Test
    void aLaunchInAPollAnswerIsStartedAndEndedAndReported() throws Exception {
        controller = new FakeController(0);
        startAgent(JOIN_TOKEN);
        controller.commands.add(Command.launch(JobProcessTests.launch("61", "echo hello\n", dir.toString(), null,
                null, 0, List.of())));
        await().atMost(Duration.ofSeconds(15)).until(() -> controller.reports.size() >= 2);
        assertThat(controller.reports).extracting(Report::type).containsExactly(ReportType.STARTED, ReportType.ENDED);
        assertThat(controller.reports.get(1).state()).isEqualTo("COMPLETED");
        assertThat(controller.reports.get(1).time()).isBeforeOrEqualTo(Instant.now(Clock.systemUTC()));
        assertThat(dir.resolve("gantry-61.out")).hasContent("hello");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(Files.readString(dir.resolve("state/pending-reports.json"))).isEqualTo("[]"));
    }

    @Test
    void aRestartedAgentUsesItsCredentialAndSendsTheReportsAnEarlierRunLeft() throws Exception {
        controller = new FakeController(0);
        CompletableFuture<Integer> first = startAgent(JOIN_TOKEN);
        await().atMost(Duration.ofSeconds(10)).until(() -> !controller.polls.isEmpty());
        agents.get(0).close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isZero();

        Files.writeString(dir.resolve("state/pending-reports.json"), AgentJson.MAPPER.writeValueAsString(List.of(
                new Report("60", ReportType.ENDED, Instant.parse("2030-01-01T00:00:00Z"), "COMPLETED", 0, null, null))));
        startAgent(null);
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.registerAuthorizations.size() == 2
                && !controller.reports.isEmpty());
        assertThat(controller.registerAuthorizations).containsExactly(JOIN_TOKEN, "cred-1");
        assertThat(controller.reports).extracting(Report::jobId).containsExactly("60");
        assertThat(controller.reports.get(0).time()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
    }

    @Test
    void aReportTheControllerRefusesAsInvalidIsDroppedAndTheReportsAfterItStillGoOut() throws Exception {
        AgentDirs.prepare(dir);
        Instant at = Instant.parse("2030-01-01T00:00:00Z");
        Files.writeString(dir.resolve("state/pending-reports.json"), AgentJson.MAPPER.writeValueAsString(List.of(
                new Report("70", ReportType.ENDED, at, "COMPLETED", 0, null, null),
                new Report("71", ReportType.ENDED, at, "COMPLETED", 0, null, null),
                new Report("72", ReportType.ENDED, at, "FAILED", 2, null, null))));
        controller = new FakeController(0);
        controller.refusedJobs.add("71");
        startAgent(JOIN_TOKEN);
        await().atMost(Duration.ofSeconds(15)).until(() -> controller.reports.size() >= 2);
        assertThat(controller.reports).extracting(Report::jobId).containsExactly("70", "72");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(Files.readString(dir.resolve("state/pending-reports.json"))).isEqualTo("[]"));
    }

    @Test
    void aRefusedCredentialFallsBackToTheJoinTokenAndARefusedJoinTokenStopsTheAgent() throws Exception {
        controller = new FakeController(0);
        new CredentialStore(dir).save(new CredentialStore.StoredCredential(controller.uri().toString(), "node7",
                "revoked"));
        startAgent(JOIN_TOKEN);
        await().atMost(Duration.ofSeconds(10)).until(() -> !controller.polls.isEmpty());
        assertThat(controller.registerAuthorizations).containsExactly("revoked", JOIN_TOKEN);
        assertThat(Files.readString(dir.resolve("state/credential.json"))).contains("cred-1");
        agents.get(0).close();

        controller.acceptJoinToken = false;
        controller.credentials.clear();
        assertThat(startAgent(JOIN_TOKEN).get(15, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void ridesOutAControllerRestart() throws Exception {
        controller = new FakeController(0);
        int port = controller.server.getAddress().getPort();
        startAgent(JOIN_TOKEN);
        await().atMost(Duration.ofSeconds(10)).until(() -> !controller.polls.isEmpty());
        Set<String> credentials = Set.copyOf(controller.credentials);
        // The held poll breaks when the controller goes; the agent must notice and sync with the new one.
        controller.stop();
        controller = new FakeController(port);
        controller.credentials.addAll(credentials);
        await().atMost(Duration.ofSeconds(20)).until(() -> !controller.polls.isEmpty());
        assertThat(controller.polls.get(0).sync()).isTrue();
        assertThat(controller.registerAuthorizations).isEmpty();
    }
}
