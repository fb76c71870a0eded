package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ClassPathResource;

/**
 * The embedded store's files are its owner's alone: the data directory 0700 before H2 creates it,
 * the H2 database 0600, no trace file quoting SQL, and an older, wider directory tightened.
 */
class PrivateDataDirectoryTests {

    @TempDir
    Path temp;

    @BeforeEach
    void posixOnly() {
        assumeTrue(Files.getFileAttributeView(temp, PosixFileAttributeView.class) != null, "needs POSIX permissions");
    }

    @Test
    void theEmbeddedStoreIsCreatedOwnerOnlyAndWritesNoTraceFile() throws Exception {
        Path dataDir = temp.resolve("data");
        StandardEnvironment environment = environment(dataDir);
        PrivateDataDirectory directory = new PrivateDataDirectory();
        directory.setEnvironment(environment);

        directory.postProcessBeanFactory(null);
        assertThat(mode(dataDir)).isEqualTo("rwx------");

        // The controller's own H2 URL, from application.yml, as the datasource opens it.
        String url = environment.resolvePlaceholders(environment.getProperty("spring.datasource.url"));
        assertThat(url).contains("TRACE_LEVEL_FILE=0");
        try (Connection h2 = DriverManager.getConnection(url, "sa", "");
                Statement sql = h2.createStatement()) {
            sql.execute("CREATE TABLE jobs (script VARCHAR(8))");
            assertThatThrownBy(() -> sql.execute("INSERT INTO jobs VALUES ('export AWS_SECRET_ACCESS_KEY=x')"))
                    .isInstanceOf(SQLException.class);
        }
        directory.onApplicationEvent(null);

        assertThat(mode(dataDir.resolve("gantry.mv.db"))).isEqualTo("rw-------");
        assertThat(dataDir.resolve("gantry.trace.db")).doesNotExist();
        try (var files = Files.list(dataDir)) {
            assertThat(files).allSatisfy(file -> assertThat(mode(file)).as(file.toString()).endsWith("------"));
        }
    }

    @Test
    void aDirectoryLeftReadableByOthersIsTightened() throws Exception {
        Path dataDir = Files.createDirectory(temp.resolve("old"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path db = Files.createFile(dataDir.resolve("gantry.mv.db"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        Path script = Files.createFile(dataDir.resolve("tool.sh"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxr-x")));
        PrivateDataDirectory directory = new PrivateDataDirectory();
        directory.setEnvironment(environment(dataDir));

        directory.postProcessBeanFactory(null);

        assertThat(mode(dataDir)).isEqualTo("rwx------");
        assertThat(mode(db)).isEqualTo("rw-------");
        assertThat(mode(script)).as("only group and others lose permissions").isEqualTo("rwx------");
    }

    private static StandardEnvironment environment(Path dataDir) throws Exception {
        StandardEnvironment environment = new StandardEnvironment();
        new YamlPropertySourceLoader().load("application", new ClassPathResource("application.yml"))
                .forEach(environment.getPropertySources()::addFirst);
        environment.getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("gantry.data-dir", dataDir.toString())));
        return environment;
    }

    private static String mode(Path path) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
