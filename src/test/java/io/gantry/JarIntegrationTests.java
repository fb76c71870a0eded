package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.StartEarly;
import io.gantry.support.TestDatabase;
import tools.jackson.databind.JsonNode;

/**
 * The packaged jar, started as users start it: a real process on the postgres profile. Proves
 * the jar carries what it needs at run time and that node states survive a restart.
 */
@StartEarly("the packaged jar started, migrated and restarted on PostgreSQL")
class JarIntegrationTests {

    @TempDir
    Path dataDir;

    @Test
    void theJarStartsOnPostgresMigratesAndKeepsNodeStatesAcrossARestart() throws Exception {
        // A database of its own: on the shared one the test context's controller leads, and this one
        // (with a token secret of its own) would be its follower, forwarding writes there.
        TestDatabase db = TestDatabase.isolated("gantry_jar_test");
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--spring.profiles.active=postgres",
                "--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.username(),
                "--spring.datasource.password=" + db.password())) {
            ApiClient api = controller.packaged().start().api();
            String admin = api.token("admin", ApiClient.ADMIN_PASSWORD);
            assertThat(api.get("/api/v1/nodes?size=100", admin).json().get("total").asInt()).isEqualTo(24);
            Response docs = api.get("/v3/api-docs", null);
            assertThat(docs.status()).isEqualTo(200);
            assertThat(docs.json().get("openapi").asString()).startsWith("3.");
            Response drained = api.send("PATCH", "/api/v1/nodes/cpu008", admin,
                    Map.of("state", "DRAIN", "reason", "survives restarts"));
            assertThat(drained.status()).isEqualTo(200);

            controller.stop();
            controller.start();

            String again = api.token("admin", ApiClient.ADMIN_PASSWORD);
            JsonNode node = api.get("/api/v1/nodes/cpu008", again).json();
            assertThat(node.get("state").asString()).isEqualTo("DRAINED");
            assertThat(node.get("reason").asString()).isEqualTo("survives restarts");
            api.send("PATCH", "/api/v1/nodes/cpu008", again, Map.of("state", "RESUME"));
        } finally {
            TestDatabase.drop("gantry_jar_test");
        }
    }
}
