package io.gantry.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.yaml.snakeyaml.Yaml;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

import io.gantry.noded.AgentOptions;
import io.gantry.fleet.AgentsProperties;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterProperties;
import io.gantry.control.ControlProperties;
import io.gantry.security.SecurityProperties;

/**
 * deploy/helm/gantry, rendered by Helm itself (helm-java: Helm's Go library in a native library that ships in
 * a Maven artifact; nothing is downloaded and no cluster is needed) with the default values and with
 * GPUs, the Ingress, CloudNativePG and the ServiceMonitor on. Every rendered object must be one the API
 * server takes ({@link KubernetesSchemas}), and the objects must do what README's "Kubernetes" section says:
 * two controllers or more on PostgreSQL from a Secret with probes the application serves, agents on the GPU
 * nodes with what cgroups need and the join token the controllers hold, a login pod whose commands reach the
 * controllers.
 */
@SuppressWarnings("unchecked")
class HelmChartTests {

    private static final Path CHART = Path.of("deploy", "helm", "gantry");
    private static final String RELEASE = "hpc";
    private static final String NAMESPACE = "batch";
    private static final String PREFIX = "hpc-gantry";
    /** The API server version rendered for (helm template's --kube-version; its default, 1.20, is below the chart's floor). */
    private static final String KUBERNETES = "1.31.0";

    @Test
    void theChartPassesHelmLint() {
        LintResult lint = new Helm(CHART).lint().strict().call();
        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    }

    @Test
    void theDefaultValuesRenderOnlyObjectsKubernetesTakes() throws IOException {
        Rendered chart = render(null);
        chart.assertAllValid();
        assertThat(chart.kinds()).containsExactlyInAnyOrder("Secret", "Secret", "ConfigMap", "Service", "Service",
                "PodDisruptionBudget", "StatefulSet", "DaemonSet", "Deployment");
        assertThat(chart.ofKind("Cluster")).as("no CloudNativePG Cluster unless asked for").isEmpty();
        assertThat(chart.ofKind("ServiceMonitor")).isEmpty();
        assertThat(chart.ofKind("Ingress")).isEmpty();
    }

    @Test
    void gpusIngressCloudNativePgAndServiceMonitorRenderOnlyObjectsTheirSchemasTake() throws IOException {
        Rendered chart = render(everythingOn());
        chart.assertAllValid();
        assertThat(chart.kinds()).contains("Cluster", "ServiceMonitor", "Ingress", "StatefulSet", "DaemonSet",
                "Deployment", "PodDisruptionBudget");

        Map<String, Object> cluster = chart.one("Cluster");
        assertThat(cluster.get("apiVersion")).isEqualTo("postgresql.cnpg.io/v1");
        assertThat(val(cluster, "spec.instances")).isEqualTo(3);
        assertThat(val(cluster, "spec.minSyncReplicas")).as("extraSpec merged").isEqualTo(1);
        assertThat(val(cluster, "spec.storage.storageClass")).isEqualTo("fast-ssd");
        assertThat(val(cluster, "spec.bootstrap.initdb.database")).isEqualTo("gantry");

        Map<String, Object> monitor = chart.one("ServiceMonitor");
        Map<String, Object> endpoint = first(at(monitor, "spec.endpoints"));
        assertThat(endpoint).containsEntry("path", "/metrics").containsEntry("port", "http");
        assertThat(val(monitor, "metadata.labels.release")).isEqualTo("kube-prometheus-stack");
        assertThat(val(monitor, "spec.selector.matchLabels")).isEqualTo(at(chart.named("Service", PREFIX + "-controller"),
                "spec.selector"));
        assertThat(chart.named("Service", PREFIX + "-controller").toString()).contains("name=http");

        Map<String, Object> ingress = chart.one("Ingress");
        Map<String, Object> rule = first(at(ingress, "spec.rules"));
        assertThat(rule.get("host")).isEqualTo("gantry.hpc.example.com");
        assertThat(rule.toString()).contains("name=" + PREFIX + "-controller");
    }

