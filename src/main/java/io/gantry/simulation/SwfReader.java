package io.gantry.simulation;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** Reads SWF traces, plain or gzip (recognised by content, not by name). */
public final class SwfReader {

    /** The jobs kept, and how many records were skipped for a run time or processor count that is not positive. */
    public record Trace(List<SwfJob> jobs, int skipped) {
    }

    private SwfReader() {
    }

    /** Reads at most {@code maxJobs} usable jobs (0 = all), sorted by submit time then id. */
    public static Trace read(Path file, int maxJobs) throws IOException {
        try (InputStream in = open(file)) {
            return read(in, maxJobs);
        }
    }

    public static Trace read(InputStream in, int maxJobs) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
        List<SwfJob> jobs = new ArrayList<>();
        int skipped = 0;
        String line;
        int lineNo = 0;
        while ((line = reader.readLine()) != null && (maxJobs <= 0 || jobs.size() < maxJobs)) {
            lineNo++;
            String trimmed = line.trim();
            if (trimmed.isEmpty() || trimmed.startsWith(";")) {
                continue;
            }
            String[] f = fields(trimmed);
            if (f.length < 9) {
                throw new IOException("line " + lineNo + ": an SWF record has 18 fields, found " + f.length);
            }
            try {
                long id = Long.parseLong(f[0]);
                long submit = Long.parseLong(f[1]);
                long run = Long.parseLong(f[3]);
                long allocated = Long.parseLong(f[4]);
                long requested = Long.parseLong(f[7]);
                long reqTime = (long) Double.parseDouble(f[8]);
                long user = f.length > 11 ? Long.parseLong(f[11]) : -1;
                long procs = requested > 0 ? requested : allocated;
                if (run <= 0 || procs <= 0) {
                    skipped++;
                    continue;
                }
                long limit = reqTime >= run ? reqTime : run;
                jobs.add(new SwfJob(id, submit, run, Math.toIntExact(procs), limit, user));
            } catch (NumberFormatException e) {
                throw new IOException("line " + lineNo + ": not a number in an SWF record: " + trimmed, e);
            }
        }
        jobs.sort(Comparator.comparingLong(SwfJob::submit).thenComparingLong(SwfJob::id));
        return new Trace(List.copyOf(jobs), skipped);
    }

    /**
     * The whitespace-separated fields of a trimmed line, as {@code split("\\s+")} gives them: a regex split
     * of each of a 240,000-record trace's lines was a third of reading it.
     */
    static String[] fields(String trimmed) {
        List<String> out = new ArrayList<>(18);
        int i = 0;
        int n = trimmed.length();
        while (i < n) {
            int start = i;
            while (i < n && !isSpace(trimmed.charAt(i))) {
                i++;
            }
            out.add(trimmed.substring(start, i));
            while (i < n && isSpace(trimmed.charAt(i))) {
                i++;
            }
        }
        return out.toArray(new String[0]);
    }

    /** What the regex {@code \\s} matches. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    private static InputStream open(Path file) throws IOException {
        PushbackInputStream in = new PushbackInputStream(Files.newInputStream(file), 2);
        byte[] magic = new byte[2];
        int n = in.readNBytes(magic, 0, 2);
        if (n > 0) {
            in.unread(magic, 0, n);
        }
        if (n == 2 && (magic[0] & 0xFF) == 0x1F && (magic[1] & 0xFF) == 0x8B) {
            return new GZIPInputStream(in, 1 << 16);
        }
        return in;
    }
}
