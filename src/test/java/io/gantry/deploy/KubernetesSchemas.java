package io.gantry.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * Checks a rendered Kubernetes object as the API server would with strict field validation: Kubernetes' own
 * kinds are read into fabric8's model classes (kubernetes-model 8.0.0) with every unknown field an error, a
 * string where a number belongs (or the reverse) an error; the custom resources the chart can make
 * (CloudNativePG's Cluster, the Prometheus operator's ServiceMonitor) against the JSON schemas in
 * {@code src/test/resources/helm/} (where they come from is written beside them).
 */
final class KubernetesSchemas {

    /** The model class of each built-in kind the chart makes, by apiVersion and kind. */
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/Secret", Secret.class,
            "v1/ConfigMap", ConfigMap.class,
            "v1/Service", Service.class,
            "apps/v1/StatefulSet", StatefulSet.class,
            "apps/v1/DaemonSet", DaemonSet.class,
            "apps/v1/Deployment", Deployment.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "networking.k8s.io/v1/Ingress", Ingress.class);

    private static final Map<String, String> CUSTOM = Map.of(
            "postgresql.cnpg.io/v1/Cluster", "/helm/cnpg-cluster.schema.json",
            "monitoring.coreos.com/v1/ServiceMonitor", "/helm/servicemonitor.schema.json");

    /**
     * fabric8's classes keep any field they do not know in a map ({@code @JsonAnySetter}), which would let a
     * misspelt field through: here no class has one, so an unknown field fails the read.
     */
    private static final JsonMapper STRICT = JsonMapper.builder()
            .annotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public Boolean hasAnySetter(MapperConfig<?> config, Annotated a) {
                    return Boolean.FALSE;
                }
            })
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            // The API server refuses a number or a boolean where a string belongs (env values, labels, ...).
            .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .build();

    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    /** Kinds this checker knows: the chart makes nothing else. */
    static Set<String> kinds() {
        Set<String> all = new java.util.TreeSet<>(KINDS.keySet());
        all.addAll(CUSTOM.keySet());
        return all;
    }

    /**
     * The problems of one rendered object (as parsed from YAML); empty when the API server would take it.
     * An object of a kind this checker does not know is a problem too.
     */
    static List<String> problems(Map<String, Object> object) {
        String key = object.get("apiVersion") + "/" + object.get("kind");
        Object metadata = object.get("metadata");
        String name = metadata instanceof Map<?, ?> m ? String.valueOf(m.get("name")) : "(no metadata)";
        String where = key + " " + name + ": ";
        List<String> problems = new ArrayList<>();
        Class<? extends HasMetadata> type = KINDS.get(key);
        if (type != null) {
            try {
                HasMetadata read = STRICT.convertValue(object, type);
                if (read.getMetadata() == null || read.getMetadata().getName() == null
                        || !read.getMetadata().getName().matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")
                        || read.getMetadata().getName().length() > 63) {
                    problems.add(where + "metadata.name must be a DNS label of at most 63 characters");
                }
            } catch (RuntimeException e) {
                problems.add(where + e.getMessage());
            }
            return problems;
        }
        String schema = CUSTOM.get(key);
        if (schema == null) {
            problems.add(where + "a kind the chart is not expected to make (known: " + kinds() + ")");
            return problems;
        }
        for (ValidationMessage message : schema(schema).validate(PLAIN.valueToTree(object).toString(),
                com.networknt.schema.InputFormat.JSON)) {
            problems.add(where + message.getMessage());
        }
        return problems;
    }

    private static final Map<String, JsonSchema> SCHEMAS = new java.util.concurrent.ConcurrentHashMap<>();

    private static JsonSchema schema(String resource) {
        return SCHEMAS.computeIfAbsent(resource, r -> {
            try (InputStream in = KubernetesSchemas.class.getResourceAsStream(r)) {
                if (in == null) {
                    throw new IllegalStateException("missing test resource " + r);
                }
                return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(in);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private KubernetesSchemas() {
    }
}
