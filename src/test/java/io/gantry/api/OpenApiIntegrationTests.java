package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/** Generated SDKs read well only if every operation is named, tagged and documents its errors. */
@GantryIntegrationTest
class OpenApiIntegrationTests {

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch");

    @LocalServerPort
    int port;

    @Test
    void everyOperationHasAUniqueVerbNounOperationIdAndOneTag() {
        JsonNode doc = new ApiClient(port).get("/v3/api-docs", null).json();
        assertThat(doc.get("openapi").asString()).startsWith("3.");

        List<String> problems = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                String where = op.getKey().toUpperCase() + " " + path.getKey();
                JsonNode id = op.getValue().get("operationId");
                if (id == null || !id.asString().matches("[a-z]+[A-Z][A-Za-z]*") || id.asString().matches(".*[vV]1.*")) {
                    problems.add(where + ": operationId " + id + " is not verbNoun");
                } else if (!ids.add(id.asString())) {
                    problems.add(where + ": operationId " + id + " is used twice");
                }
                JsonNode tags = op.getValue().get("tags");
                if (tags == null || tags.size() != 1) {
                    problems.add(where + ": has tags " + tags + ", expected exactly one");
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(ids).contains("listNodes", "getNode", "updateNode", "listPartitions", "getPartition", "getTopology");
    }

    @Test
    void theBearerSchemeIsDeclaredAndErrorsReferenceProblemDetail() {
        JsonNode doc = new ApiClient(port).get("/v3/api-docs", null).json();
        JsonNode schemes = doc.get("components").get("securitySchemes");
        assertThat(schemes.valueStream().anyMatch(s -> "bearer".equalsIgnoreCase(s.path("scheme").asString())))
                .as("a bearer security scheme").isTrue();
        assertThat(doc.get("components").get("schemas").has("ProblemDetail")).isTrue();

        JsonNode getNode = doc.get("paths").get("/api/v1/nodes/{name}").get("get");
        JsonNode notFound = getNode.get("responses").get("404");
        assertThat(notFound).as("GET /nodes/{name} documents 404").isNotNull();
        assertThat(notFound.toString()).contains("application/problem+json").contains("ProblemDetail");
    }
}
