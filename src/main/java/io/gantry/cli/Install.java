package io.gantry.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import io.gantry.cli.CommandLine.Option;

/**
 * {@code cli install --prefix DIR}: writes {@code sbatch}, {@code squeue}, ... and {@code gantry} into DIR,
 * each a two-line sh script that runs this jar (by absolute path, with this Java) with its subcommand.
 */
final class Install {

    static final List<Option> OPTIONS = List.of(new Option("prefix", '\0', true), new Option("jar", '\0', true),
            new Option("java", '\0', true));

    /** A command line tool's JVM: C1 only and the serial collector start faster than the defaults for a short run. */
    static final String JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto";

    private final CliEnvironment env;

    Install(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        if (args.isEmpty() || !args.get(0).equals("install")) {
            env.err().println("usage: java -jar gantry.jar cli install --prefix DIR");
            return 2;
        }
        CommandLine line = CommandLine.parse(args.subList(1, args.size()), OPTIONS, false);
        if (!line.has("prefix")) {
            env.err().println("cli install: error: --prefix DIR is required (where to write the launchers)");
            return 2;
        }
        Path prefix = env.cwd().resolve(line.value("prefix")).toAbsolutePath().normalize();
        String jar = line.has("jar") ? line.value("jar") : System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0];
        Path jarPath = env.cwd().resolve(jar).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jarPath) || !jarPath.toString().endsWith(".jar")) {
            env.err().println("cli install: error: cannot tell which jar this is (" + jar + "): run it as java -jar "
                    + "gantry.jar cli install, or give --jar PATH");
            return 1;
        }
        String java = line.has("java") ? line.value("java")
                : ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> written = new ArrayList<>();
        try {
            Files.createDirectories(prefix);
            List<String> names = new ArrayList<>(Cli.COMMANDS);
            names.add("gantry");
            for (String name : names) {
                String sub = name.equals("gantry") ? "" : " " + name;
                String script = "#!/bin/sh\n# Written by 'java -jar gantry.jar cli install': Gantry's " + name + ".\n"
                        + "exec " + quote(java) + " " + JVM_OPTIONS + " -jar " + quote(jarPath.toString()) + sub + " \"$@\"\n";
                Path file = prefix.resolve(name);
                Files.writeString(file, script);
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
                written.add(name);
            }
        } catch (IOException e) {
            env.err().println("cli install: error: cannot write into " + prefix + ": " + e.getMessage());
            return 1;
        }
        env.out().println("Installed " + String.join(" ", written) + " into " + prefix);
        return 0;
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
