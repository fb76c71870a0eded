package io.gantry.api.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The operations an OpenAPI 3 document (as parsed into maps and lists) declares: each method and
 * path with its parameters and request body schema, {@code $ref}s left for {@link #resolve} to follow.
 */
public final class OpenApiOperations {

    /** A path, query or header parameter. */
    public record Parameter(String name, String in, Map<String, Object> schema, boolean required) {
    }

    public record Operation(String method, String path, List<Parameter> parameters, String contentType,
            Map<String, Object> body) {

        public String describe() {
            return method + " " + path;
        }
    }

    private static final List<String> METHODS = List.of("get", "put", "post", "delete", "patch");

    private final Map<String, Object> document;
    private final List<Operation> operations = new ArrayList<>();

    public OpenApiOperations(Map<String, Object> document) {
        this.document = document;
        Map<String, Object> paths = map(document.get("paths"));
        for (Map.Entry<String, Object> path : paths.entrySet()) {
            Map<String, Object> item = map(path.getValue());
            List<Object> shared = list(item.get("parameters"));
            for (String method : METHODS) {
                if (item.containsKey(method)) {
                    operations.add(operation(method.toUpperCase(Locale.ROOT), path.getKey(), map(item.get(method)),
                            shared));
                }
            }
        }
    }

    public List<Operation> all() {
        return List.copyOf(operations);
    }

    private Operation operation(String method, String path, Map<String, Object> op, List<Object> shared) {
        List<Parameter> parameters = new ArrayList<>();
        List<Object> declared = new ArrayList<>(shared);
        declared.addAll(list(op.get("parameters")));
        for (Object p : declared) {
            Map<String, Object> parameter = resolve(map(p));
            parameters.add(new Parameter((String) parameter.get("name"), (String) parameter.get("in"),
                    resolve(map(parameter.get("schema"))), Boolean.TRUE.equals(parameter.get("required"))));
        }
        String contentType = null;
        Map<String, Object> body = null;
        Map<String, Object> content = map(resolve(map(op.get("requestBody"))).get("content"));
        if (!content.isEmpty()) {
            contentType = content.containsKey("application/json") ? "application/json" : content.keySet().iterator().next();
            body = map(map(content.get(contentType)).get("schema"));
        }
        return new Operation(method, path, parameters, contentType, body);
    }

    /** The schema a {@code $ref} names (followed to the end), or the schema itself. */
    public Map<String, Object> resolve(Map<String, Object> schema) {
        Map<String, Object> current = schema;
        for (int hops = 0; current.get("$ref") instanceof String ref && hops < 20; hops++) {
            Object target = document;
            for (String part : ref.substring(2).split("/")) {
                target = map(target).get(part);
            }
            current = map(target);
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return value instanceof List<?> l ? (List<Object>) l : List.of();
    }
}
