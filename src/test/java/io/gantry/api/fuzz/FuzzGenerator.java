package io.gantry.api.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import io.gantry.api.fuzz.FuzzJson.Raw;
import io.gantry.api.fuzz.OpenApiOperations.Operation;
import io.gantry.api.fuzz.OpenApiOperations.Parameter;

/**
 * Makes request number {@code n} of a seeded fuzz run from the OpenAPI document alone: any operation,
 * as any identity, with parameters and a body derived from their schemas and then spoiled (wrong
 * types, extremes, huge and odd strings, nulls in maps and lists, bad percent escapes, broken JSON).
 * Request {@code n} depends only on the seed and {@code n}, so one failing request can be sent again
 * by itself, whatever order a concurrent run sent the others in.
 */
public final class FuzzGenerator {

    /** Who sends a request: a name for the report and its Authorization header value (null: none). */
    public record Identity(String name, String authorization, int weight) {
    }

    private static final String[] ODD_STRINGS = {"", " ", "null", "-1", "0", "NaN", "true", "9223372036854775808",
        "\u202Egnirts\u202C", "\u05e9\u05dc\u05d5\u05dd", "\ud83d\ude00\ud83d\ude80", "a\u0000b", "\u0000", "\ud800",
        "\udc00x", "\ufeff", "\uffff", "../../../etc/passwd", "'; DROP TABLE jobs; --", "%zz", "%", "%00",
        "${jndi:ldap://example.invalid/a}", "<script>alert(1)</script>", "line\r\nX-Injected: 1", "x[1-100000]",
        "gpu[001-016]", "cpu[001-008]", "x[1-9999999999]", "x[5-1]", "[", "a,b,,c", "*", "ALL", "NONE", "root",
        "now+31556889864403199", "now+1000000000years", "+1000000000-01-01T00:00:00Z", "-999999999-01-01T00:00:00Z",
        "0000-00-00", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "2026-13-45T99:99:99Z", "P1000000000Y",
        "PT-1S", "afterok:99999999999999999999", "afterok:1?afterany:2", "singleton", "0-99999999999", "0-4%0",
        "1-2:0", "gres/gpu=99999999999999999999", "cpu=-1,mem=1", "gpu:h100:9999999999", "h100&ib|(", "1:00:00",
        "99999999999:00:00", "UNLIMITED", "-1-00:00:00", "B:USR1@99999999999", "SIGKILL", "0777", "7777", "%j%A%x",
        "/dev/null", "~/x", "\\\\server\\share", "DRAIN", "IDLE", "RESUME", "-state", "+-", "name,-user"};

    private static final String[] SBATCH_OPTIONS = {"-N", "--nodes", "-n", "--ntasks", "-c", "--cpus-per-task",
        "--ntasks-per-node", "--mem", "--mem-per-cpu", "--mem-per-gpu", "-G", "--gpus", "--gres", "--gpus-per-node",
        "--gpus-per-task", "--cpus-per-gpu", "-t", "--time", "--begin", "-d", "--dependency", "-a", "--array",
        "-w", "--nodelist", "-x", "--exclude", "-C", "--constraint", "--exclusive", "-J", "--job-name", "-p",
        "--partition", "-A", "--account", "-q", "--qos", "--nice", "-D", "--chdir", "-o", "--output", "-e",
        "--error", "--export", "--signal", "--comment", "-H", "--hold", "--requeue", "--no-requeue",
        "--reservation", "--gpu-type", "--unknown-option", "-Z", ""};

    private static final String[] SBATCH_VALUES = {"1", "2", "4", "0", "-1", "1073741824", "2147483648",
        "9223372036854775807", "9223372036854775808", "1G", "1T", "999999999T", "8000", "0-3", "0-99999", "0-9%2",
        "1:00", "10", "UNLIMITED", "now+60", "now+31556889864403199", "now+1000000000days", "tomorrow",
        "9999-12-31T23:59:59", "10000-01-01", "afterok:1", "afterany:1:2:3", "gpu[001-002]", "x[1-100000]",
        "gpu:1", "gpu:h100:2", "gpu:99999999999", "h100", "h100&nvlink", "cpu", "gpu", "root", "normal", "/tmp",
        "out-%j.txt", "ALL", "A=1,B=2", "NONE", "USR1@60", "B:USR1@99999999999", "x".repeat(5000), "\u202E",
        "\ud83d\ude00", ""};

