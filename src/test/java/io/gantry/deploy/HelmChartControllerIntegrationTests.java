package io.gantry.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.io.ClassPathResource;
import org.yaml.snakeyaml.Yaml;

import com.marcnuri.helm.Helm;

import io.gantry.support.ApiClient;
import io.gantry.support.ControllerProcess;
import tools.jackson.databind.JsonNode;

/**
 * The packaged controller started as the chart starts it: the configuration files of the chart's ConfigMap
 * (written where the pod mounts them, here a temporary directory) passed with the chart's own
 * {@code --spring.config.additional-location} argument. The cluster the values describe replaces the demo
 * cluster, the properties apply, and the probe paths the chart gives Kubernetes answer without a token.
 */
class HelmChartControllerIntegrationTests {

    @TempDir
    Path dataDir;

    @TempDir
    Path etcGantry;

    @Test
    @SuppressWarnings("unchecked")
    void theControllerStartsWithTheChartsFilesAndAnswersItsProbes() throws Exception {
        Path values = etcGantry.resolve("values.yaml");
        try (var in = new ClassPathResource("helm/values-everything-on.yaml").getInputStream()) {
            Files.copy(in, values);
        }
        String text = new Helm(Path.of("deploy", "helm", "gantry")).template().withName("hpc").withNamespace("batch")
                .withKubeVersion("1.31.0").withValuesFile(values).call();
        Map<String, Object> configMap = null;
        Map<String, Object> controller = null;
        for (Object document : new Yaml().loadAll(text)) {
            if (document instanceof Map<?, ?> object && "ConfigMap".equals(object.get("kind"))) {
                configMap = (Map<String, Object>) object;
            } else if (document instanceof Map<?, ?> object && "StatefulSet".equals(object.get("kind"))) {
                controller = (Map<String, Object>) object;
            }
        }
        assertThat(configMap).isNotNull();
        assertThat(controller).isNotNull();
        for (Map.Entry<String, Object> file : ((Map<String, Object>) configMap.get("data")).entrySet()) {
            Files.writeString(etcGantry.resolve(file.getKey()), file.getValue().toString());
        }
        Map<String, Object> container = ((List<Map<String, Object>>) ((Map<String, Object>) ((Map<String, Object>)
                ((Map<String, Object>) controller.get("spec")).get("template")).get("spec")).get("containers")).get(0);
        List<String> args = new ArrayList<>();
        for (String arg : (List<String>) container.get("command")) {
            if (arg.startsWith("--spring.config.additional-location=")) {
                args.add(arg.replace("/etc/gantry/", etcGantry.toAbsolutePath() + "/"));
            }
        }
        assertThat(args).hasSize(1);

        try (ControllerProcess process = new ControllerProcess(dataDir, args.toArray(String[]::new))) {
            ApiClient api = process.start().api();
            for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                String path = (String) ((Map<String, Object>) ((Map<String, Object>) container.get(probe)).get("httpGet"))
                        .get("path");
                ApiClient.Response answer = api.get(path, null);
                assertThat(answer.status()).as(probe + " " + path).isEqualTo(200);
                assertThat(answer.json().get("status").asString()).isEqualTo("UP");
            }
            String admin = api.adminToken();
            JsonNode nodes = api.get("/api/v1/nodes?size=100", admin).json();
            List<String> names = new ArrayList<>();
            nodes.get("items").forEach(n -> names.add(n.get("name").asString()));
            assertThat(names).as("the values' cluster, not the demo's").containsExactlyInAnyOrder("gpu-node-1",
                    "gpu-node-2", "gpu-node-3", "gpu-node-4");
            // config.yml's properties: metrics need an OPERATOR's token (require-token: true).
            assertThat(api.get("/metrics", null).status()).isEqualTo(401);
        }
    }
}
