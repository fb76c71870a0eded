package io.gantry.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the reference Slurm 22.05 with slurmdbd printed in the scenarios of the account-tree limits, budgets
 * and preemption, recorded by {@code scripts/record-slurm-limits-fixtures.sh} under
 * {@code src/test/resources/cli/slurm-22.05-limits/}: the integration tests of the same scenarios check that
 * Gantry answers as it did. A scenario's file holds {@code # } notes and {@code $ } command lines, each
 * followed by what it printed; job ids are placeholders {@code {J1}}...
 */
public final class SlurmReference {

    private SlurmReference() {
    }

    /** What the first command line of {@code scenario} starting with {@code commandPrefix} printed, line by line. */
    public static List<String> output(String scenario, String commandPrefix) {
        List<String> lines = lines(scenario);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("$ " + commandPrefix)) {
                List<String> out = new ArrayList<>();
                for (int k = i + 1; k < lines.size() && !lines.get(k).startsWith("$ ") && !lines.get(k).startsWith("# "); k++) {
                    out.add(lines.get(k));
                }
                return out;
            }
        }
        throw new IllegalArgumentException("the reference recording " + scenario + " has no line starting $ " + commandPrefix);
    }

    /** The number at the end of the note of {@code scenario} starting with {@code notePrefix}. */
    public static long noted(String scenario, String notePrefix) {
        for (String line : lines(scenario)) {
            if (line.startsWith("# " + notePrefix)) {
                return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new IllegalArgumentException("the reference recording " + scenario + " has no note " + notePrefix);
    }

    private static List<String> lines(String scenario) {
        String name = "/cli/slurm-22.05-limits/" + scenario + ".txt";
        try (InputStream in = SlurmReference.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no reference recording " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