    private final List<Operation> operations;
    private final OpenApiOperations document;
    private final List<Identity> identities;
    private final List<String> known;
    private final Set<String> protectedNames;
    private final long seed;
    private final int totalWeight;

    /**
     * @param known identifiers that exist (users, accounts, partitions, nodes, job ids), so that some
     *        requests get past "not found" into the code behind it
     * @param protectedNames identities the fuzz signs in as: never the path parameter of a change
     */
    public FuzzGenerator(OpenApiOperations document, List<Operation> operations, List<Identity> identities,
            List<String> known, Set<String> protectedNames, long seed) {
        this.document = document;
        this.operations = List.copyOf(operations);
        this.identities = List.copyOf(identities);
        this.known = List.copyOf(known);
        this.protectedNames = Set.copyOf(protectedNames);
        this.seed = seed;
        this.totalWeight = identities.stream().mapToInt(Identity::weight).sum();
    }

    public FuzzRequest generate(long index) {
        SplittableRandom random = new SplittableRandom(seed ^ (index * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L));
        Operation operation = operations.get(random.nextInt(operations.size()));
        if (operation.body() == null && random.nextBoolean()) {
            // Operations that take a body have the most to get wrong: they get about twice the requests.
            operation = operations.get(random.nextInt(operations.size()));
        }
        int mood = random.nextInt(12);
        Values values = new Values(random, mood > 3, mood > 8);
        Identity identity = identity(random);

        String path = operation.path();
        ByteArrayOutputStream query = new ByteArrayOutputStream();
        Map<String, String> headers = new LinkedHashMap<>();
        for (Parameter parameter : operation.parameters()) {
            boolean present = parameter.required() ? random.nextInt(40) > 0 : random.nextInt(5) < 3;
            switch (parameter.in()) {
                case "path" -> path = path.replace("{" + parameter.name() + "}", pathValue(operation, parameter, values));
                case "query" -> {
                    if (present) {
                        separator(query);
                        query.writeBytes(encode(parameter.name()));
                        query.write('=');
                        query.writeBytes(queryValue(parameter, values));
                    }
                }
                case "header" -> {
                    if (present) {
                        headers.put(parameter.name(), headerSafe(values.text(parameter.schema(), parameter.name())));
                    }
                }
                default -> {
                }
            }
        }
        if (random.nextInt(10) == 0) {
            // A parameter the operation does not declare, or a declared one twice.
            separator(query);
            query.writeBytes(encode(values.oddString()));
            query.write('=');
            query.writeBytes(encode(values.oddString()));
        }
        if (random.nextInt(12) == 0) {
            separator(query);
            query.writeBytes(badEscape(random));
        }
        ByteArrayOutputStream target = new ByteArrayOutputStream();
        target.writeBytes(path.getBytes(StandardCharsets.ISO_8859_1));
        if (query.size() > 0) {
            target.write('?');
            target.writeBytes(query.toByteArray());
        }

        if (identity.authorization() != null) {
            headers.put("Authorization", identity.authorization());
        }
        headers.put("Accept", switch (random.nextInt(8)) {
            case 0 -> "*/*";
            case 1 -> "text/html";
            case 2 -> "application/problem+json";
            default -> "application/json";
        });
        byte[] body = null;
        if (operation.body() != null || random.nextInt(30) == 0) {
            body = body(operation, values);
            headers.put("Content-Type", switch (random.nextInt(25)) {
                case 0 -> "text/plain";
                case 1 -> "application/json; charset=ISO-8859-1";
                case 2 -> "application/x-www-form-urlencoded";
                default -> operation.contentType() == null ? "application/json" : operation.contentType();
            });
        }
        return new FuzzRequest(index, operation.describe(), identity.name(), operation.method(), target.toByteArray(),
                headers, body);
    }

    private Identity identity(SplittableRandom random) {
        int pick = random.nextInt(totalWeight);
        for (Identity identity : identities) {
            pick -= identity.weight();
            if (pick < 0) {
                return identity;
            }
        }
        return identities.get(0);
    }

    private String pathValue(Operation operation, Parameter parameter, Values values) {
        String value = !known.isEmpty() && values.random.nextInt(2) == 0 ? known.get(values.random.nextInt(known.size()))
                : values.text(parameter.schema(), parameter.name());
        if (!operation.method().equals("GET") && protectedNames.contains(value.toLowerCase(Locale.ROOT))) {
            value = "fuzz-nobody";
        }
        if (values.random.nextInt(40) == 0) {
            return new String(badEscape(values.random), StandardCharsets.ISO_8859_1);
        }
        return new String(encode(shortened(value)), StandardCharsets.ISO_8859_1);
    }

