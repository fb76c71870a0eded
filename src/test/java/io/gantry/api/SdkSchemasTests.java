package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The committed OpenAPI document (what SDKs are generated from; SdkIntegrationTests shows it is the
 * one served) has clean schema names, enums a client cannot break on, and required fields.
 */
class SdkSchemasTests {

    private static final JsonNode DOCUMENT = read();

    @Test
    void schemaNamesCarryNoGenericOrResponseNoise() {
        List<String> names = new ArrayList<>(DOCUMENT.get("components").get("schemas").propertyNames());
        assertThat(names).contains("JobPage", "NodePage", "UserPage", "User", "Token")
                .noneMatch(n -> n.startsWith("PageResponse") || n.endsWith("Response"));
        assertThat(SdkSchemas.clean("PageResponseUserResponse")).isEqualTo("UserPage");
        assertThat(SdkSchemas.clean("TokenResponse")).isEqualTo("Token");
        assertThat(SdkSchemas.clean("Job")).isEqualTo("Job");
    }

    @Test
    void everyEnumIsExtensibleSoANewValueBreaksNoClient() {
        List<String> strict = new ArrayList<>();
        List<String> extensible = new ArrayList<>();
        walk("", DOCUMENT, strict, extensible);
        assertThat(strict).as("paths of schemas with a closed enum").isEmpty();
        JsonNode state = DOCUMENT.get("components").get("schemas").get("Job").get("properties").get("state");
        assertThat(state.get("type").asString()).isEqualTo("string");
        assertThat(state.get(SdkSchemas.EXTENSIBLE).toString()).contains("PENDING", "RUNNING", "COMPLETED");
        assertThat(state.get("description").asString()).contains("More may be added");
    }

    @Test
    void fieldsThatAreNeverNullAreRequiredInAnswers() {
        JsonNode job = DOCUMENT.get("components").get("schemas").get("Job");
        assertThat(job.get("required").toString()).contains("\"jobId\"", "\"priority\"", "\"exclusive\"");
        // a request schema stays as lenient as the server is
        JsonNode submission = DOCUMENT.get("components").get("schemas").get("JobSubmission");
        assertThat(submission.has("required") && submission.get("required").toString().contains("exclusive")).isFalse();
        assertThat(DOCUMENT.toString()).doesNotContain(SdkSchemas.NOT_NULL);
    }

    private static void walk(String at, JsonNode node, List<String> strict, List<String> extensible) {
        if (node.isObject()) {
            if (node.has("enum")) {
                strict.add(at);
            }
            if (node.has(SdkSchemas.EXTENSIBLE)) {
                extensible.add(at);
            }
            for (String name : node.propertyNames()) {
                walk(at + "/" + name, node.get(name), strict, extensible);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(at + "/" + i, node.get(i), strict, extensible);
            }
        }
    }

    private static JsonNode read() {
        try {
            return JsonMapper.builder().build().readTree(Files.readString(Path.of("src", "main", "openapi", "gantry.json")));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
