package io.gantry.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.gantry.cli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/**
 * {@code sprio}: pending jobs' priority factors from {@code GET /api/v1/priority}, in Slurm 22.05's layouts
 * (weighted, {@code -n} normalized, {@code -l} long, {@code -w} the weights, {@code -o} formats). Gantry's
 * short-job and expansion factors have no sprio column: they are in the priority, not printed apart.
 */
final class Sprio {

    static final List<Option> OPTIONS = List.of(new Option("noheader", 'h', false), new Option("jobs", 'j', true),
            new Option("long", 'l', false), new Option("cluster", 'M', true), new Option("clusters", 'M', true),
            new Option("norm", 'n', false), new Option("format", 'o', true), new Option("sort", 'S', true),
            new Option("partition", 'p', true), new Option("user", 'u', true), new Option("users", 'u', true),
            new Option("verbose", 'v', false), new Option("version", 'V', false), new Option("weights", 'w', false),
            new Option("federation", '\0', false), new Option("help", '\0', false), new Option("local", '\0', false),
            new Option("sibling", '\0', false), new Option("usage", '\0', false));

    private static final Pattern FIELD = Pattern.compile("%(\\.)?(\\d+)?([a-zA-Z])");
    private static final double MAX_PRIORITY = 4294967295.0;

    private final CliEnvironment env;

    Sprio(CliEnvironment env) {
        this.env = env;
    }

    /** A row to print: a job, the header (null job, header true) or the weights (null job). */
    private record Row(JsonNode job, JsonNode weights, boolean header) {
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        if (line.has("help") || line.has("usage")) {
            env.out().println("Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions] [--usage] "
                    + "[-hlnvVw]");
            return 0;
        }
        ControllerApi api = env.api().get();
        List<String> users = line.list("user");
        StringBuilder path = new StringBuilder("/api/v1/priority");
        if (users.size() == 1) {
            path.append("?user=").append(HttpControllerApi.encode(users.get(0)));
        }
        JsonNode answer = api.get(path.toString());
        JsonNode weights = answer == null ? null : answer.get("weights");
        List<JsonNode> jobs = new ArrayList<>();
        if (answer != null && answer.has("jobs")) {
            answer.get("jobs").forEach(jobs::add);
        }
        List<String> ids = line.list("jobs");
        List<String> partitions = line.list("partition");
        jobs.removeIf(j -> !ids.isEmpty() && !ids.contains(j.path("jobId").asString())
                || !users.isEmpty() && !users.contains(SlurmText.text(j, "user", ""))
                || !partitions.isEmpty() && !partitions.contains(SlurmText.text(j, "partition", "")));
        jobs.sort(Comparator.comparingLong(Sprio::numericId).thenComparing(j -> j.path("jobId").asString()));

        String format = line.value("format");
        if (format == null) {
            format = defaultFormat(line.has("norm"), line.has("long"), !users.isEmpty(), weights);
        }
        if (line.has("jobs") && jobs.isEmpty()) {
            env.out().println("Unable to find jobs matching user/id(s) specified");
            return 0;
        }
        if (!line.has("noheader")) {
            env.out().println(render(format, new Row(null, weights, true)));
        }
        if (line.has("weights")) {
            env.out().println(render(format, new Row(null, weights, false)));
            return 0;
        }
        for (JsonNode job : jobs) {
            env.out().println(render(format, new Row(job, weights, false)));
        }
        return 0;
    }

    private static long numericId(JsonNode job) {
        String id = job.path("jobId").asString("");
        String digits = id.replaceAll("[^0-9].*$", "");
        return digits.isEmpty() ? Long.MAX_VALUE : Long.parseLong(digits);
    }

    private static double weight(JsonNode weights, String factor) {
        return weights == null ? 0 : weights.path(factor).asDouble();
    }

