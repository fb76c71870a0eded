package io.gantry.noded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.OutputChunk;
import io.gantry.noded.protocol.AgentProtocol.OutputProblem;
import io.gantry.noded.protocol.AgentProtocol.OutputRead;

/**
 * Where the jobs of this node write their output and errors, kept for the jobs that run here and the
 * last {@value #REMEMBERED} that ended (in memory: an agent restarted forgets the ended ones), and
 * reads of those files for the controller (OUTPUT_READ).
 * <p>
 * The job's user controls every directory of those paths, so root never opens them: a check of the
 * path followed by an open as root loses the race against a user who swaps a directory of the path
 * for a link to {@code /etc} or to the agent's state. Each read runs {@link #READER} as the job's
 * user instead ({@code setpriv} with its uid, gid and groups), so the kernel lets it open only what
 * that user may open anyway; on what it opened it then checks type and owner (a regular file of the
 * job's user: not another account's file the user may read, not a link at the end, not a device or
 * FIFO), and reads at most {@value #MAX_READ} bytes, killed after {@link #READ_TIMEOUT}. A hard link
 * changes nothing: the opened file's owner must be the job's user, and the open is the user's.
 */
final class JobOutputFiles {

    static final int REMEMBERED = 1000;
    /** The most one answer carries: base64 of it stays well under the controller's 1 MiB body limit. */
    static final int MAX_READ = 256 * 1024;
    /** How long one read may take before its reader is killed and the read answers UNREADABLE. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
    /** The longest first line a reader writes (a refusal names the path). */
    private static final int MAX_HEADER = 8192;
    private static final long AGENT_UID = agentUid();

    /**
     * The reader, run as the job's user. Arguments: file, offset, most bytes, the user's uid. It
     * answers one line, {@code ok UID SIZE OFFSET} followed by the bytes from OFFSET, or {@code no
     * REASON}. Owner, type and identity are taken from the open descriptor ({@code /proc/self/fd/3}),
     * not the path; the path is looked at again only to refuse a link at its end.
     */
    static final String READER = """
            f=$1 off=$2 max=$3 uid=$4
            [ "$(id -u)" = "$uid" ] || { echo "no the reader runs as uid $(id -u), not the job's $uid"; exit 0; }
            if [ -L "$f" ]; then echo "no $f is a symbolic link"; exit 0; fi
            if [ -e "$f" ] && [ ! -f "$f" ]; then echo "no $f is not a regular file"; exit 0; fi
            if ! { exec 3<"$f"; } 2>/dev/null; then
              if [ -e "$f" ] || [ -L "$f" ]; then echo "no the job's user may not read $f"
              else echo "no $f does not exist (yet)"; fi
              exit 0
            fi
            info=$(stat -L -c '%u %s %d:%i %F' /proc/self/fd/3) || { echo "no cannot inspect $f"; exit 0; }
            read -r owner size id type <<<"$info"
            case $type in
              "regular file"|"regular empty file") ;;
              *) echo "no $f is not a regular file"; exit 0 ;;
            esac
            [ "$owner" = "$uid" ] || { echo "no $f does not belong to the job's user"; exit 0; }
            [ "$(stat -c '%d:%i' -- "$f" 2>/dev/null)" = "$id" ] \
              || { echo "no $f is a symbolic link, or was replaced while it was read"; exit 0; }
            [ "$off" -le "$size" ] || off=$size
            n=$((size - off)); [ "$n" -le "$max" ] || n=$max
            printf 'ok %s %s %s\n' "$owner" "$size" "$off"
            exec dd bs=65536 iflag=skip_bytes,count_bytes skip="$off" count="$n" status=none <&3
            """;

    /** One job's files: {@code stderr} null when its errors go into {@code stdout}; read as {@code owner}. */
    record Files(Path stdout, Path stderr, UnixAccount owner) {
    }

