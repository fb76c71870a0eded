package io.gantry.api;

import java.util.List;
import java.util.Map;

import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;

/**
 * The OpenAPI document at {@code /v3/api-docs}: every operation needs the {@code bearerAuth}
 * scheme unless it says otherwise (an empty {@code @SecurityRequirements}, as on createToken), and
 * every operation under {@code /api/v1} documents its problem+json error answers.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

    static final String BEARER = "bearerAuth";
    static final String PROBLEM = "ProblemDetail";
    static final String FIELD_ERROR = "FieldError";
    private static final String PROBLEM_JSON = "application/problem+json";

    private static final Map<String, String> ERRORS = Map.of(
            "400", "The request is invalid; `errors` names each wrong field",
            "401", "No bearer token, or an invalid or expired one",
            "403", "The caller's role does not allow this",
            "404", "No such resource");

    @Bean
    OpenAPI gantryOpenApi() {
        String version = GantryProperties.class.getPackage().getImplementationVersion();
        return new OpenAPI()
                .info(new Info().title("Gantry")
                        .description("A workload manager for GPU and CPU clusters. Get a token with "
                                + "POST /api/v1/auth/tokens and send it as `Authorization: Bearer <token>`.")
                        .version(version == null ? "dev" : version))
                .components(new Components()
                        .addSecuritySchemes(BEARER, new SecurityScheme().type(SecurityScheme.Type.HTTP)
                                .scheme("bearer").bearerFormat("JWT")))
                .addSecurityItem(new SecurityRequirement().addList(BEARER));
    }

    @Bean
    OpenApiCustomizer problemResponses() {
        return openApi -> {
            Components components = openApi.getComponents() == null ? new Components() : openApi.getComponents();
            openApi.setComponents(components);
            components.addSchemas(FIELD_ERROR, fieldErrorSchema());
            components.addSchemas(PROBLEM, problemSchema());
            if (openApi.getPaths() == null) {
                return;
            }
            openApi.getPaths().forEach((path, item) -> {
                if (!path.startsWith("/api/v1")) {
                    return;
                }
                boolean addressesOne = path.contains("{");
                item.readOperations().forEach(operation -> addErrors(operation, addressesOne));
            });
        };
    }

    /**
     * Adds the errors every operation can answer with, and gives every 4xx/5xx response, including
     * those a controller declares itself ({@code @ApiResponse(responseCode = "409", description = ...)}),
     * the problem+json body; springdoc would otherwise describe them with the method's return type.
     */
    private static void addErrors(Operation operation, boolean addressesOne) {
        ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
        operation.setResponses(responses);
        boolean isPublic = operation.getSecurity() != null && operation.getSecurity().isEmpty();
        ERRORS.forEach((code, description) -> {
            boolean applies = switch (code) {
                case "403" -> !isPublic;
                case "404" -> addressesOne;
                default -> true;
            };
            if (applies && !responses.containsKey(code)) {
                responses.addApiResponse(code, new ApiResponse().description(description));
            }
        });
        responses.forEach((code, response) -> {
            if (code.startsWith("4") || code.startsWith("5")) {
                response.setContent(new Content().addMediaType(PROBLEM_JSON,
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM))));
            }
        });
        ApiResponses sorted = new ApiResponses();
        responses.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(r -> sorted.addApiResponse(r.getKey(), r.getValue()));
        operation.setResponses(sorted);
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static Schema<?> problemSchema() {
        Schema schema = new ObjectSchema()
                .description("An RFC 9457 problem; `type` is stable per kind of error")
                .addProperty("type", new StringSchema().format("uri"))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema().format("uri-reference"))
                .addProperty("errors", new ArraySchema().items(new Schema<>().$ref("#/components/schemas/" + FIELD_ERROR)));
        schema.setRequired(List.of("type", "title", "status"));
        return schema;
    }

    private static Schema<?> fieldErrorSchema() {
        Schema<?> schema = new ObjectSchema()
                .description("One wrong input: a JSON field, query parameter or script line, and what is wrong")
                .addProperty("field", new StringSchema())
                .addProperty("message", new StringSchema());
        schema.setRequired(List.of("field", "message"));
        return schema;
    }
}
