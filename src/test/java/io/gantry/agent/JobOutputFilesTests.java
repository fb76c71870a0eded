package io.gantry.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.agent.protocol.AgentProtocol.Launch;
import io.gantry.agent.protocol.AgentProtocol.OutputChunk;
import io.gantry.agent.protocol.AgentProtocol.OutputProblem;
import io.gantry.agent.protocol.AgentProtocol.OutputRead;

/**
 * The agent reads a job's output for the controller only from the files the job's patterns name,
 * only when they belong to the job's user, never through a link, and from the offset asked.
 */
class JobOutputFilesTests {

    @TempDir
    Path dir;

    private final long me = uid();

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

        outputs.remember("2", JobOutputFiles.of(launch("2", "mine.txt", null), dir, "node1", me + 1));
        Files.writeString(dir.resolve("mine.txt"), "someone else's");
        OutputChunk foreign = outputs.read("2", new OutputRead("e", "stdout", 0, 100), false);
        assertThat(foreign.problem()).isEqualTo(OutputProblem.UNREADABLE);
        assertThat(foreign.detail()).contains("does not belong");
        assertThat(foreign.data()).isEmpty();
    }

    private static Launch launch(String id, String stdout, String stderr) {
        return new Launch(id, Long.parseLong(id), null, "job", "alice", "root", "batch", null, "#!/bin/bash\n", null,
                Map.of(), stdout, stderr, 60, null, "node1", List.of("node1"), 1, 1, 1, 100, List.of());
    }

    /** The uid files this test creates get: the uid it runs as. */
    private static long uid() {
        try {
            Path probe = Files.createTempFile("uid", ".probe");
            try {
                return ((Number) Files.getAttribute(probe, "unix:uid")).longValue();
            } finally {
                Files.delete(probe);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