    private final Map<String, Files> known = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Files> eldest) {
            return size() > REMEMBERED;
        }
    };

    /**
     * The files a job's {@code --output} and {@code --error} name, from its working directory, with
     * Slurm's patterns expanded for {@code node}.
     *
     * @throws java.nio.file.InvalidPathException when a pattern or the working directory is no usable path
     */
    static Files of(Launch launch, Path workingDir, String node, UnixAccount owner) {
        Path stdout = workingDir.resolve(OutputPattern.expand(launch.stdout() == null || launch.stdout().isBlank()
                ? OutputPattern.defaultPattern(launch) : launch.stdout(), launch, node)).normalize();
        Path stderr = launch.stderr() == null || launch.stderr().isBlank() ? null
                : workingDir.resolve(OutputPattern.expand(launch.stderr(), launch, node)).normalize();
        return new Files(stdout, stderr == null || stderr.equals(stdout) ? null : stderr, owner);
    }

    synchronized void remember(String jobId, Files files) {
        known.remove(jobId);
        known.put(jobId, files);
    }

    synchronized Optional<Files> find(String jobId) {
        return Optional.ofNullable(known.get(jobId));
    }

    /** Answers an OUTPUT_READ for {@code jobId}; {@code running} whether the job still runs here. */
    OutputChunk read(String jobId, OutputRead read, boolean running) {
        Optional<Files> files = find(jobId);
        String stream = "stderr".equals(read.stream()) ? "stderr" : "stdout";
        if (files.isEmpty()) {
            return problem(jobId, read, stream, running, OutputProblem.UNKNOWN_JOB,
                    "this node's agent has no record of the job (it did not run here, or the agent restarted since)");
        }
        Path file = stream.equals("stderr") ? files.get().stderr() : files.get().stdout();
        if (file == null) {
            return problem(jobId, read, stream, running, OutputProblem.MERGED,
                    "the job writes its errors into its output file (it named no --error)");
        }
        int max = Math.max(0, Math.min(MAX_READ, read.maxBytes()));
        long offset = Math.max(0, read.offset());
        UnixAccount owner = files.get().owner();
        Reading reading;
        try {
            reading = readAs(owner, file, offset, max);
        } catch (IOException e) {
            return problem(jobId, read, stream, running, OutputProblem.UNREADABLE, "cannot read " + file
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
        if (reading.refusal() != null) {
            return problem(jobId, read, stream, running, OutputProblem.UNREADABLE, reading.refusal());
        }
        return new OutputChunk(read.requestId(), jobId, stream, reading.offset(), reading.data(), reading.size(), running,
                null, null);
    }

    /** What the reader said: the file's length and the bytes from {@code offset}, or why it read nothing. */
    record Reading(long size, long offset, byte[] data, String refusal) {
    }

    /**
     * Reads up to {@code max} bytes of {@code file} from {@code offset} as {@code owner}: {@link #READER}
     * runs under {@code setpriv} with the owner's uid, gid and groups when the agent is someone else
     * (root), so the kernel checks every component of the path with the owner's rights. Bounded by
     * {@code max} bytes and {@link #READ_TIMEOUT}: a file swapped for a FIFO blocks only its reader,
     * which is killed.
     */
    static Reading readAs(UnixAccount owner, Path file, long offset, int max) throws IOException {
        List<String> command = new ArrayList<>();
        if (owner.uid() != AGENT_UID) {
            command.addAll(List.of("setpriv", "--reuid=" + owner.uid(), "--regid=" + owner.gid()));
            command.add(owner.groups().isEmpty() ? "--clear-groups"
                    : "--groups=" + String.join(",", owner.groups().stream().map(String::valueOf).toList()));
            command.addAll(List.of("--inh-caps=-all", "--"));
        }
        command.addAll(List.of("/bin/bash", "-c", READER, "gantry-output", file.toString(), Long.toString(offset),
                Integer.toString(max), Long.toString(owner.uid())));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Path.of("/").toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(
                        Path.of("/dev/null").toFile()));
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        builder.environment().put("LC_ALL", "C");
        Process process = builder.start();
        // a reader that blocks (a FIFO in place of the file) or crawls is killed, which ends its output
        CompletableFuture<Void> deadline = CompletableFuture.runAsync(() -> kill(process),
                CompletableFuture.delayedExecutor(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        byte[] answer;
        try (InputStream in = process.getInputStream()) {
            answer = in.readNBytes(MAX_HEADER + max + 1);
        } finally {
            deadline.cancel(false);
            kill(process);
        }
        int newline = -1;
        for (int i = 0; i < Math.min(answer.length, MAX_HEADER); i++) {
            if (answer[i] == '\n') {
                newline = i;
                break;
            }
        }
        if (newline < 0) {
            throw new IOException("its reader gave no answer within " + READ_TIMEOUT.toSeconds() + " s");
        }
        String header = new String(answer, 0, newline, StandardCharsets.UTF_8);
        byte[] data = Arrays.copyOfRange(answer, newline + 1, answer.length);
        if (header.startsWith("no ")) {
            return new Reading(0, offset, new byte[0], header.substring(3));
        }
        String[] f = header.split(" ");
        // the reader checked owner and type on the file it opened; checked again here, so a reader that
        // went wrong cannot hand over another account's bytes
        if (f.length != 4 || !f[0].equals("ok") || !f[1].equals(Long.toString(owner.uid()))) {
            throw new IOException("its reader answered " + header);
        }
        long size = Long.parseLong(f[2]);
        long from = Long.parseLong(f[3]);
        if (data.length > max) {
            throw new IOException("its reader sent more than the " + max + " bytes asked");
        }
        return new Reading(size, from, data, null);
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static OutputChunk problem(String jobId, OutputRead read, String stream, boolean running,
            OutputProblem problem, String detail) {
        return new OutputChunk(read.requestId(), jobId, stream, read.offset(), new byte[0], 0, running, problem, detail);
    }

    /** The uid this agent runs as, or -1 when it cannot tell: then every read switches to the owner. */
    private static long agentUid() {
        try {
            return ((Number) java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
