package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.PmiProtocol;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PMI-1 wire as MPICH's simple PMI client speaks it, line by line, and then the real client of Debian's MPICH. */
class PmiServerTests {

    @TempDir
    Path dir;

    private final BlockingQueue<StepReport> reports = new LinkedBlockingQueue<>();
    private final PmiServer server = new PmiServer(reports::add);

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void wordsAreSplitAtSpacesAndEachAtItsFirstEquals() {
        assertThat(PmiWire.parse("cmd=put kvsname=kvs_7_0 key=P0-businesscard value=a=b$c\n"))
                .containsExactly(Map.entry("cmd", "put"), Map.entry("kvsname", "kvs_7_0"),
                        Map.entry("key", "P0-businesscard"), Map.entry("value", "a=b$c"));
        assertThat(PmiWire.answer("get_result", "rc", "0", "value", "x")).isEqualTo("cmd=get_result rc=0 value=x\n");
    }

    @Test
    void theProcessMappingTellsMpichWhichRanksShareANode() {
        assertThat(PmiWire.processMapping(new int[] {2, 2})).isEqualTo("(vector,(0,2,2))");
        assertThat(PmiWire.processMapping(new int[] {3, 3, 2, 1})).isEqualTo("(vector,(0,2,3),(2,1,2),(3,1,1))");
        assertThat(PmiWire.tasksPerNode("3(x2),2,1")).containsExactly(3, 3, 2, 1);
        assertThat(PmiWire.tasksPerNode("2(x")).isNull();
    }

