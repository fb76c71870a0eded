package io.gantry.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command line that starts {@code target/gantry.jar} in a process of its own (a controller, an agent or a
 * command), for the JVM running the tests. Tests start many of them on a machine of two cores, where a
 * controller's start-up is bound by CPU and the C2 compiler's threads take half of it: these processes live
 * for seconds to minutes and do little work each, so they run on the quick compiler alone and the serial
 * collector, as the commands {@code gantry cli install} writes do.
 * <p>
 * They also share the classes they load through a CDS archive, as {@code gantry cli install}'s commands do: the
 * jar is extracted once per build ({@code java -Djarmode=tools -jar gantry.jar extract}, Spring Boot's layout
 * for it), one controller start records the archive, and every process after maps it instead of loading and
 * verifying the same classes again. That is the same code on the same class path, started from the extracted
 * jar; {@link #packaged} is the jar itself, for the tests that check what a user downloads or runs.
 */
public final class TestJvm {

    private static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    private static final Path CDS_DIR = Path.of("target", "gantry-cds");
    private static final Object LOCK = new Object();
    /** The extracted jar and its archive, once made for the jar as it is now; null until then. */
    private static Shared shared;

    private record Shared(String stamp, Path jar, Path archive) {
    }

    private TestJvm() {
    }

    /** {@code java <options> <the shared archive> -jar <the extracted gantry.jar> <args>}, modifiable. */
    public static List<String> gantry(String... args) {
        Shared s = shared();
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(OPTIONS);
        command.add("-XX:SharedArchiveFile=" + s.archive().toAbsolutePath());
        // a class path the archive does not match is told on stdout, which commands' output must not carry
        command.add("-Xlog:cds=off,cds+dynamic=off");
        command.add("-jar");
        command.add(s.jar().toAbsolutePath().toString());
        command.addAll(List.of(args));
        return command;
    }

    /** {@code java <options> -jar target/gantry.jar <args>}: the packaged jar as users run and download it. */
    public static List<String> packaged(String... args) {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(OPTIONS);
        command.add("-jar");
        command.add(ControllerProcess.JAR.toAbsolutePath().toString());
        command.addAll(List.of(args));
        return command;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The extracted jar and its archive for the jar as it is now, made by the first caller (the others wait):
     * a rebuilt jar gets new ones. An archive that cannot be recorded leaves none, and processes start as
     * they would without it (CDS maps what it can).
     */
    private static Shared shared() {
        synchronized (LOCK) {
            try {
                Path jar = ControllerProcess.JAR;
                if (!Files.exists(jar)) {
                    throw new IllegalStateException(jar + " is missing: run ./mvnw verify so the jar is packaged first");
                }
                String stamp = Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis();
                if (shared != null && shared.stamp().equals(stamp)) {
                    return shared;
                }
                Path dir = CDS_DIR.resolve(stamp);
                Path extracted = dir.resolve("app").resolve("gantry.jar");
                Path archive = dir.resolve("gantry.jsa");
                if (!Files.exists(archive)) {
                    deleteRecursively(CDS_DIR);
                    Files.createDirectories(dir);
                    run(dir.resolve("extract.log"), List.of(java(), "-Djarmode=tools", "-jar", jar.toAbsolutePath().toString(),
                            "extract", "--destination", dir.resolve("app").toAbsolutePath().toString()));
                    record(dir, extracted, archive);
                }
                shared = new Shared(stamp, extracted, archive);
                return shared;
            } catch (IOException e) {
                throw new IllegalStateException("cannot extract " + ControllerProcess.JAR + " for the tests' processes", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** One controller start on the embedded defaults, until its context is up, records the classes it loaded. */
    private static void record(Path dir, Path extracted, Path archive) throws IOException, InterruptedException {
        Path data = Files.createDirectories(dir.resolve("recording-data"));
        List<String> command = new ArrayList<>(List.of(java()));
        command.addAll(OPTIONS);
        command.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive.toAbsolutePath(), "-Dspring.context.exit=onRefresh",
                "-jar", extracted.toAbsolutePath().toString(), "--server.port=0",
                "--gantry.data-dir=" + data.toAbsolutePath()));
        run(dir.resolve("record.log"), command);
        deleteRecursively(data);
    }

    private static void run(Path log, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end in 5 minutes; see " + log);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue() + ":\n"
                    + Files.readString(log));
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
