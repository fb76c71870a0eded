package io.gantry.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.gantry.agent.protocol.AgentProtocol.Launch;
import io.gantry.agent.protocol.AgentProtocol.OutputChunk;
import io.gantry.agent.protocol.AgentProtocol.OutputProblem;
import io.gantry.agent.protocol.AgentProtocol.OutputRead;

/**
 * Where the jobs of this node write their output and errors, kept for the jobs that run here and the
 * last {@value #REMEMBERED} that ended (in memory: an agent restarted forgets the ended ones), and
 * reads of those files for the controller (OUTPUT_READ). The agent reads as root, so it reads only a
 * regular file owned by the job's Unix account, never through a link at its end: a job whose
 * {@code --output} names another user's file cannot have the agent read that file for it.
 */
final class JobOutputFiles {

    static final int REMEMBERED = 1000;
    /** The most one answer carries: base64 of it stays well under the controller's 1 MiB body limit. */
    static final int MAX_READ = 256 * 1024;

    /** One job's files: {@code stderr} null when its errors go into {@code stdout}. */
    record Files(Path stdout, Path stderr, long ownerUid) {
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
    static Files of(Launch launch, Path workingDir, String node, long ownerUid) {
        Path stdout = workingDir.resolve(OutputPattern.expand(launch.stdout() == null || launch.stdout().isBlank()
                ? OutputPattern.defaultPattern(launch) : launch.stdout(), launch, node)).normalize();
        Path stderr = launch.stderr() == null || launch.stderr().isBlank() ? null
                : workingDir.resolve(OutputPattern.expand(launch.stderr(), launch, node)).normalize();
        return new Files(stdout, stderr == null || stderr.equals(stdout) ? null : stderr, ownerUid);
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
        try {
            BasicFileAttributes attributes = java.nio.file.Files.readAttributes(file, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile()) {
                return problem(jobId, read, stream, running, OutputProblem.UNREADABLE, file + " is not a regular file");
            }
            Object uid = java.nio.file.Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!(uid instanceof Number n) || n.longValue() != files.get().ownerUid()) {
                return problem(jobId, read, stream, running, OutputProblem.UNREADABLE,
                        file + " does not belong to the job's user");
            }
            int max = Math.max(0, Math.min(MAX_READ, read.maxBytes()));
            try (SeekableByteChannel channel = java.nio.file.Files.newByteChannel(file, StandardOpenOption.READ,
                    LinkOption.NOFOLLOW_LINKS)) {
                long size = channel.size();
                long offset = Math.max(0, Math.min(read.offset(), size));
                channel.position(offset);
                ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(max, size - offset));
                while (buffer.hasRemaining() && channel.read(buffer) > 0) {
                    // read until the buffer is full or the file ends
                }
                byte[] data = Arrays.copyOf(buffer.array(), buffer.position());
                return new OutputChunk(read.requestId(), jobId, stream, offset, data, size, running, null, null);
            }
        } catch (NoSuchFileException e) {
            return problem(jobId, read, stream, running, OutputProblem.UNREADABLE, file + " does not exist (yet)");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return problem(jobId, read, stream, running, OutputProblem.UNREADABLE, "cannot read " + file
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    private static OutputChunk problem(String jobId, OutputRead read, String stream, boolean running,
            OutputProblem problem, String detail) {
        return new OutputChunk(read.requestId(), jobId, stream, read.offset(), new byte[0], 0, running, problem, detail);
    }
}