    @Test
    void aTaskIsGreetedWithItsRankAndSizeAndTheFenceWaitsForTheController() throws Exception {
        Map<Integer, Map<String, String>> env = server.open("7", 0, 4, new int[] {2, 2}, List.of(2, 3), -1);
        assertThat(env.get(2)).containsEntry("PMI_RANK", "2").containsEntry("PMI_SIZE", "4").containsKey("PMI_ID");
        assertThat(env.get(2).get("PMI_PORT")).startsWith("127.0.0.1:");
        try (Client two = new Client(env.get(2)); Client three = new Client(env.get(3))) {
            assertThat(two.initack()).containsExactly("cmd=initack", "cmd=set size=4", "cmd=set rank=2",
                    "cmd=set debug=0");
            three.initack();
            assertThat(two.ask("cmd=init pmi_version=1 pmi_subversion=1"))
                    .isEqualTo("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
            assertThat(two.ask("cmd=get_maxes")).isEqualTo("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
            assertThat(two.ask("cmd=get_appnum")).isEqualTo("cmd=appnum appnum=0");
            assertThat(two.ask("cmd=get_my_kvsname")).isEqualTo("cmd=my_kvsname kvsname=kvs_7_0");
            assertThat(two.ask("cmd=get_universe_size")).isEqualTo("cmd=universe_size size=4");
            assertThat(two.ask("cmd=get kvsname=kvs_7_0 key=PMI_process_mapping"))
                    .isEqualTo("cmd=get_result rc=0 msg=success value=(vector,(0,2,2))");
            assertThat(two.ask("cmd=put kvsname=kvs_7_0 key=card-2 value=tcp://a")).isEqualTo(
                    "cmd=put_result rc=0 msg=success");
            assertThat(three.ask("cmd=put kvsname=kvs_7_0 key=card-3 value=tcp://b")).isEqualTo(
                    "cmd=put_result rc=0 msg=success");
            assertThat(two.ask("cmd=get kvsname=kvs_7_0 key=card-0")).isEqualTo(
                    "cmd=get_result rc=-1 msg=key_card-0_not_found");

            two.send("cmd=barrier_in");
            assertThat(reports.poll(200, TimeUnit.MILLISECONDS)).as("one task of two is in the fence").isNull();
            three.send("cmd=barrier_in");
            StepReport part = reports.poll(10, TimeUnit.SECONDS);
            assertThat(part.type()).isEqualTo(StepReportType.PMI_FENCE);
            assertThat(part.procId()).isEqualTo(2);
            assertThat(part.seq()).isZero();
            assertThat(PmiProtocol.decode(part.data())).containsExactly(Map.entry("card-2", "tcp://a"),
                    Map.entry("card-3", "tcp://b"));

            Map<String, String> merged = new LinkedHashMap<>(PmiProtocol.decode(part.data()));
            merged.put("card-0", "tcp://c");
            server.fenceDone("7", 0, 0, merged);
            assertThat(two.read()).isEqualTo("cmd=barrier_out");
            assertThat(three.read()).isEqualTo("cmd=barrier_out");
            assertThat(two.ask("cmd=get kvsname=kvs_7_0 key=card-0")).isEqualTo(
                    "cmd=get_result rc=0 msg=success value=tcp://c");
            // a repeat of the command changes nothing
            server.fenceDone("7", 0, 0, Map.of("card-0", "other"));
            assertThat(two.ask("cmd=finalize")).isEqualTo("cmd=finalize_ack");
            assertThat(three.ask("cmd=finalize")).isEqualTo("cmd=finalize_ack");
        }
        assertThat(reports.poll(300, TimeUnit.MILLISECONDS)).as("finalized tasks that leave are no failures").isNull();
    }

    @Test
    void anAbortAndAnEndBeforeFinalizeAreReported() throws Exception {
        Map<Integer, Map<String, String>> env = server.open("8", 1, 2, new int[] {2}, List.of(0, 1), -1);
        try (Client zero = new Client(env.get(0))) {
            zero.initack();
            zero.send("cmd=abort exitcode=5");
            StepReport abort = reports.poll(10, TimeUnit.SECONDS);
            assertThat(abort.type()).isEqualTo(StepReportType.PMI_ABORT);
            assertThat(abort.procId()).isZero();
            assertThat(abort.exitCode()).isEqualTo(5);
        }
        PmiServer other = new PmiServer(reports::add);
        try {
            env = other.open("9", 0, 1, new int[] {1}, List.of(0), -1);
            try (Client zero = new Client(env.get(0))) {
                zero.initack();
            }
            StepReport gone = reports.poll(10, TimeUnit.SECONDS);
            assertThat(gone.type()).isEqualTo(StepReportType.PMI_ABORT);
            assertThat(gone.exitCode()).isNull();
            assertThat(gone.data()).contains("ended without PMI finalize");
        } finally {
            other.close();
        }
    }

    @Test
    void aClientThatNamesNoTaskOfAStepIsShownTheDoor() throws Exception {
        Map<Integer, Map<String, String>> env = server.open("7", 0, 1, null, List.of(0), -1);
        Map<String, String> forged = new LinkedHashMap<>(env.get(0));
        forged.put("PMI_ID", Integer.toString(Integer.parseInt(env.get(0).get("PMI_ID")) ^ 1));
        try (Client stranger = new Client(forged)) {
            stranger.send("cmd=initack pmiid=" + forged.get("PMI_ID"));
            assertThat(stranger.read()).as("closed without an answer").isNull();
        }
        // the real task still gets in
        try (Client zero = new Client(env.get(0))) {
            assertThat(zero.initack()).contains("cmd=set rank=0");
        }
    }

    @Test
    void theKernelsTableNamesTheOwnerOfAConnection() throws Exception {
        Path table = Files.writeString(dir.resolve("tcp"), """
                  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 1 1
                   1: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2 1
                """);
        assertThat(PmiServer.peerUid(table, 0x9C40, 0x1F90)).isEqualTo(1001);
        assertThat(PmiServer.peerUid(table, 0x9C41, 0x1F90)).isEqualTo(-1);
        // a real connection to this server, from this process: this process's uid
        int port = server.port();
        try (Socket s = new Socket("127.0.0.1", port)) {
            long uid = PmiServer.peerUid(Path.of("/proc/net/tcp"), s.getLocalPort(), port);
            assumeTrue(uid >= 0, "no /proc/net/tcp here");
            assertThat(uid).isEqualTo(UnixAccount.current().uid());
        }
    }

    @Test
    void debiansMpichRunsTwoRanksAgainstIt() throws Exception {
        assumeTrue(onPath("mpicc.mpich"), "MPICH (Debian's mpich, libmpich-dev) is not installed");
        Path source = Files.writeString(dir.resolve("hello.c"), """
                #include <mpi.h>
                #include <stdio.h>
                int main(int argc, char **argv) {
                    int rank, size, sum = 0;
                    MPI_Init(&argc, &argv);
                    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                    MPI_Comm_size(MPI_COMM_WORLD, &size);
                    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                    printf("rank %d size %d sum %d\\n", rank, size, sum);
                    MPI_Finalize();
                    return 0;
                }
                """);
        Path hello = dir.resolve("hello");
        Process cc = new ProcessBuilder("mpicc.mpich", "-o", hello.toString(), source.toString())
                .redirectErrorStream(true).start();
        assertThat(cc.waitFor()).as(new String(cc.getInputStream().readAllBytes())).isZero();

        Map<Integer, Map<String, String>> env = server.open("10", 0, 2, new int[] {2}, List.of(0, 1), -1);
        // the controller's part, for one node: each fence's pairs go straight back
        Thread relay = new Thread(() -> {
            try {
                while (true) {
                    StepReport r = reports.take();
                    if (r.type() == StepReportType.PMI_FENCE) {
                        server.fenceDone("10", 0, (int) r.seq(), PmiProtocol.decode(r.data()));
                    }
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        relay.setDaemon(true);
        relay.start();
        List<Process> ranks = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            ProcessBuilder b = new ProcessBuilder(hello.toString()).redirectErrorStream(true);
            b.environment().putAll(env.get(rank));
            ranks.add(b.start());
        }
        List<String> out = new ArrayList<>();
        for (Process p : ranks) {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(p.exitValue()).as(text).isZero();
            out.add(text);
        }
        relay.interrupt();
        assertThat(out).containsExactly("rank 0 size 2 sum 1", "rank 1 size 2 sum 1");
    }

    private static boolean onPath(String command) throws IOException, InterruptedException {
        Process which = new ProcessBuilder("sh", "-c", "command -v " + command).start();
        return which.waitFor(10, TimeUnit.SECONDS) && which.exitValue() == 0;
    }

    /** A PMI client by hand: a task's side of the socket. */
    private static final class Client implements AutoCloseable {
        private final Socket socket;
        private final BufferedReader in;
        private final OutputStream out;
        private final String id;

        Client(Map<String, String> env) throws IOException {
            String[] hostPort = env.get("PMI_PORT").split(":");
            socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]));
            socket.setSoTimeout(10_000);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = socket.getOutputStream();
            id = env.get("PMI_ID");
        }

        List<String> initack() throws IOException {
            send("cmd=initack pmiid=" + id);
            return List.of(read(), read(), read(), read());
        }

        void send(String line) throws IOException {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        String read() throws IOException {
            return in.readLine();
        }

        String ask(String line) throws IOException {
            send(line);
            return read();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
