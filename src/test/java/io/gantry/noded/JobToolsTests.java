package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobToolsTests {

    @TempDir
    Path dir;

    @Test
    void theSrunScriptRunsTheAgentsJarWhenItRunsFromOne() throws IOException {
        JobTools.install(dir, "/opt/java/bin/java", "/opt/gantry/gantry.jar");
        assertThat(Files.readString(dir.resolve("srun"))).startsWith("#!/bin/sh\nexec '/opt/java/bin/java' ")
                .endsWith(" -jar '/opt/gantry/gantry.jar' srun \"$@\"\n");
        assertThat(Files.readString(dir.resolve("gantry"))).contains("-jar '/opt/gantry/gantry.jar' \"$@\"");
        assertThat(JobTools.quote("it's")).isEqualTo("'it'\\''s'");
    }
}