    /** sprio's default formats: a factor's column only when its weight is set, as sprio builds them. */
    private static String defaultFormat(boolean norm, boolean longList, boolean users, JsonNode weights) {
        if (norm && longList) {
            return "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t";
        }
        if (longList) {
            return "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";
        }
        StringBuilder f = new StringBuilder("%.15i %9r");
        if (users) {
            f.append(" %.8u");
        }
        f.append(norm ? " %10y" : " %.10Y %.10S");
        String[][] factors = { { "age", "a" }, { "fairShare", "f" }, { "jobSize", "j" }, { "partition", "p" },
                { "qos", "q" } };
        for (String[] factor : factors) {
            if (weight(weights, factor[0]) != 0) {
                f.append(norm ? " %10" + factor[1] : " %.10" + factor[1].toUpperCase(Locale.ROOT));
            }
        }
        return f.toString();
    }

    private String render(String format, Row row) {
        StringBuilder out = new StringBuilder();
        Matcher m = FIELD.matcher(format);
        int last = 0;
        while (m.find()) {
            out.append(format, last, m.start());
            boolean right = m.group(1) != null;
            int width = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
            out.append(cell(value(m.group(3).charAt(0), row), width, right));
            last = m.end();
        }
        out.append(format.substring(last));
        return out.toString();
    }

    /** sprio's _print_str: right-justified or left, cut to the width, padded with spaces. */
    private static String cell(String value, int width, boolean right) {
        if (width == 0) {
            return value;
        }
        String cut = value.length() > width ? value.substring(0, width) : value;
        String pad = " ".repeat(width - cut.length());
        return right ? pad + cut : cut + pad;
    }

    private static String header(char letter) {
        return switch (letter) {
            case 'a', 'A' -> "AGE";
            case 'b', 'B' -> "ASSOC";
            case 'c' -> "CLUSTER";
            case 'f', 'F' -> "FAIRSHARE";
            case 'i' -> "JOBID";
            case 'j', 'J' -> "JOBSIZE";
            case 'N' -> "NICE";
            case 'p', 'P', 'r' -> "PARTITION";
            case 'S' -> "SITE";
            case 'q', 'Q' -> "QOS";
            case 'u' -> "USER";
            case 'y', 'Y' -> "PRIORITY";
            case 't', 'T' -> "TRES";
            default -> "";
        };
    }

    private static String factorName(char letter) {
        return switch (Character.toLowerCase(letter)) {
            case 'a' -> "age";
            case 'f' -> "fairShare";
            case 'j' -> "jobSize";
            case 'p' -> "partition";
            case 'q' -> "qos";
            default -> null;
        };
    }

    private static String whole(double value) {
        return String.format(Locale.ROOT, "%.0f", value);
    }

    private static String norm(double value) {
        return String.format(Locale.ROOT, "%.7f", value);
    }

    private String value(char letter, Row row) {
        if (row.header()) {
            return header(letter);
        }
        JsonNode job = row.job();
        if (job == null) {
            // The weights line.
            return switch (letter) {
                case 'i' -> "Weights";
                case 'S' -> "1";
                case 'a', 'A', 'f', 'F', 'j', 'J', 'p', 'P', 'q', 'Q' -> whole(weight(row.weights(), factorName(letter)));
                case 'b', 'B' -> "0";
                case 'c' -> Sacctmgr.cluster(env);
                case 't', 'T' -> row.weights() == null ? "" : row.weights().path("tres").asString("");
                default -> "";
            };
        }
        return switch (letter) {
            case 'i' -> job.path("jobId").asString();
            case 'r' -> SlurmText.text(job, "partition", "");
            case 'u' -> SlurmText.text(job, "user", "");
            case 'c' -> Sacctmgr.cluster(env);
            case 'Y' -> Long.toString(job.path("priority").asLong());
            case 'y' -> String.format(Locale.ROOT, "%16.14f", job.path("priority").asLong() / MAX_PRIORITY);
            case 'S', 'B' -> "0";
            case 'b' -> norm(0);
            case 'N' -> Integer.toString(job.path("nice").asInt());
            case 't', 'T' -> job.path(letter == 't' ? "factors" : "weighted").path("tres").asString("");
            case 'A', 'F', 'J', 'P', 'Q' -> whole(job.path("weighted").path(factorName(letter)).asDouble());
            case 'a', 'f', 'j', 'p', 'q' -> norm(job.path("factors").path(factorName(letter)).asDouble());
            default -> "";
        };
    }
}
