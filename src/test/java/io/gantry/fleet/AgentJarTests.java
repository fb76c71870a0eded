package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which jar the controller hands a new machine ({@code GET /api/v1/agents/gantry.jar}). */
class AgentJarTests {

    @TempDir
    Path dir;

    @Test
    void aPackagedJarRunsAloneButAnExtractedOneNeedsTheLibrariesBesideIt() throws IOException {
        assertThat(AgentController.selfContained(jar("packaged.jar", null))).isTrue();
        assertThat(AgentController.selfContained(jar("extracted.jar", "lib/spring-core-7.0.jar lib/jackson.jar")))
                .as("the jar -Djarmode=tools extract leaves").isFalse();
        Path notAJar = Files.writeString(dir.resolve("broken.jar"), "not a zip");
        assertThat(AgentController.selfContained(notAJar)).isFalse();
    }

    private Path jar(String name, String classPath) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.gantry.GantryApplication");
        if (classPath != null) {
            manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        Path jar = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(out, manifest)) {
            return jar;
        }
    }
}
