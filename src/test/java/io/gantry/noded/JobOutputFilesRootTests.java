package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.OutputChunk;
import io.gantry.noded.protocol.AgentProtocol.OutputProblem;
import io.gantry.noded.protocol.AgentProtocol.OutputRead;
import io.gantry.support.UnixAccounts;

/**
 * Finding 1 of issue 28 as the review found it, against a root agent's reads: a real Unix user owns
 * the directories of its job's output path and swaps one of them, again and again, for a link to
 * {@code /etc} or to the agent's state directory, while the agent reads the output hundreds of times.
 * Every answer holds the job's own bytes or is a refusal; never a byte of {@code /etc/shadow} or of
 * the node credential. Skipped unless running as root (it creates users and reads as them).
 */
class JobOutputFilesRootTests {

    private static final String CREDENTIAL = "node-credential-that-no-job-may-read-" + ThreadLocalRandom.current().nextLong();
    private static final int READS = 300;

    @TempDir
    Path dir;

    private final String user = "g28output" + ThreadLocalRandom.current().nextInt(10000, 99999);
    private boolean created;
    private Path base;

    @BeforeEach
    void createUser() throws Exception {
        boolean root = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
        Assumptions.assumeTrue(root, "needs root: reads as another Unix user");
        UnixAccounts.addUser("-M", "-s", "/bin/bash", user);
        created = true;
        // the agent's work dir as a node has it: others may pass through the work dir, not into state/
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        base = Path.of("/tmp", user);
    }

    @AfterEach
    void removeUser() throws Exception {
        if (base != null) {
            AgentDirs.deleteTree(base);
        }
        if (created) {
            UnixAccounts.removeUser(user, false);
        }
    }