    @Test
    void aMisspeltFieldAWrongTypeOrAnUnknownKindFailsTheCheck() throws IOException {
        Rendered chart = render(everythingOn());
        Map<String, Object> statefulSet = chart.one("StatefulSet");
        Map<String, Object> container = first(at(statefulSet, "spec.template.spec.containers"));
        container.put("readinesProbe", container.remove("readinessProbe"));
        assertThat(KubernetesSchemas.problems(statefulSet)).singleElement().asString().contains("readinesProbe");

        Map<String, Object> secret = chart.named("Secret", PREFIX + "-secrets");
        secret.put("strinData", Map.of("a", "b"));
        assertThat(KubernetesSchemas.problems(secret)).singleElement().asString().contains("strinData");

        Map<String, Object> daemonSet = chart.one("DaemonSet");
        Map<String, Object> env = first(at(first(at(daemonSet, "spec.template.spec.containers")), "env"));
        env.put("value", 8080);
        env.remove("valueFrom");
        assertThat(KubernetesSchemas.problems(daemonSet)).as("a number where the API wants a string").isNotEmpty();

        Map<String, Object> cluster = chart.one("Cluster");
        Map<String, Object> storage = at(cluster, "spec.storage");
        storage.put("sise", storage.remove("size"));
        assertThat(KubernetesSchemas.problems(cluster)).singleElement().asString().contains("sise");
        ((Map<String, Object>) at(cluster, "spec")).remove("instances");
        assertThat(KubernetesSchemas.problems(cluster)).anyMatch(p -> p.contains("instances"));

        Map<String, Object> monitor = chart.one("ServiceMonitor");
        first(at(monitor, "spec.endpoints")).put("interval", "fifteen seconds");
        assertThat(KubernetesSchemas.problems(monitor)).singleElement().asString().contains("interval");

        assertThat(KubernetesSchemas.problems(Map.of("apiVersion", "v1", "kind", "Pod", "metadata", Map.of("name", "x"))))
                .singleElement().asString().contains("not expected");
    }

    @Test
    void twoControllersOrMoreShareTheStoreFromASecretBehindProbesTheApplicationServes() throws IOException {
        Rendered chart = render(null);
        Map<String, Object> controllers = chart.one("StatefulSet");
        assertThat((Integer) at(controllers, "spec.replicas")).isGreaterThanOrEqualTo(2);
        Map<String, Object> pod = at(controllers, "spec.template");
        Map<String, Object> container = first(at(pod, "spec.containers"));
        Map<String, Map<String, Object>> env = env(container);

        // The store: profile postgres, and the URL, user and password it reads, all from the chart's Secret.
        assertThat(env.get("SPRING_PROFILES_ACTIVE")).containsEntry("value", "postgres");
        for (String name : List.of("GANTRY_DB_URL", "GANTRY_DB_USER", "GANTRY_DB_PASSWORD")) {
            assertThat(chart.secretValue(env.get(name))).as(name).isNotNull();
            assertThat(applicationYaml("application-postgres.yml")).as(name + " is read by the application").contains("${" + name);
        }
        assertThat(chart.secretValue(env.get("GANTRY_DB_URL"))).startsWith("jdbc:postgresql://");
        // The shared secrets every controller must hold, under properties the application has.
        assertThat(chart.secretValue(env.get("GANTRY_SECURITY_JWT_SECRET"))).hasSizeGreaterThanOrEqualTo(32);
        assertThat(chart.secretValue(env.get("GANTRY_AGENTS_JOIN_TOKEN"))).hasSizeGreaterThanOrEqualTo(16);
        assertThat(chart.secretValue(env.get("GANTRY_SECURITY_BOOTSTRAP_ADMIN_PASSWORD"))).isNotBlank();
        assertThat(components(SecurityProperties.class)).contains("jwtSecret", "bootstrapAdminPassword");
        assertThat(components(AgentsProperties.class)).contains("joinToken");
        assertThat(components(ControlProperties.class)).contains("advertiseUrl");
        // The leader advertises its own stable name, which the headless Service resolves.
        assertThat(env.get("GANTRY_CONTROL_ADVERTISE_URL").get("value")).isEqualTo(
                "http://$(POD_NAME)." + PREFIX + "-controller-headless." + NAMESPACE + ".svc:8080");
        Map<String, Object> headless = chart.named("Service", PREFIX + "-controller-headless");
        assertThat(val(headless, "spec.clusterIP")).isEqualTo("None");
        assertThat(val(controllers, "spec.serviceName")).isEqualTo(PREFIX + "-controller-headless");

        // Probes on the actuator's health groups, which application.yml turns on and exposes.
        assertThat(val(container, "livenessProbe.httpGet.path")).isEqualTo("/actuator/health/liveness");
        assertThat(val(container, "readinessProbe.httpGet.path")).isEqualTo("/actuator/health/readiness");
        assertThat(val(container, "startupProbe.httpGet.path")).isEqualTo("/actuator/health/liveness");
        Map<String, Object> app = yaml(new ClassPathResource("application.yml").getInputStream());
        assertThat(val(app, "management.endpoint.health.probes.enabled")).isEqualTo(true);
        assertThat(val(app, "management.endpoints.web.exposure.include").toString()).contains("health");
        assertThat(val(app, "server.port")).isEqualTo(at(first(at(container, "ports")), "containerPort"));

        // The disruption budget keeps a standby through drains.
        Map<String, Object> budget = chart.one("PodDisruptionBudget");
        assertThat((Integer) at(budget, "spec.minAvailable")).isPositive().isLessThan((Integer) at(controllers, "spec.replicas"));
        assertThat(val(budget, "spec.selector.matchLabels")).isEqualTo(at(controllers, "spec.selector.matchLabels"));
    }

