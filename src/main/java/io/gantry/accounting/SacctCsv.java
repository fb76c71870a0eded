package io.gantry.accounting;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * The CSV form of {@code GET /accounting/jobs} (what {@code sacct -P} is to sacct): a header line, then
 * one line per job, RFC 4180 quoting (fields with a comma, quote or line break are quoted, quotes doubled)
 * and CRLF line ends. The header is the JSON field names, so both forms read the same; a value not known
 * (MaxRSS of a job still running, say) is an empty field, as in {@code sacct -P}.
 */
final class SacctCsv {

    static final List<String> HEADER = List.of("jobId", "name", "user", "account", "partition", "qos", "state",
            "exitCode", "submitTime", "startTime", "endTime", "elapsedSeconds", "timeLimitSeconds", "allocTres",
            "cpuSeconds", "gpuSeconds", "nodeList", "maxRssBytes", "maxRss", "totalCpuMillis", "totalCpu", "borrowed",
            "reclaimedAt", "reclaimedFor", "containerImage", "containerImageDigest");

    private SacctCsv() {
    }

    static void writeHeader(Writer out) throws IOException {
        writeLine(out, HEADER);
    }

    static void writeRow(Writer out, JobAccountingRecord r) throws IOException {
        writeLine(out, java.util.Arrays.asList(r.jobId(), r.name(), r.user(), r.account(), r.partition(), r.qos(),
                r.state(), r.exitCode(), r.submitTime(), r.startTime(), r.endTime(), r.elapsedSeconds(),
                r.timeLimitSeconds(), r.allocTres(), r.cpuSeconds(), r.gpuSeconds(), r.nodeList(), r.maxRssBytes(),
                r.maxRss(), r.totalCpuMillis(), r.totalCpu(), r.borrowed(), r.reclaimedAt(), r.reclaimedFor(),
                r.containerImage(), r.containerImageDigest()));
    }

    static void writeLine(Writer out, List<?> fields) throws IOException {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            Object field = fields.get(i);
            if (field != null) {
                out.write(quote(field.toString()));
            }
        }
        out.write("\r\n");
    }

    /** A field as RFC 4180 writes it: as is, or in double quotes with inner quotes doubled. */
    static String quote(String field) {
        boolean needsQuotes = false;
        for (int i = 0; i < field.length() && !needsQuotes; i++) {
            char c = field.charAt(i);
            needsQuotes = c == ',' || c == '"' || c == '\r' || c == '\n';
        }
        return needsQuotes ? '"' + field.replace("\"", "\"\"") + '"' : field;
    }
}
