package io.gantry.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A corpus of command lines recorded from a live Slurm 22.05 (scripts/record-slurm-*-fixtures.sh), as
 * {@link CliCorpusTests} and {@link CliAccountingCorpusTests} replay it against Gantry's commands: one
 * {@code NN-name.txt} a line ({@code # command}, {@code # exit}, {@code # epoch second}, then
 * {@code --- stdout} and {@code --- stderr}), read in their recorded order.
 */
final class SlurmCorpus {

    private SlurmCorpus() {
    }

    record Fixture(String name, String command, int exit, Instant at, String stdout, String stderr) {
        @Override
        public String toString() {
            return name + ": " + command;
        }
    }

    record Result(int exit, String stdout, String stderr) {
    }

    /** The corpus directory at test resource {@code resource}. */
    static Path directory(String resource) {
        try {
            return Path.of(SlurmCorpus.class.getResource(resource).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every recorded line of the corpus in {@code corpus}, in the order it was recorded. */
    static List<Fixture> fixtures(Path corpus) throws IOException {
        try (Stream<Path> files = Files.list(corpus)) {
            List<Fixture> out = new ArrayList<>();
            for (Path file : files.filter(f -> f.toString().endsWith(".txt")).sorted().toList()) {
                String name = file.getFileName().toString().replaceAll("^\\d+-|\\.txt$", "");
                out.add(read(name, Files.readString(file)));
            }
            return out;
        }
    }

    private static Fixture read(String name, String text) {
        String[] lines = text.split("\n", -1);
        String command = lines[0].substring(2);
        int exit = Integer.parseInt(lines[1].substring(2));
        Instant at = Instant.ofEpochSecond(Long.parseLong(lines[2].substring(2)));
        int stdoutAt = text.indexOf("--- stdout\n") + "--- stdout\n".length();
        int stderrAt = text.indexOf("--- stderr\n");
        return new Fixture(name, command, exit, at, text.substring(stdoutAt, stderrAt),
                text.substring(stderrAt + "--- stderr\n".length()));
    }

    /** The shell words of a recorded line; {@code echo 'x' | cmd} feeds x to cmd's standard input. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == ' ') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    /** A recorded line as a shell runs it: the command's words and, for {@code echo x | cmd}, x as its input. */
    record CommandLine(List<String> words, String stdin) {

        static CommandLine parse(String line) {
            int pipe = line.indexOf(" | ");
            if (pipe < 0) {
                return new CommandLine(SlurmCorpus.words(line), "");
            }
            List<String> echo = SlurmCorpus.words(line.substring(0, pipe));
            return new CommandLine(SlurmCorpus.words(line.substring(pipe + 3)),
                    String.join(" ", echo.subList(1, echo.size())) + "\n");
        }
    }

    /**
     * Runs the command {@code words} in-process with {@code env}, {@code stdin} on its standard input, home and
     * working directory {@code dir}, the clock stopped at {@code at} (UTC) and {@code controller} as its controller.
     */
    static Result run(List<String> words, String stdin, Map<String, String> env, Path dir, Instant at,
            ControllerApi controller) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliEnvironment environment = new CliEnvironment(env, dir, dir,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(at, ZoneOffset.UTC), ZoneOffset.UTC, () -> controller);
        int exit = Cli.run(environment, words.get(0), words.subList(1, words.size()));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** What a line printed, as one text to compare: its exit code, standard output and standard error. */
    static String transcript(int exit, String stdout, String stderr) {
        return "exit " + exit + "\n" + stdout + "\n--- stderr\n" + stderr;
    }

    /** A line whose transcripts differ, both shown, for a failure message. */
    static String mismatch(String command, String slurm, String gantry) {
        return "$ " + command + "\n  Slurm:\n" + indent(slurm) + "\n  Gantry:\n" + indent(gantry);
    }

    private static String indent(String text) {
        return "    " + text.replace("\n", "\n    ");
    }
}