    @Test
    void agentsRunOnTheGpuNodesPrivilegedWithTheControllersJoinToken() throws IOException {
        Rendered chart = render(null);
        Map<String, Object> agents = chart.one("DaemonSet");
        Map<String, Object> pod = at(agents, "spec.template.spec");
        assertThat(pod.get("nodeSelector")).isEqualTo(Map.of("nvidia.com/gpu.present", "true"));
        assertThat(pod.get("runtimeClassName")).isEqualTo("nvidia");
        assertThat(pod.get("hostPID")).isEqualTo(true);
        Map<String, Object> container = first(at(pod, "containers"));
        assertThat(val(container, "securityContext.privileged")).isEqualTo(true);
        assertThat(val(container, "securityContext.runAsUser")).isEqualTo(0);
        assertThat((List<Map<String, Object>>) container.get("volumeMounts"))
                .anyMatch(m -> "/sys/fs/cgroup".equals(m.get("mountPath")));
        assertThat((List<Map<String, Object>>) pod.get("volumes"))
                .anyMatch(v -> "/sys/fs/cgroup".equals(at(v, "hostPath.path")));

        Map<String, Map<String, Object>> env = env(container);
        assertThat(env).containsKey(AgentOptions.JOIN_TOKEN_ENV);
        assertThat(env.get("NVIDIA_VISIBLE_DEVICES")).containsEntry("value", "all");
        Map<String, Object> controllerEnv = env(first(at(chart.one("StatefulSet"), "spec.template.spec.containers")))
                .get("GANTRY_AGENTS_JOIN_TOKEN");
        assertThat(env.get(AgentOptions.JOIN_TOKEN_ENV).get("valueFrom")).isEqualTo(controllerEnv.get("valueFrom"));

        // The command line is one the agent takes, naming every controller by its stable name.
        List<String> command = (List<String>) container.get("command");
        assertThat(command.subList(0, 4)).containsExactly("java", "-jar", "/opt/gantry/gantry.jar", "agent");
        String[] args = command.subList(4, command.size()).stream().map(a -> a.replace("$(NODE_NAME)", "gpu-node-1"))
                .toArray(String[]::new);
        AgentOptions options = AgentOptions.parse(args, Map.of(AgentOptions.JOIN_TOKEN_ENV, "a-join-token-of-16"),
                () -> "unused");
        assertThat(options.name()).isEqualTo("gpu-node-1");
        assertThat(options.controllers()).extracting(Object::toString).containsExactly(
                "http://" + PREFIX + "-controller-0." + PREFIX + "-controller-headless." + NAMESPACE + ".svc:8080",
                "http://" + PREFIX + "-controller-1." + PREFIX + "-controller-headless." + NAMESPACE + ".svc:8080");
        assertThat(env.get("NODE_NAME")).isEqualTo(Map.of("name", "NODE_NAME",
                "valueFrom", Map.of("fieldRef", Map.of("fieldPath", "spec.nodeName"))));

        // Without GPUs: no NVIDIA runtime, and the node selector is the site's.
        Rendered cpuOnly = render(null, "agent.gpus.enabled", "false", "agent.nodeSelector.pool", "cpu",
                "agent.nodeSelector.nvidia\\.com/gpu\\.present", "null");
        cpuOnly.assertAllValid();
        Map<String, Object> cpuPod = at(cpuOnly.one("DaemonSet"), "spec.template.spec");
        assertThat(cpuPod).doesNotContainKey("runtimeClassName");
        assertThat(cpuPod.get("nodeSelector")).isEqualTo(Map.of("pool", "cpu"));
        assertThat(env(first(at(cpuPod, "containers")))).doesNotContainKey("NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void cloudNativePgOrAnExistingSecretReplacesTheChartsDatabaseSecret() throws IOException {
        Rendered chart = render(everythingOn());
        Map<String, Map<String, Object>> env = env(first(at(chart.one("StatefulSet"), "spec.template.spec.containers")));
        assertThat(env.get("GANTRY_DB_URL").get("value")).isEqualTo(
                "jdbc:postgresql://" + PREFIX + "-db-rw." + NAMESPACE + ".svc:5432/gantry");
        assertThat(val(env.get("GANTRY_DB_USER"), "valueFrom.secretKeyRef")).isEqualTo(
                Map.of("name", PREFIX + "-db-app", "key", "username"));
        assertThat(val(env.get("GANTRY_DB_PASSWORD"), "valueFrom.secretKeyRef")).isEqualTo(
                Map.of("name", PREFIX + "-db-app", "key", "password"));
        assertThat(chart.ofKind("Secret")).extracting(s -> val(s, "metadata.name")).containsExactly(PREFIX + "-secrets");
        assertThat((Integer) at(chart.one("StatefulSet"), "spec.replicas")).isEqualTo(3);

        Rendered existing = render(null, "postgresql.existingSecret", "site-db", "secrets.existingSecret", "site-gantry");
        existing.assertAllValid();
        assertThat(existing.ofKind("Secret")).as("the chart makes no Secret of its own").isEmpty();
        Map<String, Map<String, Object>> existingEnv = env(first(at(existing.one("StatefulSet"), "spec.template.spec.containers")));
        assertThat(val(existingEnv.get("GANTRY_DB_URL"), "valueFrom.secretKeyRef")).isEqualTo(Map.of("name", "site-db", "key", "url"));
        assertThat(val(existingEnv.get("GANTRY_SECURITY_JWT_SECRET"), "valueFrom.secretKeyRef"))
                .isEqualTo(Map.of("name", "site-gantry", "key", "jwt-secret"));
        assertThat(val(env(first(at(existing.one("DaemonSet"), "spec.template.spec.containers"))).get("GANTRY_JOIN_TOKEN"),
                "valueFrom.secretKeyRef")).isEqualTo(Map.of("name", "site-gantry", "key", "join-token"));
    }

    @Test
    void theLoginPodInstallsTheCommandsAndPointsThemAtTheControllersService() throws IOException {
        Rendered chart = render(null);
        Map<String, Object> login = chart.one("Deployment");
        Map<String, Object> container = first(at(login, "spec.template.spec.containers"));
        assertThat(String.join(" ", (List<String>) container.get("command")))
                .contains("java -jar /opt/gantry/gantry.jar cli install --prefix /var/lib/gantry/bin");
        Map<String, Map<String, Object>> env = env(container);
        assertThat(env.get("PATH").get("value").toString()).startsWith("/var/lib/gantry/bin:");
        Map<String, Object> service = chart.named("Service", PREFIX + "-controller");
        assertThat(env.get("GANTRY_URL").get("value")).isEqualTo("http://" + PREFIX + "-controller." + NAMESPACE + ".svc:"
                + at(first(at(service, "spec.ports")), "port"));
        assertThat(val(service, "spec.selector")).isEqualTo(at(chart.one("StatefulSet"), "spec.selector.matchLabels"));
        assertThat(Files.readString(Path.of("Dockerfile"))).contains("COPY target/gantry.jar /opt/gantry/gantry.jar")
                .contains("--home /var/lib/gantry gantry").contains("USER gantry");
    }

    /**
     * The cluster file and properties the chart writes, loaded over the built-in application.yml as the
     * controller loads them: the demo cluster's lists are replaced whole (switches: [] and blocks: [] too)
     * and the result is a cluster the controller starts with.
     */
    @Test
    void theClusterFileTheChartWritesReplacesTheDemoClusterAndIsValid() throws IOException {
        Rendered chart = render(everythingOn());
        Map<String, Object> configMap = chart.one("ConfigMap");
        Map<String, String> files = at(configMap, "data");
        assertThat(files).containsOnlyKeys("config.yml", "cluster.yml");
        assertThat(first(at(chart.one("StatefulSet"), "spec.template.spec.containers")).get("command").toString())
                .contains("--spring.config.additional-location=optional:file:/etc/gantry/config.yml,"
                        + "optional:file:/etc/gantry/cluster.yml");

        StandardEnvironment environment = new StandardEnvironment();
        YamlPropertySourceLoader loader = new YamlPropertySourceLoader();
        for (PropertySource<?> source : loader.load("application.yml", new ClassPathResource("application.yml"))) {
            environment.getPropertySources().addFirst(source);
        }
        for (String file : List.of("config.yml", "cluster.yml")) {
            for (PropertySource<?> source : loader.load(file, new ByteArrayResource(files.get(file).getBytes()))) {
                environment.getPropertySources().addFirst(source);
            }
        }
        ClusterProperties cluster = Binder.get(environment).bind("gantry.cluster", ClusterProperties.class).get();
        assertThat(cluster.name()).isEqualTo("k8s");
        assertThat(cluster.switches()).isEmpty();
        assertThat(cluster.blocks()).isEmpty();
        ClusterLayout layout = ClusterLayout.from(cluster);
        assertThat(layout.nodes()).containsOnlyKeys("gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4");
        assertThat(Binder.get(environment).bind("gantry.agents.user-map.admin", String.class).get()).isEqualTo("gantry");
        assertThat(env(first(at(chart.one("Deployment"), "spec.template.spec.containers"))).get("GANTRY_CLUSTER"))
                .containsEntry("value", "k8s");

        assertThat((Map<String, Object>) at(render(null).one("ConfigMap"), "data")).as("defaults: the demo cluster")
                .isNullOrEmpty();
    }

    // --- rendering ---------------------------------------------------------------------------------------

    @TempDir
    Path scratch;

    private Path everythingOn() throws IOException {
        Path values = scratch.resolve("values-everything-on.yaml");
        try (InputStream in = new ClassPathResource("helm/values-everything-on.yaml").getInputStream()) {
            Files.copy(in, values);
        }
        return values;
    }

    /** {@code helm template hpc deploy/helm/gantry -n batch --kube-version 1.31.0 [-f values] [--set k=v ...]}. */
    private static Rendered render(Path values, String... sets) {
        TemplateCommand template = new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE)
                .withKubeVersion(KUBERNETES);
        if (values != null) {
            template = template.withValuesFile(values);
        }
        for (int i = 0; i < sets.length; i += 2) {
            template = template.set(sets[i], sets[i + 1]);
        }
        String text = template.call();
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(text)) {
            if (document != null) {
                objects.add(castMap(document));
            }
        }
        assertThat(objects).as("rendered objects").isNotEmpty();
        return new Rendered(objects);
    }

    private record Rendered(List<Map<String, Object>> objects) {

        void assertAllValid() {
            List<String> problems = new ArrayList<>();
            for (Map<String, Object> object : objects) {
                problems.addAll(KubernetesSchemas.problems(object));
            }
            assertThat(problems).as("schema problems").isEmpty();
            // References the API server does not check but a pod would fail on at start.
            for (Map<String, Object> object : objects) {
                if (at(object, "spec.template.spec") instanceof Map<?, ?>) {
                    assertThat((Map<String, Object>) at(object, "spec.template.metadata.labels"))
                            .as("%s's selector matches its pods", val(object, "metadata.name"))
                            .containsAllEntriesOf(at(object, "spec.selector.matchLabels"));
                    for (Map<String, Object> container : (List<Map<String, Object>>) at(object, "spec.template.spec.containers")) {
                        checkContainer(object, container);
                    }
                }
            }
        }

        private void checkContainer(Map<String, Object> owner, Map<String, Object> container) {
            List<String> names = new ArrayList<>();
            for (Map<String, Object> variable : (List<Map<String, Object>>) container.getOrDefault("env", List.of())) {
                names.add((String) variable.get("name"));
                Map<String, Object> ref = at(variable, "valueFrom.secretKeyRef");
                if (ref != null && ofKind("Secret").stream().anyMatch(s -> ref.get("name").equals(at(s, "metadata.name")))) {
                    assertThat(secretValue(variable)).as("%s: %s's Secret has key %s", val(owner, "metadata.name"),
                            variable.get("name"), ref.get("key")).isNotNull();
                }
            }
            assertThat(names).as("environment of %s", val(owner, "metadata.name")).doesNotHaveDuplicates();
            List<Object> ports = ((List<Map<String, Object>>) container.getOrDefault("ports", List.of())).stream()
                    .map(p -> p.get("name")).toList();
            for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                Object port = at(container, probe + ".httpGet.port");
                if (port instanceof String named) {
                    assertThat(ports).as("%s's %s port", val(owner, "metadata.name"), probe).contains(named);
                }
            }
        }

        List<String> kinds() {
            return objects.stream().map(o -> (String) o.get("kind")).toList();
        }

        List<Map<String, Object>> ofKind(String kind) {
            return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        }

        Map<String, Object> one(String kind) {
            List<Map<String, Object>> all = ofKind(kind);
            assertThat(all).as("objects of kind " + kind).hasSize(1);
            return all.get(0);
        }

        Map<String, Object> named(String kind, String name) {
            return ofKind(kind).stream().filter(o -> name.equals(at(o, "metadata.name"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + kind + " named " + name + " in " + kinds()));
        }

        /** The value an environment variable takes from a Secret the chart renders; null when it has none. */
        String secretValue(Map<String, Object> variable) {
            Map<String, Object> ref = at(variable, "valueFrom.secretKeyRef");
            if (ref == null) {
                return null;
            }
            Map<String, Object> secret = named("Secret", (String) ref.get("name"));
            Object plain = ((Map<String, Object>) secret.getOrDefault("stringData", Map.of())).get(ref.get("key"));
            if (plain != null) {
                return plain.toString();
            }
            Object encoded = ((Map<String, Object>) secret.getOrDefault("data", Map.of())).get(ref.get("key"));
            return encoded == null ? null : new String(java.util.Base64.getDecoder().decode(encoded.toString()));
        }
    }

    // --- small helpers -----------------------------------------------------------------------------------

    private static Object val(Object root, String path) {
        return at(root, path);
    }

    /** The value at a dotted path of nested maps; null when any step is missing. */
    @SuppressWarnings("unchecked")
    private static <T> T at(Object root, String path) {
        Object here = root;
        for (String step : path.split("\\.")) {
            if (!(here instanceof Map<?, ?> map)) {
                return null;
            }
            here = map.get(step);
        }
        return (T) here;
    }

    private static Map<String, Object> first(Object list) {
        assertThat(list).isInstanceOf(List.class);
        return castMap(((List<?>) list).get(0));
    }

    private static Map<String, Map<String, Object>> env(Map<String, Object> container) {
        Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
        for (Object variable : (List<?>) container.getOrDefault("env", List.of())) {
            Map<String, Object> v = castMap(variable);
            byName.put((String) v.get("name"), v);
        }
        return byName;
    }

    private static List<String> components(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).map(java.lang.reflect.RecordComponent::getName).toList();
    }

    private static String applicationYaml(String name) throws IOException {
        try (InputStream in = new ClassPathResource(name).getInputStream()) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static Map<String, Object> yaml(InputStream in) throws IOException {
        try (in) {
            return castMap(new Yaml().load(in));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(Object value) {
        return (Map<String, Object>) Objects.requireNonNull(value);
    }
}
