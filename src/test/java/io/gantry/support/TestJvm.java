package io.gantry.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts {@code target/gantry.jar} in a process of its own (a controller, an agent or a
 * command), for the JVM running the tests. Tests start many of them on a machine of two cores, where a
 * controller's start-up is bound by CPU and the C2 compiler's threads take half of it: these processes live
 * for seconds to minutes and do little work each, so they run on the quick compiler alone and the serial
 * collector, as the commands {@code gantry cli install} writes do.
 */
public final class TestJvm {

    private static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private TestJvm() {
    }

    /** {@code java <options> -jar target/gantry.jar <args>}, modifiable. */
    public static List<String> gantry(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(OPTIONS);
        command.add("-jar");
        command.add(ControllerProcess.JAR.toAbsolutePath().toString());
        command.addAll(List.of(args));
        return command;
    }
}
