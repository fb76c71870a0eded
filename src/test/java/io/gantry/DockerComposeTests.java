package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code docker-compose.yml}, checked where no Docker engine can run it: it parses, its agents run
 * as root (they start each job as its owner) against the controller with the join token from the
 * environment, and the controller gives the bootstrap admin an account to run jobs as.
 */
class DockerComposeTests {

    @Test
    @SuppressWarnings("unchecked")
    void agentsRunAsRootAndTheAdminHasAnAccountToRunJobsAs() throws Exception {
        Map<String, Object> compose;
        try (Reader reader = Files.newBufferedReader(Path.of("docker-compose.yml"))) {
            compose = new Yaml().load(reader);
        }
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        assertThat(services).containsKeys("postgres", "controller", "agent1", "agent2");
        for (String name : List.of("agent1", "agent2")) {
            Map<String, Object> agent = services.get(name);
            assertThat(agent.get("user")).as(name + " runs as root").isEqualTo("root");
            List<String> entrypoint = (List<String>) agent.get("entrypoint");
            assertThat(entrypoint).contains("agent", "--controller", "http://controller:8080", "--name", name);
            assertThat((Map<String, Object>) agent.get("environment")).containsKey("GANTRY_JOIN_TOKEN");
        }
        Map<String, Object> environment = (Map<String, Object>) services.get("controller").get("environment");
        assertThat(environment.get("SPRING_APPLICATION_JSON").toString()).contains("user-map").contains("admin")
                .contains("gantry");
        assertThat(Files.readString(Path.of("Dockerfile"))).contains("useradd --system --home /var/lib/gantry gantry");
    }
}
