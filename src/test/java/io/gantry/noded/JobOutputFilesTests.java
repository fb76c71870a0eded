package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.OutputChunk;
import io.gantry.noded.protocol.AgentProtocol.OutputProblem;
import io.gantry.noded.protocol.AgentProtocol.OutputRead;

/**
 * The agent reads a job's output for the controller only from the files the job's patterns name,
 * as the job's user, only when they are regular files of that user, never through a link at their
 * end, from the offset asked and at most {@link JobOutputFiles#MAX_READ} bytes at a time. Here the
 * job's user is the account the test runs as (as for an agent that does not run as root); see
 * {@link JobOutputFilesRootTests} for reads as other users.
 */
class JobOutputFilesTests {

    @TempDir
    Path dir;

    private final UnixAccount me = me();

    @Test
    void readsTheJobsFilesFromAnOffsetAndSaysHowLongTheyAre() throws Exception {
        JobOutputFiles outputs = new JobOutputFiles();
        JobOutputFiles.Files files = JobOutputFiles.of(launch("42", "out-%j.txt", "err-%j.txt"), dir, "node1", me);
        assertThat(files.stdout()).isEqualTo(dir.resolve("out-42.txt"));
        outputs.remember("42", files);
        Files.writeString(dir.resolve("out-42.txt"), "hello world\n");
        Files.writeString(dir.resolve("err-42.txt"), "oops\n");

        OutputChunk all = outputs.read("42", new OutputRead("r1", "stdout", 0, 1024), true);
        assertThat(all.problem()).isNull();
        assertThat(new String(all.data(), StandardCharsets.UTF_8)).isEqualTo("hello world\n");
        assertThat(all.size()).isEqualTo(12);
        assertThat(all.requestId()).isEqualTo("r1");
        assertThat(all.running()).isTrue();

        OutputChunk tail = outputs.read("42", new OutputRead("r2", "stdout", 6, 3), false);
        assertThat(new String(tail.data(), StandardCharsets.UTF_8)).isEqualTo("wor");
        assertThat(tail.offset()).isEqualTo(6);
        OutputChunk past = outputs.read("42", new OutputRead("r3", "stdout", 99, 10), false);
        assertThat(past.data()).isEmpty();
        assertThat(past.offset()).isEqualTo(12);

        assertThat(new String(outputs.read("42", new OutputRead("r4", "stderr", 0, 100), false).data(),
                StandardCharsets.UTF_8)).isEqualTo("oops\n");
    }

    @Test
    void aJobWithoutErrorFileAnUnknownJobALinkOrAnotherUsersFileAreNotRead() throws Exception {
        JobOutputFiles outputs = new JobOutputFiles();
        outputs.remember("1", JobOutputFiles.of(launch("1", null, null), dir, "node1", me));
        assertThat(outputs.read("1", new OutputRead("a", "stderr", 0, 10), false).problem()).isEqualTo(OutputProblem.MERGED);
        assertThat(outputs.read("1", new OutputRead("b", "stdout", 0, 10), false).problem())
                .isEqualTo(OutputProblem.UNREADABLE); // gantry-1.out does not exist
        assertThat(outputs.read("9", new OutputRead("c", "stdout", 0, 10), false).problem())
                .isEqualTo(OutputProblem.UNKNOWN_JOB);

        Path secret = Files.writeString(dir.resolve("secret"), "not yours");
        Files.createSymbolicLink(dir.resolve("gantry-1.out"), secret);
        OutputChunk link = outputs.read("1", new OutputRead("d", "stdout", 0, 10), false);
        assertThat(link.problem()).isEqualTo(OutputProblem.UNREADABLE);
        assertThat(link.data()).isEmpty();

        Files.delete(dir.resolve("gantry-1.out"));
        Files.createDirectory(dir.resolve("gantry-1.out"));
        OutputChunk directory = outputs.read("1", new OutputRead("f", "stdout", 0, 10), false);
        assertThat(directory.problem()).isEqualTo(OutputProblem.UNREADABLE);
        assertThat(directory.detail()).contains("not a regular file");

        // A job of another account (here: one that does not exist) is read as that account, never as the agent.
        UnixAccount other = new UnixAccount("nobody-here", me.uid() + 100_000, me.gid() + 100_000,
                List.of(me.gid() + 100_000), "/", "/bin/sh");
        outputs.remember("2", JobOutputFiles.of(launch("2", "mine.txt", null), dir, "node1", other));
        Files.writeString(dir.resolve("mine.txt"), "someone else's");
        OutputChunk foreign = outputs.read("2", new OutputRead("e", "stdout", 0, 100), false);
        assertThat(foreign.problem()).isEqualTo(OutputProblem.UNREADABLE);
        assertThat(foreign.data()).isEmpty();
    }

    @Test
    void aFifoInPlaceOfTheFileIsRefusedWithoutHangingTheRead() throws Exception {
        JobOutputFiles outputs = new JobOutputFiles();
        outputs.remember("3", JobOutputFiles.of(launch("3", "pipe", null), dir, "node1", me));
        Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("pipe").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        long started = System.nanoTime();
        OutputChunk chunk = outputs.read("3", new OutputRead("g", "stdout", 0, 10), true);
        assertThat(chunk.problem()).isEqualTo(OutputProblem.UNREADABLE);
        assertThat(System.nanoTime() - started).isLessThan(JobOutputFiles.READ_TIMEOUT.toNanos() + 2_000_000_000L);
    }

    @Test
    void aReadIsBoundedByMaxRead() throws Exception {
        JobOutputFiles outputs = new JobOutputFiles();
        outputs.remember("4", JobOutputFiles.of(launch("4", "big", null), dir, "node1", me));
        Files.write(dir.resolve("big"), new byte[JobOutputFiles.MAX_READ * 2 + 7]);
        OutputChunk chunk = outputs.read("4", new OutputRead("h", "stdout", 5, Integer.MAX_VALUE), true);
        assertThat(chunk.problem()).isNull();
        assertThat(chunk.data()).hasSize(JobOutputFiles.MAX_READ);
        assertThat(chunk.size()).isEqualTo(JobOutputFiles.MAX_READ * 2L + 7);
        assertThat(chunk.offset()).isEqualTo(5);
    }

    private static Launch launch(String id, String stdout, String stderr) {
        return new Launch(id, Long.parseLong(id), null, "job", "alice", "root", "batch", null, "#!/bin/bash\n", null,
                Map.of(), stdout, stderr, 60, null, "node1", List.of("node1"), 1, 1, 1, 100, List.of());
    }

    /** The account this test runs as, which owns the files it creates: the agent reads them as itself. */
    private static UnixAccount me() {
        try {
            return UnixAccount.current();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