    @Test
    void aDirectorySwappedForALinkToEtcOrTheAgentsStateNeverLeaksABytes() throws Exception {
        AgentDirs dirs = AgentDirs.prepare(dir.resolve("work"));
        new CredentialStore(dirs.state()).save(new CredentialStore.StoredCredential("http://controller", "node1",
                CREDENTIAL));
        UnixAccount owner = UnixAccount.lookup(user).orElseThrow();
        String shadow = Files.readString(Path.of("/etc/shadow"));
        Assumptions.assumeTrue(shadow.contains("root:"), "needs an /etc/shadow to protect");

        // /tmp/<user>/a/b/{shadow,credential.json}: the job's own files, under directories it owns
        Path a = base.resolve("a");
        Path b = a.resolve("b");
        Files.createDirectories(b);
        byte[] mine = "the job's own output\n".repeat(20).getBytes(StandardCharsets.UTF_8);
        Files.write(b.resolve("shadow"), mine);
        Files.write(b.resolve("credential.json"), mine);
        run("chown", "-R", user + ":", base.toString());

        JobOutputFiles outputs = new JobOutputFiles();
        outputs.remember("7", JobOutputFiles.of(launch("7", b.resolve("shadow").toString(),
                b.resolve("credential.json").toString()), base, "node1", owner));

        // The swap loop: rename b away, a link to /etc in its place, then a link to the state, then b again.
        Path real = a.resolve("b.real");
        Path toEtc = a.resolve("l.etc");
        Path toState = a.resolve("l.state");
        Files.createSymbolicLink(toEtc, Path.of("/etc"));
        Files.createSymbolicLink(toState, dirs.state());
        run("chown", "-h", user + ":", toEtc.toString(), toState.toString());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong swaps = new AtomicLong();
        Thread swapper = new Thread(() -> {
            while (!stop.get()) {
                try {
                    for (Path link : List.of(toEtc, toState)) {
                        Files.move(b, real, StandardCopyOption.ATOMIC_MOVE);
                        Files.move(link, b, StandardCopyOption.ATOMIC_MOVE);
                        Files.move(b, link, StandardCopyOption.ATOMIC_MOVE);
                        Files.move(real, b, StandardCopyOption.ATOMIC_MOVE);
                        swaps.incrementAndGet();
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }, "swapper");
        swapper.start();

        int read = 0;
        int refused = 0;
        List<String> leaks = new ArrayList<>();
        try {
            // hundreds of reads, and for a few seconds at least: a fast reader meets the swaps as often as a slow one
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            for (int i = 0; i < READS || System.nanoTime() < until; i++) {
                for (String stream : List.of("stdout", "stderr")) {
                    OutputChunk chunk = outputs.read("7", new OutputRead("r" + i, stream, 0, 64 * 1024), true);
                    String text = new String(chunk.data(), StandardCharsets.UTF_8);
                    if (text.contains("root:") || text.contains(CREDENTIAL) || !new String(mine, StandardCharsets.UTF_8)
                            .startsWith(text)) {
                        leaks.add(stream + " read " + i + ": " + text.substring(0, Math.min(80, text.length())));
                    }
                    if (chunk.problem() == null) {
                        read++;
                    } else {
                        assertThat(chunk.problem()).isEqualTo(OutputProblem.UNREADABLE);
                        assertThat(chunk.data()).isEmpty();
                        refused++;
                    }
                }
            }
        } finally {
            stop.set(true);
            swapper.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(leaks).as("answers that were not the job's own output").isEmpty();
        assertThat(swaps.get()).as("the swapper swapped while the agent read").isGreaterThan(READS);
        assertThat(read + refused).isGreaterThanOrEqualTo(2 * READS);
        assertThat(refused).as("reads that hit a swapped directory").isPositive();
        // with the loop stopped and b back in place, the job's own output reads in full
        assertThat(Files.isDirectory(b, LinkOption.NOFOLLOW_LINKS)).isTrue();
        OutputChunk calm = outputs.read("7", new OutputRead("calm", "stdout", 0, 64 * 1024), false);
        assertThat(calm.problem()).isNull();
        assertThat(calm.data()).isEqualTo(mine);
        System.out.printf("%d swaps, %d reads answered, %d refused%n", swaps.get(), read, refused);
    }

    @Test
    void aHardLinkToAnotherAccountsFileOrALinkAtTheEndIsRefused() throws Exception {
        UnixAccount owner = UnixAccount.lookup(user).orElseThrow();
        Files.createDirectories(base);
        run("chown", user + ":", base.toString());
        // what a node without fs.protected_hardlinks lets a user do: link root's readable file into its directory
        Path rootsFile = Files.writeString(base.resolveSibling(user + "-roots"), "root's file, readable by all\n");
        try {
            Files.createLink(base.resolve("hard"), rootsFile);
            Files.createSymbolicLink(base.resolve("soft"), Path.of("/etc/passwd"));
            run("chown", "-h", user + ":", base.resolve("soft").toString());
            Path own = Files.writeString(base.resolve("own"), "mine\n");
            run("chown", user + ":", own.toString());
            Path secret = Files.writeString(base.resolve("secret"), "root's secret\n");
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));

            JobOutputFiles outputs = new JobOutputFiles();
            Map<String, String> expected = Map.of("hard", "does not belong", "soft", "symbolic link",
                    "secret", "may not read");
            int n = 0;
            for (var e : expected.entrySet()) {
                String id = Integer.toString(100 + n++);
                outputs.remember(id, JobOutputFiles.of(launch(id, e.getKey(), null), base, "node1", owner));
                OutputChunk chunk = outputs.read(id, new OutputRead("x", "stdout", 0, 1024), false);
                assertThat(chunk.problem()).as(e.getKey()).isEqualTo(OutputProblem.UNREADABLE);
                assertThat(chunk.detail()).as(e.getKey()).contains(e.getValue());
                assertThat(chunk.data()).isEmpty();
            }
            outputs.remember("200", JobOutputFiles.of(launch("200", "own", null), base, "node1", owner));
            assertThat(new String(outputs.read("200", new OutputRead("y", "stdout", 0, 1024), false).data(),
                    StandardCharsets.UTF_8)).isEqualTo("mine\n");
        } finally {
            Files.deleteIfExists(rootsFile);
        }
    }

    @Test
    void theAgentsStateAndCredentialAreItsAlone() throws Exception {
        AgentDirs dirs = AgentDirs.prepare(dir.resolve("work"));
        CredentialStore store = new CredentialStore(dirs.state());
        store.save(new CredentialStore.StoredCredential("http://controller", "node1", CREDENTIAL));
        assertThat(store.forController(URI.create("http://controller"))).isPresent();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dirs.state()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
        // the job's user, as a job would try: neither list the state nor read the credential
        Process cat = new ProcessBuilder("setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "--",
                "cat", store.file().toString()).redirectErrorStream(true).start();
        String said = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(cat.waitFor()).isNotZero();
        assertThat(said).doesNotContain(CREDENTIAL).contains("Permission denied");
    }

    private static Launch launch(String id, String stdout, String stderr) {
        return new Launch(id, Long.parseLong(id), null, "job", "alice", "root", "batch", null, "#!/bin/bash\n", null,
                Map.of(), stdout, stderr, 60, null, "node1", List.of("node1"), 1, 1, 1, 100, List.of());
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}
