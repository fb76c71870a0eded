package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The jobs feature owns the {@code jobs} and {@code job_events} tables: accounting, fair share,
 * reports and the GPU ledger read them through its typed API ({@code JobHistory}, {@code JobUsage},
 * {@code ActiveJobs}). A scan of the production sources keeps it so, since SQL in strings is invisible
 * to ArchUnit: any string literal (or literals joined with {@code +}) naming those tables after FROM,
 * JOIN, UPDATE or INTO outside {@code io/gantry/jobs/} fails the build.
 */
class JobsTableOwnershipTests {

    private static final Path SOURCES = Path.of("src/main/java");
    private static final Path OWNER = SOURCES.resolve("io/gantry/jobs");
    static final Pattern NAMES_JOB_TABLES = Pattern.compile("(?i)\\b(from|join|update|into)\\s+(jobs|job_events)\\b");

    @Test
    void noSqlOutsideTheJobsPackageNamesTheJobsTables() throws IOException {
        List<String> offences = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                if (file.startsWith(OWNER)) {
                    continue;
                }
                for (String sql : offendingLiterals(Files.readString(file, StandardCharsets.UTF_8))) {
                    offences.add(SOURCES.relativize(file) + ": " + sql.strip().replaceAll("\\s+", " "));
                }
            }
        }
        assertThat(offences).as("SQL on the jobs tables outside io.gantry.jobs; ask the jobs feature's API instead")
                .isEmpty();
    }

    @Test
    void theScanFindsSqlInStringsAndTextBlocksButNotInComments() {
        String source = """
                class Sample {
                    // SELECT * FROM jobs in a comment is fine
                    /* and UPDATE jobs here too */
                    String a = "SELECT count(*) FROM jobs" + where;
                    String b = \"""
                            SELECT j.id
                              FROM reservations r JOIN jobs j ON j.reservation = r.name\""";
                    String c = "DELETE FROM " + "job_events WHERE id = ?";
                    String d = "no jobs here: \\"FROM jobs\\" is quoted text, still SQL-like";
                    char e = '"';
                    String f = "SELECT * FROM jobs_archive";
                }
                """;
        assertThat(offendingLiterals(source)).hasSize(4);
    }

    /** Each run of string literals joined by {@code +} that names a jobs table, in source order. */
    static List<String> offendingLiterals(String source) {
        List<String> found = new ArrayList<>();
        for (String run : literalRuns(source)) {
            if (NAMES_JOB_TABLES.matcher(run).find()) {
                found.add(run);
            }
        }
        return found;
    }

    /**
     * The string literals and text blocks of a Java source, comments and char literals skipped; literals
     * with only {@code +} and white space between them are joined into one run.
     */
    private static List<String> literalRuns(String s) {
        List<String> runs = new ArrayList<>();
        StringBuilder run = null;
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                i = s.indexOf('\n', i);
                i = i < 0 ? n : i;
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'') {
                i++;
                while (i < n && s.charAt(i) != '\'') {
                    i += s.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                run = flush(runs, run);
            } else if (c == '"') {
                StringBuilder literal = new StringBuilder();
                if (s.startsWith("\"\"\"", i)) {
                    i += 3;
                    while (i < n && !s.startsWith("\"\"\"", i)) {
                        if (s.charAt(i) == '\\' && i + 1 < n) {
                            literal.append(s.charAt(i + 1));
                            i += 2;
                        } else {
                            literal.append(s.charAt(i++));
                        }
                    }
                    i += 3;
                } else {
                    i++;
                    while (i < n && s.charAt(i) != '"') {
                        if (s.charAt(i) == '\\' && i + 1 < n) {
                            literal.append(s.charAt(i + 1));
                            i += 2;
                        } else {
                            literal.append(s.charAt(i++));
                        }
                    }
                    i++;
                }
                run = run == null ? literal : run.append(literal);
            } else if (c == '+' || Character.isWhitespace(c)) {
                i++;
            } else {
                run = flush(runs, run);
                i++;
            }
        }
        flush(runs, run);
        return runs;
    }

    private static StringBuilder flush(List<String> runs, StringBuilder run) {
        if (run != null) {
            runs.add(run.toString());
        }
        return null;
    }
}
