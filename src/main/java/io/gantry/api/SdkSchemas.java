package io.gantry.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;

/**
 * Makes the OpenAPI document good to generate SDKs from, after springdoc has described it:
 * <ul>
 * <li><b>Clean schema names.</b> springdoc names a generic page {@code PageResponseUserResponse};
 * every SDK would carry that name. Pages become {@code JobPage}, {@code UserPage}...; a
 * {@code ...Response} suffix is dropped where no other schema has the shorter name.</li>
 * <li><b>Extensible enums.</b> A state, reason or role list grows with Gantry; a generated client
 * whose enum lacks a new value fails to read the whole answer. Every string enum is therefore
 * documented as {@code x-extensible-enum} (the known values, Zalando's convention) with a plain
 * string type, and its description says new values may come. The server still refuses values it
 * does not know (400).</li>
 * <li><b>Required fields.</b> Answers carry every field, a missing value as {@code null}. A field
 * that can never be null (a number or flag the record holds as a primitive) is {@code required} in
 * the schemas that only appear in answers; the others stay optional, so a generated client reads
 * their nulls (a strict one refuses a null in a required field).</li>
 * </ul>
 */
@Component
class SdkSchemas implements OpenApiCustomizer {

    private static final Pattern PAGE = Pattern.compile("PageResponse(\\w+)");
    static final String EXTENSIBLE = "x-extensible-enum";

    @Override
    public void customise(OpenAPI openApi) {
        if (openApi.getComponents() == null || openApi.getComponents().getSchemas() == null) {
            return;
        }
        rename(openApi);
        List<Schema<?>> all = new ArrayList<>();
        everySchema(openApi, all::add);
        all.forEach(SdkSchemas::extensible);
        required(openApi);
    }

    // --- names ------------------------------------------------------------------------------------

    private static void rename(OpenAPI openApi) {
        @SuppressWarnings("rawtypes")
        Map<String, Schema> schemas = openApi.getComponents().getSchemas();
        Map<String, String> renamed = new LinkedHashMap<>();
        for (String name : schemas.keySet()) {
            String clean = clean(name);
            if (!clean.equals(name) && !schemas.containsKey(clean) && !renamed.containsValue(clean)) {
                renamed.put(name, clean);
            }
        }
        if (renamed.isEmpty()) {
            return;
        }
        @SuppressWarnings("rawtypes")
        Map<String, Schema> result = new java.util.TreeMap<>();
        schemas.forEach((name, schema) -> result.put(renamed.getOrDefault(name, name), schema));
        openApi.getComponents().setSchemas(result);
        everySchema(openApi, schema -> {
            String ref = schema.get$ref();
            if (ref != null && ref.startsWith("#/components/schemas/")) {
                String target = ref.substring("#/components/schemas/".length());
                if (renamed.containsKey(target)) {
                    schema.set$ref("#/components/schemas/" + renamed.get(target));
                }
            }
        });
    }

    static String clean(String name) {
        Matcher page = PAGE.matcher(name);
        if (page.matches()) {
            return stripResponse(page.group(1)) + "Page";
        }
        return stripResponse(name);
    }

    private static String stripResponse(String name) {
        return name.endsWith("Response") && name.length() > "Response".length()
                ? name.substring(0, name.length() - "Response".length()) : name;
    }

    // --- enums ------------------------------------------------------------------------------------

