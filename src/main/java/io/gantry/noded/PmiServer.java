package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.PmiProtocol;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PMI server of this node's {@code srun --mpi=pmi2} tasks: what MPICH's {@code mpiexec} (hydra's proxy)
 * is to its ranks, so that {@code srun} starts MPICH programs directly. Java cannot hand a task an open
 * descriptor ({@code PMI_FD}), so it listens on a TCP port of 127.0.0.1, started with the first such step,
 * and each task gets {@code PMI_PORT=127.0.0.1:port} and a {@code PMI_ID} of its own, a random number the
 * task names itself with when it connects ({@code cmd=initack pmiid=N}); a connection from another user's
 * process (the kernel's {@code /proc/net/tcp} names its owner) is refused. The wire is PMI-1
 * ({@link PmiWire}). Rank, size, the kvs name, universe size, appnum and {@code PMI_process_mapping} are
 * answered here; a fence (barrier) waits until every task of the step on this node entered it, then the
 * pairs they put go to the controller, which answers with every node's ({@link PmiProtocol}). A thread a
 * connection: a node runs as many as it has tasks.
 */
final class PmiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PmiServer.class);
    /** Longer lines than MPICH ever sends end the connection. */
    private static final int MAX_READ_LINE = 64 * 1024;

    private final Consumer<StepReport> reports;
    private final Path procNetTcp;
    private final SecureRandom random = new SecureRandom();
    /** PMI_ID to the task it names. */
    private final Map<Integer, Member> members = new ConcurrentHashMap<>();
    /** "job.step" to its state here. */
    private final Map<String, Step> steps = new ConcurrentHashMap<>();
    private ServerSocket server;
    private volatile boolean closed;

    private record Member(Step step, int procId) {
    }

    PmiServer(Consumer<StepReport> reports) {
        this(reports, Path.of("/proc/net/tcp"));
    }

    PmiServer(Consumer<StepReport> reports, Path procNetTcp) {
        this.reports = reports;
        this.procNetTcp = procNetTcp;
    }

    /**
     * Opens step {@code jobId.stepId} here: {@code size} tasks in all, {@code perNode} a node in the step's
     * order, {@code local} the global ranks of this node's; its tasks run as {@code uid} (negative: not
     * checked). Answers each local task's {@code PMI_*} variables.
     */
    Map<Integer, Map<String, String>> open(String jobId, int stepId, int size, int[] perNode, List<Integer> local,
            long uid) throws IOException {
        int port = port();
        Step step = new Step(jobId, stepId, size, perNode == null ? null : PmiWire.processMapping(perNode),
                local, uid);
        Step earlier = steps.put(key(jobId, stepId), step);
        if (earlier != null) {
            earlier.close();
        }
        Map<Integer, Map<String, String>> env = new LinkedHashMap<>();
        for (int procId : local) {
            int id;
            do {
                id = 1 + random.nextInt(Integer.MAX_VALUE - 1);
            } while (members.putIfAbsent(id, new Member(step, procId)) != null);
            step.ids.add(id);
            Map<String, String> vars = new LinkedHashMap<>();
            vars.put("PMI_PORT", "127.0.0.1:" + port);
            vars.put("PMI_ID", Integer.toString(id));
            vars.put("PMI_RANK", Integer.toString(procId));
            vars.put("PMI_SIZE", Integer.toString(size));
            env.put(procId, vars);
        }
        return env;
    }

    /** Fence {@code round} of the step completed on every node with these pairs: its tasks here go on. */
    void fenceDone(String jobId, int stepId, int round, Map<String, String> pairs) {
        Step step = steps.get(key(jobId, stepId));
        if (step != null) {
            step.fenceDone(round, pairs == null ? Map.of() : pairs);
        }
    }

    /** The step's tasks here have all ended: forgets it and closes what is left of its connections. */
    void release(String jobId, int stepId) {
        Step step = steps.remove(key(jobId, stepId));
        if (step != null) {
            step.close();
        }
    }

    boolean serves(String jobId, int stepId) {
        return steps.containsKey(key(jobId, stepId));
    }

    @Override
    public synchronized void close() {
        closed = true;
        steps.values().forEach(Step::close);
        steps.clear();
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private static String key(String jobId, int stepId) {
        return jobId + "." + stepId;
    }

    /** The listening port, opened the first time. */
    synchronized int port() throws IOException {
        if (closed) {
            throw new IOException("the agent is stopping");
        }
        if (server == null) {
            ServerSocket socket = new ServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
            server = socket;
            Thread acceptor = new Thread(() -> accept(socket), "pmi-server");
            acceptor.setDaemon(true);
            acceptor.start();
            log.info("serving PMI to srun --mpi=pmi2 tasks on 127.0.0.1:{}", socket.getLocalPort());
        }
        return server.getLocalPort();
    }

    private void accept(ServerSocket socket) {
        while (!closed) {
            Socket s;
            try {
                s = socket.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("the PMI server stopped accepting: {}", e.toString());
                }
                return;
            }
            Thread t = new Thread(() -> serve(s), "pmi-task");
            t.setDaemon(true);
            t.start();
        }
    }

    /** One task's connection, from its {@code initack} to its {@code finalize} or end. */
    private void serve(Socket socket) {
        Connection connection = null;
        Member member = null;
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            connection = new Connection(socket.getOutputStream());
            String first = readLine(in);
            if (first == null) {
                return;
            }
            Map<String, String> hello = PmiWire.parse(first);
            if (!"initack".equals(hello.get("cmd"))) {
                log.warn("a PMI client on port {} did not name itself (no PMI_ID, or a PMI-2 client?): '{}'",
                        socket.getPort(), shorten(first));
                return;
            }
            member = members.get(number(hello.get("pmiid")));
            if (member == null) {
                log.warn("a PMI client on port {} named an unknown PMI_ID", socket.getPort());
                return;
            }
            long peer = peerUid(procNetTcp, socket.getPort(), socket.getLocalPort());
            if (member.step.uid >= 0 && peer >= 0 && peer != member.step.uid) {
                log.warn("refused a PMI connection of uid {} for task {} of step {}.{} (it runs as uid {})", peer,
                        member.procId, member.step.jobId, member.step.stepId, member.step.uid);
                member = null;
                return;
            }
            if (!member.step.attach(member.procId, connection)) {
                member = null;
                return;
            }
            connection.write(PmiWire.answer("initack") + PmiWire.answer("set", "size",
                    Integer.toString(member.step.size)) + PmiWire.answer("set", "rank", Integer.toString(member.procId))
                    + PmiWire.answer("set", "debug", "0"));
            String line;
            while ((line = readLine(in)) != null) {
                if (line.startsWith("mcmd=spawn")) {
                    // MPI_Comm_spawn: its lines up to endcmd; srun's tasks cannot start more tasks
                    while (line != null && !line.strip().equals("endcmd")) {
                        line = readLine(in);
                    }
                    connection.write(PmiWire.answer("spawn_result", "rc", "-1", "msg",
                            "srun_--mpi=pmi2_does_not_spawn_processes"));
                    continue;
                }
                if (member.step.handle(member.procId, PmiWire.parse(line), connection)) {
                    break;
                }
            }
        } catch (IOException e) {
            // the task went away: below
        } finally {
            if (member != null) {
                member.step.disconnected(member.procId);
            }
        }
    }

    /** A line without its newline; null at the end of the stream. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (line.size() >= MAX_READ_LINE) {
                throw new IOException("a PMI line over " + MAX_READ_LINE + " bytes");
            }
            line.write(b);
        }
        if (b < 0 && line.size() == 0) {
            return null;
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    /**
     * The owner of the client end of a connection to 127.0.0.1:{@code serverPort} from port
     * {@code clientPort}, as the kernel lists its TCP sockets ({@code tcp}, and {@code tcp6} beside it,
     * where an IPv6 socket's IPv4 address is mapped); -1 when it cannot tell.
     */
    static long peerUid(Path procNetTcp, int clientPort, int serverPort) {
        String local = String.format(Locale.ROOT, "0100007F:%04X", clientPort);
        String remote = String.format(Locale.ROOT, "0100007F:%04X", serverPort);
        for (Path table : List.of(procNetTcp, procNetTcp.resolveSibling(procNetTcp.getFileName() + "6"))) {
            try {
                for (String line : Files.readAllLines(table)) {
                    String[] f = line.strip().split("\\s+");
                    if (f.length > 7 && f[1].toUpperCase(Locale.ROOT).endsWith(local)
                            && f[2].toUpperCase(Locale.ROOT).endsWith(remote)) {
                        return Long.parseLong(f[7]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux, or no such file: not checked
            }
        }
        return -1;
    }

    private static int number(String s) {
        try {
            return s == null ? -1 : Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String shorten(String line) {
        return line.length() > 80 ? line.substring(0, 80) + "..." : line;
    }

    /** Writes answers to one task; the fence's answer comes from another thread. */
    static final class Connection {
        private final OutputStream out;

        Connection(OutputStream out) {
            this.out = out;
        }

        synchronized void write(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        void writeQuietly(String text) {
            try {
                write(text);
            } catch (IOException e) {
                // the task is gone; its connection's end says so
            }
        }
    }

    /** One step's PMI state on this node, guarded by its monitor. */
    final class Step {
        final String jobId;
        final int stepId;
        final int size;
        final String mapping;
        final List<Integer> local;
        final long uid;
        final String kvsname;
        final List<Integer> ids = new ArrayList<>();
        private final Map<Integer, Connection> connected = new HashMap<>();
        private final Set<Integer> finalized = new HashSet<>();
        private final Map<String, String> kvs = new HashMap<>();
        private Map<String, String> pending = new LinkedHashMap<>();
        private final List<Connection> waiting = new ArrayList<>();
        private long bytes;
        private int round;
        private boolean aborted;

        Step(String jobId, int stepId, int size, String mapping, List<Integer> local, long uid) {
            this.jobId = jobId;
            this.stepId = stepId;
            this.size = size;
            this.mapping = mapping;
            this.local = List.copyOf(local);
            this.uid = uid;
            this.kvsname = "kvs_" + jobId + "_" + stepId;
        }

        /** False when the task is connected already: one connection a task. */
        synchronized boolean attach(int procId, Connection connection) {
            return connected.putIfAbsent(procId, connection) == null;
        }

        /** Answers one command; true when the connection is done (finalize, abort). */
        synchronized boolean handle(int procId, Map<String, String> words, Connection c) throws IOException {
            String cmd = words.getOrDefault("cmd", "");
            switch (cmd) {
                case "init" -> {
                    boolean one = "1".equals(words.get("pmi_version"));
                    c.write(PmiWire.answer("response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc",
                            one ? "0" : "-1"));
                }
                case "get_maxes" -> c.write(PmiWire.answer("maxes", "kvsname_max",
                        Integer.toString(PmiWire.KVSNAME_MAX), "keylen_max", Integer.toString(PmiWire.KEYLEN_MAX),
                        "vallen_max", Integer.toString(PmiWire.VALLEN_MAX)));
                case "get_appnum" -> c.write(PmiWire.answer("appnum", "appnum", "0"));
                case "get_my_kvsname" -> c.write(PmiWire.answer("my_kvsname", "kvsname", kvsname));
                case "get_universe_size" -> c.write(PmiWire.answer("universe_size", "size", Integer.toString(size)));
                case "put" -> put(procId, words.getOrDefault("key", ""), words.getOrDefault("value", ""), c);
                case "get" -> {
                    String key = words.getOrDefault("key", "");
                    String value = "PMI_process_mapping".equals(key) && mapping != null ? mapping : kvs.get(key);
                    c.write(value != null ? PmiWire.answer("get_result", "rc", "0", "msg", "success", "value", value)
                            : PmiWire.answer("get_result", "rc", "-1", "msg", "key_" + key + "_not_found"));
                }
                case "barrier_in" -> barrier(c);
                case "finalize" -> {
                    finalized.add(procId);
                    c.write(PmiWire.answer("finalize_ack"));
                    return true;
                }
                case "abort" -> {
                    Integer code = words.containsKey("exitcode") ? number(words.get("exitcode")) : null;
                    abort(procId, code, "task " + procId + " called PMI abort"
                            + (code == null ? "" : " with exit code " + code));
                    return true;
                }
                case "publish_name", "unpublish_name", "lookup_name" -> c.write(PmiWire.answer(
                        cmd.replace("_name", "_result"), "rc", "-1", "msg", "srun_--mpi=pmi2_has_no_name_service"));
                default -> log.info("step {}.{}: task {} sent an unknown PMI command '{}'", jobId, stepId, procId,
                        shorten(cmd));
            }
            return false;
        }

        private void put(int procId, String key, String value, Connection c) throws IOException {
            long more = key.length() + value.length();
            if (bytes + more > PmiProtocol.MAX_KVS_BYTES) {
                c.write(PmiWire.answer("put_result", "rc", "-1", "msg", "key-value_space_full"));
                abort(procId, null, "the tasks of step " + jobId + "." + stepId + " put over "
                        + PmiProtocol.MAX_KVS_BYTES / (1024 * 1024) + " MB into PMI's key-value space, the most "
                        + "srun --mpi=pmi2 keeps");
                return;
            }
            bytes += more;
            pending.put(key, value);
            kvs.put(key, value);
            c.write(PmiWire.answer("put_result", "rc", "0", "msg", "success"));
        }

        /** Once every task here is in the fence, this node's pairs go to the controller. */
        private void barrier(Connection c) {
            waiting.add(c);
            if (waiting.size() == local.size()) {
                reports.accept(new StepReport(jobId, stepId, local.get(0), StepReportType.PMI_FENCE, null, round,
                        PmiProtocol.encode(pending), null, null));
                pending = new LinkedHashMap<>();
            }
        }

        synchronized void fenceDone(int done, Map<String, String> pairs) {
            if (done != round || waiting.size() < local.size()) {
                return; // a repeat
            }
            for (Map.Entry<String, String> e : pairs.entrySet()) {
                if (kvs.put(e.getKey(), e.getValue()) == null) {
                    bytes += e.getKey().length() + (e.getValue() == null ? 0 : e.getValue().length());
                }
            }
            round++;
            String out = PmiWire.answer("barrier_out");
            waiting.forEach(w -> w.writeQuietly(out));
            waiting.clear();
        }

        /** A task's connection ended: before its finalize, that is a failed task, and its step is ended. */
        synchronized void disconnected(int procId) {
            if (connected.remove(procId) != null && !finalized.contains(procId)) {
                abort(procId, null, "task " + procId + " ended without PMI finalize");
            }
        }

        private void abort(int procId, Integer code, String why) {
            if (aborted) {
                return;
            }
            aborted = true;
            log.info("step {}.{}: {}: ending the step", jobId, stepId, why);
            reports.accept(new StepReport(jobId, stepId, procId, StepReportType.PMI_ABORT, null, 0, why, code, null));
        }

        synchronized void close() {
            aborted = true; // connections closing now are no failures of the tasks
            ids.forEach(members::remove);
            connected.clear();
            waiting.clear();
        }
    }
}
