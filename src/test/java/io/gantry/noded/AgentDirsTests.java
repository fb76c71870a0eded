package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's state stays its own: {@code state/} and {@code state/jobs/} are 0700 and what is in
 * them is made 0600 on every start, a stale credential left at the top of the work dir is no longer
 * readable by others, and a {@code state/} that is a link (to somewhere jobs reach) is refused
 * instead of followed.
 */
class AgentDirsTests {

    @TempDir
    Path dir;

    @Test
    void theStateIsTheAgentsAloneOnEveryStart() throws Exception {
        Path work = dir.resolve("work");
        AgentDirs first = AgentDirs.prepare(work);
        // what an older agent (or a loose umask) left: readable by everyone
        Path launch = Files.writeString(first.launchRecord("5"), "{\"script\":\"secret\"}");
        Files.setPosixFilePermissions(launch, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(first.state(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path stale = Files.writeString(work.resolve("credential.json"), "{\"credential\":\"old\"}");
        Files.setPosixFilePermissions(stale, PosixFilePermissions.fromString("rw-r--r--"));
        new CredentialStore(first.state()).save(new CredentialStore.StoredCredential("http://c", "node1", "new"));

        AgentDirs dirs = AgentDirs.prepare(work);
        assertThat(mode(dirs.root())).isEqualTo("rwx--x--x");
        assertThat(mode(dirs.state())).isEqualTo("rwx------");
        assertThat(mode(dirs.processRecords())).isEqualTo("rwx------");
        assertThat(mode(launch)).isEqualTo("rw-------");
        assertThat(mode(dirs.state().resolve("credential.json"))).isEqualTo("rw-------");
        assertThat(mode(stale)).as("a stale copy at the top of the passable work dir").isEqualTo("rw-------");
    }

    @Test
    void aStateThatIsALinkIsRefusedNotFollowed() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.createSymbolicLink(work.resolve("state"), elsewhere);
        assertThatThrownBy(() -> AgentDirs.prepare(work)).isInstanceOf(UncheckedIOException.class)
                .hasStackTraceContaining("is not a directory");
        assertThat(mode(elsewhere)).as("the link's target was left alone").isEqualTo("rwxrwxrwx");
    }

    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }
}