    /** Turns a string enum into a plain string with its known values in {@value #EXTENSIBLE}. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static void extensible(Schema schema) {
        List<?> values = schema.getEnum();
        if (values == null || values.isEmpty() || !values.stream().allMatch(String.class::isInstance)) {
            return;
        }
        schema.setEnum(null);
        schema.addExtension(EXTENSIBLE, new ArrayList<>(values));
        // a value with a comma in it ("ReqNodeNotAvail, Reserved for maintenance") is quoted to stay one
        String known = "Known values: " + ((List<String>) values).stream()
                .map(v -> v.contains(",") ? "\"" + v + "\"" : v).collect(java.util.stream.Collectors.joining(", "))
                + ". More may be added: accept values not listed.";
        schema.setDescription(schema.getDescription() == null ? known : schema.getDescription() + ". " + known);
    }

    // --- required ---------------------------------------------------------------------------------

    @SuppressWarnings("rawtypes")
    private static void required(OpenAPI openApi) {
        Map<String, Schema> schemas = openApi.getComponents().getSchemas();
        java.util.Set<String> inRequests = new java.util.HashSet<>();
        java.util.Set<String> inAnswers = new java.util.HashSet<>();
        if (openApi.getPaths() != null) {
            openApi.getPaths().values().forEach(item -> item.readOperations().forEach(operation -> {
                if (operation.getRequestBody() != null) {
                    referenced(operation.getRequestBody().getContent(), schemas, inRequests);
                }
                if (operation.getResponses() != null) {
                    operation.getResponses().values().forEach(r -> referenced(r.getContent(), schemas, inAnswers));
                }
            }));
        }
        for (String name : inAnswers) {
            Schema schema = schemas.get(name);
            if (inRequests.contains(name) || schema == null || schema.getProperties() == null) {
                continue;
            }
            List<String> required = new ArrayList<>();
            schema.getProperties().forEach((property, value) -> {
                Schema<?> p = (Schema<?>) value;
                if (p.getExtensions() != null && p.getExtensions().containsKey(NOT_NULL)) {
                    required.add((String) property);
                }
            });
            if (!required.isEmpty()) {
                schema.setRequired(required);
            }
        }
        everySchema(openApi, s -> {
            if (s.getExtensions() != null) {
                s.getExtensions().remove(NOT_NULL);
                if (s.getExtensions().isEmpty()) {
                    s.setExtensions(null);
                }
            }
        });
    }

    /** Marks a property that is never null (a record's primitive component, see {@link NeverNull}). */
    static final String NOT_NULL = "x-gantry-never-null";

    @SuppressWarnings("rawtypes")
    private static void referenced(Content content, Map<String, Schema> schemas, java.util.Set<String> into) {
        if (content == null) {
            return;
        }
        content.values().forEach(media -> {
            if (media.getSchema() != null) {
                walk(media.getSchema(), schema -> {
                    String ref = schema.get$ref();
                    if (ref != null && ref.startsWith("#/components/schemas/")) {
                        String name = ref.substring("#/components/schemas/".length());
                        if (into.add(name) && schemas.get(name) != null) {
                            referenced(new Content().addMediaType("x", new io.swagger.v3.oas.models.media.MediaType()
                                    .schema(schemas.get(name))), schemas, into);
                        }
                    }
                });
            }
        });
    }

    // --- walking ----------------------------------------------------------------------------------

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void everySchema(OpenAPI openApi, Consumer<Schema<?>> action) {
        openApi.getComponents().getSchemas().values().forEach(s -> walk((Schema<?>) s, action));
        if (openApi.getPaths() == null) {
            return;
        }
        openApi.getPaths().values().forEach(item -> {
            if (item.getParameters() != null) {
                item.getParameters().forEach(p -> parameter(p, action));
            }
            for (Operation operation : item.readOperations()) {
                if (operation.getParameters() != null) {
                    operation.getParameters().forEach(p -> parameter(p, action));
                }
                if (operation.getRequestBody() != null && operation.getRequestBody().getContent() != null) {
                    operation.getRequestBody().getContent().values().forEach(m -> walk(m.getSchema(), action));
                }
                if (operation.getResponses() != null) {
                    operation.getResponses().values().forEach(r -> {
                        if (r.getContent() != null) {
                            r.getContent().values().forEach(m -> walk(m.getSchema(), action));
                        }
                    });
                }
            }
        });
    }

    private static void parameter(Parameter parameter, Consumer<Schema<?>> action) {
        walk(parameter.getSchema(), action);
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void walk(Schema<?> schema, Consumer<Schema<?>> action) {
        if (schema == null) {
            return;
        }
        action.accept(schema);
        if (schema.getProperties() != null) {
            schema.getProperties().values().forEach(p -> walk(p, action));
        }
        walk(schema.getItems(), action);
        if (schema.getAdditionalProperties() instanceof Schema additional) {
            walk(additional, action);
        }
        for (List<Schema> group : java.util.Arrays.asList(schema.getAllOf(), schema.getAnyOf(), schema.getOneOf())) {
            if (group != null) {
                group.forEach(s -> walk(s, action));
            }
        }
    }
}
