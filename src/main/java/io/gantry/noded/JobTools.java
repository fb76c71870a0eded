package io.gantry.noded;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The commands the agent offers the jobs of its node, written into its {@code bin/} (first on every
 * job's PATH): {@code srun}, and {@code gantry} for {@code gantry srun}. Each starts a small JVM on
 * the very code the agent runs: the jar it was started from ({@code java -jar}, whose entry point
 * dispatches {@code srun} before anything else starts), or, from a build tree, its class path. The
 * job's owner must be able to read that jar.
 */
final class JobTools {

    /**
     * A quick start and a bounded heap, the same on any node: srun only relays its step's output, and
     * a heap sized from the node's memory would be far too much on a large node.
     */
    private static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Xss512k", "-Xmx256m");

    private JobTools() {
    }

    /** Writes {@code srun} and {@code gantry} into {@code bin}, for the JVM and class path running now. */
    static void install(Path bin) throws IOException {
        install(bin, Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                System.getProperty("java.class.path"));
    }

    static void install(Path bin, String java, String classPath) throws IOException {
        String start = "exec " + quote(java) + " " + String.join(" ", JVM_OPTIONS) + " ";
        String srun;
        String gantrySrun;
        if (classPath.endsWith(".jar") && !classPath.contains(File.pathSeparator)) {
            String jar = quote(Path.of(classPath).toAbsolutePath().normalize().toString());
            srun = start + "-jar " + jar + " srun \"$@\"";
            gantrySrun = start + "-jar " + jar + " \"$@\"";
        } else {
            String cp = quote(String.join(File.pathSeparator, List.of(classPath.split(File.pathSeparator)).stream()
                    .map(p -> Path.of(p).toAbsolutePath().normalize().toString()).toList()));
            srun = start + "-cp " + cp + " io.gantry.cli.srun.Srun \"$@\"";
            gantrySrun = "shift\n  " + srun;
        }
        write(bin.resolve("srun"), "#!/bin/sh\n" + srun + "\n");
        write(bin.resolve("gantry"), """
                #!/bin/sh
                case "$1" in
                srun)
                  %s
                  ;;
                *)
                  echo "gantry: inside a job only 'gantry srun' is available" >&2
                  exit 2
                  ;;
                esac
                """.formatted(gantrySrun));
    }

    private static void write(Path file, String content) throws IOException {
        Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.writeString(temp, content, StandardCharsets.UTF_8);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** {@code s} as one shell word. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