    /** Beyond any server's request-line limit already; sending megabytes of it would only cost time. */
    private static String shortened(String value) {
        return value.length() > 20_000 ? value.substring(0, 20_000) : value;
    }

    private byte[] queryValue(Parameter parameter, Values values) {
        if (!known.isEmpty() && values.random.nextInt(4) == 0) {
            return encode(known.get(values.random.nextInt(known.size())));
        }
        return encode(shortened(values.text(parameter.schema(), parameter.name())));
    }

    private byte[] body(Operation operation, Values values) {
        SplittableRandom random = values.random;
        switch (random.nextInt(40)) {
            case 0:
                return new byte[0];
            case 1:
                return "null".getBytes(StandardCharsets.UTF_8);
            case 2:
                return "{\"a\":".getBytes(StandardCharsets.UTF_8);
            case 3:
                return "[".repeat(5000).getBytes(StandardCharsets.UTF_8);
            case 4:
                return new byte[] {(byte) 0xff, (byte) 0xfe, '{', '}'};
            case 5:
                return FuzzJson.write(values.any(2), random).getBytes(StandardCharsets.UTF_8);
            default:
                break;
        }
        Map<String, Object> schema = operation.body() == null ? Map.of("type", "object") : operation.body();
        String json = FuzzJson.write(values.value(schema, "body", 0), random);
        if (random.nextInt(25) == 0) {
            json = json.substring(0, random.nextInt(json.length() + 1));
        }
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static void separator(ByteArrayOutputStream query) {
        if (query.size() > 0) {
            query.write('&');
        }
    }

    private static final HexFormat HEX_UPPER = HexFormat.of().withUpperCase();

    /** Percent-encodes all but RFC 3986's unreserved characters, as UTF-8. */
    static byte[] encode(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() * 3);
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.write(c);
            } else {
                // HexFormat, not String.format: the fuzz's strings of megabytes are mostly escapes
                out.write('%');
                out.writeBytes(HEX_UPPER.toHexDigits((byte) c).getBytes(StandardCharsets.US_ASCII));
            }
        }
        return out.toByteArray();
    }

    /** A query item no decoder can read as UTF-8: a bad escape, a lone byte, a truncated sequence. */
    private static byte[] badEscape(SplittableRandom random) {
        return switch (random.nextInt(8)) {
            case 0 -> "user=%zz".getBytes(StandardCharsets.US_ASCII);
            case 1 -> "user=%".getBytes(StandardCharsets.US_ASCII);
            case 2 -> "state=%e9".getBytes(StandardCharsets.US_ASCII);
            case 3 -> "name=%c3%28".getBytes(StandardCharsets.US_ASCII);
            case 4 -> "size=%ff%fe".getBytes(StandardCharsets.US_ASCII);
            case 5 -> new byte[] {'u', 's', 'e', 'r', '=', (byte) 0xff, (byte) 0xc3};
            case 6 -> "%=%".getBytes(StandardCharsets.US_ASCII);
            default -> "page=%2".getBytes(StandardCharsets.US_ASCII);
        };
    }

    private static String headerSafe(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return out.length() > 200 ? out.substring(0, 200) : out.toString();
    }

    /** Values for one request; at most one of them huge, so a run's transfer stays small. */
    private final class Values {

        final SplittableRandom random;
        /** Mostly plausible values (small numbers, known names), so that requests get deep; else mostly spoiled. */
        final boolean tame;
        /** Only required properties and scripts, mostly: the kind of request that gets accepted. */
        final boolean minimal;
        boolean hugeUsed;

        Values(SplittableRandom random, boolean tame, boolean minimal) {
            this.random = random;
            this.tame = tame;
            this.minimal = minimal;
        }

        boolean spoil() {
            return random.nextInt(100) < (minimal ? 2 : tame ? 6 : 45);
        }

        Object value(Map<String, Object> declared, String name, int depth) {
            Map<String, Object> schema = document.resolve(declared);
            if (spoil()) {
                return random.nextInt(3) == 0 ? null : any(depth + 2);
            }
            List<Object> choices = OpenApiOperations.list(schema.get("oneOf"));
            if (choices.isEmpty()) {
                choices = OpenApiOperations.list(schema.get("anyOf"));
            }
            if (choices.isEmpty()) {
                choices = OpenApiOperations.list(schema.get("allOf"));
            }
            if (!choices.isEmpty()) {
                return value(OpenApiOperations.map(choices.get(random.nextInt(choices.size()))), name, depth);
            }
            String type = String.valueOf(schema.get("type"));
            if (schema.containsKey("properties")) {
                type = "object";
            }
            return switch (type) {
                case "object" -> object(schema, depth);
                case "array" -> array(schema, name, depth);
                case "integer" -> integer(schema);
                case "number" -> number();
                case "boolean" -> random.nextBoolean();
                case "string" -> string(schema, name);
                default -> any(depth + 1);
            };
        }

        private Map<String, Object> object(Map<String, Object> schema, int depth) {
            Map<String, Object> object = new LinkedHashMap<>();
            if (depth > 6) {
                return object;
            }
            Map<String, Object> properties = OpenApiOperations.map(schema.get("properties"));
            List<Object> required = OpenApiOperations.list(schema.get("required"));
            for (Map.Entry<String, Object> property : properties.entrySet()) {
                boolean include = required.contains(property.getKey()) ? random.nextInt(20) > 0
                        : minimal ? property.getKey().toLowerCase(Locale.ROOT).contains("script") || random.nextInt(100) == 0
                        : random.nextInt(100) < (tame ? 12 : 50);
                if (include) {
                    object.put(property.getKey(), value(OpenApiOperations.map(property.getValue()), property.getKey(),
                            depth + 1));
                }
            }
            Object additional = schema.get("additionalProperties");
            if (additional instanceof Map<?, ?> || Boolean.TRUE.equals(additional)) {
                int entries = random.nextInt(4);
                for (int i = 0; i < entries; i++) {
                    String key = random.nextInt(3) == 0 ? oddString() : "VAR_" + random.nextInt(100);
                    object.put(key, random.nextInt(6) == 0 ? null
                            : value(OpenApiOperations.map(additional), key, depth + 1));
                }
            }
            if (!tame && random.nextInt(8) == 0) {
                object.put(oddString(), any(depth + 1));
            }
            return object;
        }

        private List<Object> array(Map<String, Object> schema, String name, int depth) {
            List<Object> array = new ArrayList<>();
            if (depth > 6) {
                return array;
            }
            int size = random.nextInt(50) == 0 ? 200 : random.nextInt(4);
            Map<String, Object> items = OpenApiOperations.map(schema.get("items"));
            for (int i = 0; i < size; i++) {
                array.add(random.nextInt(10) == 0 ? null : value(items, name, depth + 1));
            }
            return array;
        }

        private Object integer(Map<String, Object> schema) {
            if (tame && random.nextInt(4) > 0) {
                return random.nextInt(5);
            }
            return switch (random.nextInt(16)) {
                case 0 -> 0;
                case 1 -> -1;
                case 2 -> Integer.MIN_VALUE;
                case 3 -> Integer.MAX_VALUE;
                case 4 -> 1L << 31;
                case 5 -> 1 << 30;
                case 6 -> Long.MAX_VALUE;
                case 7 -> Long.MIN_VALUE;
                case 8 -> new Raw("9223372036854775808");
                case 9 -> new Raw("-9223372036854775809");
                case 10 -> new Raw("1e400");
                case 11 -> 1.5;
                case 12 -> Long.MAX_VALUE / 1000;
                case 13 -> 31556889864403199L;
                case 14 -> random.nextInt(1_000_000);
                default -> tame ? 2 : new Raw("NaN");
            };
        }

        private Object number() {
            return switch (random.nextInt(8)) {
                case 0 -> new Raw("1e308");
                case 1 -> new Raw("-1e308");
                case 2 -> new Raw("4.9e-324");
                case 3 -> tame ? 0.5 : new Raw("NaN");
                case 4 -> tame ? 1 : new Raw("-Infinity");
                default -> random.nextDouble() * 100;
            };
        }

        private String string(Map<String, Object> schema, String name) {
            List<Object> allowed = OpenApiOperations.list(schema.get("enum"));
            if (allowed.isEmpty()) {
                allowed = OpenApiOperations.list(schema.get("x-extensible-enum")); // the known values
            }
            if (!allowed.isEmpty() && random.nextInt(4) > 0) {
                return String.valueOf(allowed.get(random.nextInt(allowed.size())));
            }
            if (schema.get("maxLength") instanceof Number max && max.intValue() < 100_000 && random.nextInt(6) == 0) {
                // Just within the documented maximum, or just past it.
                return "z".repeat(max.intValue() + random.nextInt(2));
            }
            if ("date-time".equals(schema.get("format")) && random.nextInt(3) > 0) {
                return date();
            }
            if (name.toLowerCase(Locale.ROOT).contains("script") && random.nextInt(4) > 0) {
                return script();
            }
            if (tame && random.nextInt(3) > 0) {
                return random.nextInt(2) == 0 && !known.isEmpty() ? known.get(random.nextInt(known.size()))
                        : "fuzz" + random.nextInt(1000);
            }
            return oddString();
        }

        String oddString() {
            int pick = random.nextInt(100);
            if (pick < 3 && !hugeUsed) {
                hugeUsed = true;
                int[] sizes = {1_048_577, 2_500_000, 4_194_305};
                String unit = random.nextBoolean() ? "x" : "\u00e9";
                return unit.repeat(sizes[random.nextInt(sizes.length)] / unit.getBytes(StandardCharsets.UTF_8).length);
            }
            if (pick < 12) {
                int[] sizes = {33, 65, 73, 257, 1025, 4001, 4097, 65537};
                return "y".repeat(sizes[random.nextInt(sizes.length)]);
            }
            return ODD_STRINGS[random.nextInt(ODD_STRINGS.length)];
        }

        private String date() {
            return switch (random.nextInt(10)) {
                case 0 -> "+1000000000-01-01T00:00:00Z";
                case 1 -> "-999999999-01-01T00:00:00Z";
                case 2 -> "0000-01-01T00:00:00Z";
                case 3 -> "9999-12-31T23:59:59Z";
                case 4 -> "10000-01-01T00:00:00Z";
                case 5 -> "2026-02-30T00:00:00Z";
                case 6 -> "1969-12-31T23:59:59.999999999Z";
                default -> Instant.ofEpochSecond(1_700_000_000L + random.nextLong(200_000_000L)).toString();
            };
        }

        private String script() {
            StringBuilder script = new StringBuilder("#!/bin/bash\n");
            int lines = random.nextInt(minimal ? 2 : 5);
            for (int i = 0; i < lines; i++) {
                String option = SBATCH_OPTIONS[random.nextInt(SBATCH_OPTIONS.length)];
                String value = random.nextInt(5) == 0 ? oddString() : SBATCH_VALUES[random.nextInt(SBATCH_VALUES.length)];
                script.append("#SBATCH ").append(option);
                switch (random.nextInt(4)) {
                    case 0 -> script.append('=').append(value);
                    case 1 -> script.append(' ').append(value);
                    case 2 -> script.append(' ').append(value).append(' ').append(value);
                    default -> {
                    }
                }
                script.append('\n');
            }
            if (random.nextInt(10) == 0) {
                script.append("#SBATCH ").append(oddString()).append('\n');
            }
            return script.append("sleep 1\n").toString();
        }

        /** A JSON value of any kind. */
        Object any(int depth) {
            int kinds = depth > 4 ? 5 : 7;
            return switch (random.nextInt(kinds)) {
                case 0 -> null;
                case 1 -> oddString();
                case 2 -> integer(Map.of());
                case 3 -> random.nextBoolean();
                case 4 -> number();
                case 5 -> {
                    List<Object> list = new ArrayList<>();
                    for (int i = random.nextInt(3); i > 0; i--) {
                        list.add(any(depth + 1));
                    }
                    yield list;
                }
                default -> {
                    Map<String, Object> map = new LinkedHashMap<>();
                    for (int i = random.nextInt(3); i > 0; i--) {
                        map.put(oddString(), any(depth + 1));
                    }
                    yield map;
                }
            };
        }

        /** A value as query, path or header text. */
        String text(Map<String, Object> declared, String name) {
            Object value = value(declared, name, 0);
            if (value instanceof String s) {
                return s;
            }
            if (value instanceof Raw raw) {
                return raw.text();
            }
            if (value == null) {
                return random.nextBoolean() ? "" : "null";
            }
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                return FuzzJson.write(value, random);
            }
            return String.valueOf(value);
        }
    }
}
