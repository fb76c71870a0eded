package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corpus of Slurm 22.05's accounting commands ({@code sacctmgr}, {@code sshare}, {@code sprio},
 * {@code sreport}), recorded by {@code scripts/record-slurm-accounting-fixtures.sh} from a live Slurm with
 * slurmdbd: each command line runs against Gantry's commands with the same accounts, users, associations,
 * QOS, usage and pending jobs ({@link FakeAccounting} built from the recorded {@code *.state} files), in
 * the recorded order (the add, modify and delete lines change what the next lines print), and must print
 * the same with the same exit code. Job ids are placeholders ({J1}..) filled with six-digit ids.
 */
class CliAccountingCorpusTests {

    private static final Path CORPUS = corpus();

    @TempDir
    Path dir;

    private static Path corpus() {
        try {
            return Path.of(CliAccountingCorpusTests.class.getResource("/cli/slurm-22.05-accounting").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    record Fixture(String name, String command, int exit, Instant at, String stdout, String stderr) {
        @Override
        public String toString() {
            return name + ": " + command;
        }
    }

    static List<Fixture> fixtures() throws IOException {
        try (Stream<Path> files = Files.list(CORPUS)) {
            List<Fixture> out = new ArrayList<>();
            for (Path file : files.filter(f -> f.toString().endsWith(".txt")).sorted().toList()) {
                String name = file.getFileName().toString().replaceAll("^\\d+-|\\.txt$", "");
                String text = Files.readString(file);
                String[] lines = text.split("\n", -1);
                int stdoutAt = text.indexOf("--- stdout\n") + "--- stdout\n".length();
                int stderrAt = text.indexOf("--- stderr\n");
                out.add(new Fixture(name, lines[0].substring(2), Integer.parseInt(lines[1].substring(2)),
                        Instant.ofEpochSecond(Long.parseLong(lines[2].substring(2))), text.substring(stdoutAt, stderrAt),
                        text.substring(stderrAt + "--- stderr\n".length())));
            }
            return out;
        }
    }

    /** {J1}..{J9} as six-digit ids, the width the recorded ones had. */
    static String ids(String text) {
        return text.replaceAll("\\{J(\\d)\\}", "73450$1");
    }

    private static String normalized(String text) {
        return ids(text).stripTrailing();
    }

    /**
     * sshare prints associations in slurmctld's internal list order, which put a recently added user
     * association (bob's in chem) first, before the root, unindented because its account had not printed
     * yet. Gantry prints the tree in order; here such a line moves to just after its account's line, indented
     * one more than it. Every other line and column compares as recorded.
     */
    static String sshareInTreeOrder(String stdout) {
        List<String> lines = new ArrayList<>(List.of(stdout.split("\n", -1)));
        boolean parsable = lines.stream().anyMatch(l -> l.contains("|"));
        int firstRoot = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("root ") || lines.get(i).startsWith("root|")) {
                firstRoot = i;
                break;
            }
        }
        if (firstRoot < 0) {
            return stdout;
        }
        int start = firstRoot;
        while (start > 0 && !lines.get(start - 1).startsWith("----") && !lines.get(start - 1).startsWith("Account")) {
            start--;
        }
        List<String> orphans = new ArrayList<>(lines.subList(start, firstRoot));
        lines.subList(start, firstRoot).clear();
        for (String orphan : orphans) {
            String account = parsable ? orphan.substring(0, orphan.indexOf('|')) : orphan.substring(0, 20).strip();
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                String name = parsable ? (l.contains("|") ? l.substring(0, l.indexOf('|')) : "") : l.length() > 20
                        ? l.substring(0, 20) : l;
                String user = parsable ? (l.split("\\|", -1).length > 1 ? l.split("\\|", -1)[1] : "x")
                        : l.length() > 31 ? l.substring(21, 31).strip() : "x";
                if (name.strip().equals(account) && user.isEmpty()) {
                    int indent = name.length() - name.stripLeading().length() + 1;
                    String moved;
                    if (parsable) {
                        moved = " ".repeat(indent) + orphan;
                    } else {
                        String cell = " ".repeat(indent) + account;
                        moved = cell + " ".repeat(Math.max(0, 20 - cell.length())) + orphan.substring(20);
                    }
                    lines.add(i + 1, moved);
                    break;
                }
            }
        }
        return String.join("\n", lines);
    }

    record Result(int exit, String stdout, String stderr) {
    }

    private Result run(FakeAccounting controller, String line, Instant at) {
        String stdin = "";
        String commandLine = ids(line);
        int pipe = commandLine.indexOf(" | ");
        if (pipe > 0) {
            List<String> echo = CliCorpusTests.words(commandLine.substring(0, pipe));
            stdin = String.join(" ", echo.subList(1, echo.size())) + "\n";
            commandLine = commandLine.substring(pipe + 3);
        }
        List<String> words = new ArrayList<>(CliCorpusTests.words(commandLine));
        String user = "root";
        if (words.get(0).equals("runuser")) {
            user = words.get(2);
            words = new ArrayList<>(words.subList(4, words.size()));
        }
        controller.callAs(user);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliEnvironment env = new CliEnvironment(Map.of("USER", user, Sacctmgr.CLUSTER_ENV, "gantryacct"), dir, dir,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(at, ZoneOffset.UTC), ZoneOffset.UTC, () -> controller);
        int exit = Cli.run(env, words.get(0), words.subList(1, words.size()));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyRecordedAccountingCommandLinePrintsWhatSlurmPrinted() throws IOException {
        FakeAccounting controller = FakeAccounting.load(CORPUS);
        List<Fixture> fixtures = fixtures();
        assertThat(fixtures).as("the accounting corpus (at least 25 command lines)").hasSizeGreaterThanOrEqualTo(25);
        List<String> mismatches = new ArrayList<>();
        for (Fixture fixture : fixtures) {
            Result result = run(controller, fixture.command(), fixture.at());
            String stdout = fixture.name().startsWith("sshare") ? sshareInTreeOrder(fixture.stdout()) : fixture.stdout();
            String expected = "exit " + fixture.exit() + "\n" + normalized(stdout) + "\n--- stderr\n"
                    + normalized(fixture.stderr());
            String actual = "exit " + result.exit() + "\n" + normalized(result.stdout()) + "\n--- stderr\n"
                    + normalized(result.stderr());
            if (!expected.equals(actual)) {
                mismatches.add("$ " + ids(fixture.command()) + "\n  Slurm:\n" + indent(expected) + "\n  Gantry:\n"
                        + indent(actual));
            }
        }
        assertThat(mismatches).as("command lines whose output differs from Slurm 22.05's").isEmpty();
    }

    @Test
    void everyFixtureIsOneOfTheAccountingCommands() throws IOException {
        for (Fixture fixture : fixtures()) {
            assertThat(fixture.command()).matches("(echo \\w+ \\| |runuser -u \\w+ -- )?(sacctmgr|sshare|sprio|sreport)( .*)?");
        }
    }

    @Test
    void aUserLinePrintedBeforeItsAccountMovesUnderIt() {
        String slurm = "Account|User|RawShares\nchem|bob|1\nroot||\n root|root|1\n chem||10\n physics||30";
        assertThat(sshareInTreeOrder(slurm))
                .isEqualTo("Account|User|RawShares\nroot||\n root|root|1\n chem||10\n  chem|bob|1\n physics||30");
    }

    private static String indent(String text) {
        return "    " + text.replace("\n", "\n    ");
    }
}
