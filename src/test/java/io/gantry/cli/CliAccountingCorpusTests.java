package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.cli.SlurmCorpus.CommandLine;
import io.gantry.cli.SlurmCorpus.Fixture;
import io.gantry.cli.SlurmCorpus.Result;

/**
 * The corpus of Slurm 22.05's accounting commands ({@code sacctmgr}, {@code sshare}, {@code sprio},
 * {@code sreport}), recorded by {@code scripts/record-slurm-accounting-fixtures.sh} from a live Slurm with
 * slurmdbd: each command line runs against Gantry's commands with the same accounts, users, associations,
 * QOS, usage and pending jobs ({@link FakeAccounting} built from the recorded {@code *.state} files), in
 * the recorded order (the add, modify and delete lines change what the next lines print), and must print
 * the same with the same exit code. Job ids are placeholders ({J1}..) filled with six-digit ids.
 */
class CliAccountingCorpusTests {

    private static final Path CORPUS = SlurmCorpus.directory("/cli/slurm-22.05-accounting");

    @TempDir
    Path dir;

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

    private Result run(FakeAccounting controller, String line, Instant at) {
        CommandLine commandLine = CommandLine.parse(ids(line));
        List<String> words = commandLine.words();
        String user = "root";
        if (words.get(0).equals("runuser")) {
            user = words.get(2);
            words = words.subList(4, words.size());
        }
        controller.callAs(user);
        return SlurmCorpus.run(words, commandLine.stdin(), Map.of("USER", user, Sacctmgr.CLUSTER_ENV, "gantryacct"), dir,
                at, controller);
    }

    @Test
    void everyRecordedAccountingCommandLinePrintsWhatSlurmPrinted() throws IOException {
        FakeAccounting controller = FakeAccounting.load(CORPUS);
        List<Fixture> fixtures = SlurmCorpus.fixtures(CORPUS);
        assertThat(fixtures).as("the accounting corpus (at least 25 command lines)").hasSizeGreaterThanOrEqualTo(25);
        List<String> mismatches = new ArrayList<>();
        for (Fixture fixture : fixtures) {
            Result result = run(controller, fixture.command(), fixture.at());
            String stdout = fixture.name().startsWith("sshare") ? sshareInTreeOrder(fixture.stdout()) : fixture.stdout();
            String expected = SlurmCorpus.transcript(fixture.exit(), normalized(stdout), normalized(fixture.stderr()));
            String actual = SlurmCorpus.transcript(result.exit(), normalized(result.stdout()), normalized(result.stderr()));
            if (!expected.equals(actual)) {
                mismatches.add(SlurmCorpus.mismatch(ids(fixture.command()), expected, actual));
            }
        }
        assertThat(mismatches).as("command lines whose output differs from Slurm 22.05's").isEmpty();
    }

    @Test
    void everyFixtureIsOneOfTheAccountingCommands() throws IOException {
        for (Fixture fixture : SlurmCorpus.fixtures(CORPUS)) {
            assertThat(fixture.command()).matches("(echo \\w+ \\| |runuser -u \\w+ -- )?(sacctmgr|sshare|sprio|sreport)( .*)?");
        }
    }

    @Test
    void aUserLinePrintedBeforeItsAccountMovesUnderIt() {
        String slurm = "Account|User|RawShares\nchem|bob|1\nroot||\n root|root|1\n chem||10\n physics||30";
        assertThat(sshareInTreeOrder(slurm))
                .isEqualTo("Account|User|RawShares\nroot||\n root|root|1\n chem||10\n  chem|bob|1\n physics||30");
    }
}
