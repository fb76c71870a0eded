package io.gantry.api;

import java.util.Arrays;

import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

import io.gantry.engine.PendingReason;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;

/**
 * Publishes the engine's {@link PendingReason}s, in Slurm's words, as the schema
 * {@value #NAME} that a job's {@code reason} refers to ({@code @Schema(ref = PendingReasonSchema.REF)}),
 * so SDKs and the dashboard take the list from the document instead of a copy kept by hand. Like
 * every enum here it is extensible ({@link SdkSchemas}): a reason added later breaks no client.
 */
@Component
public class PendingReasonSchema implements OpenApiCustomizer {

    public static final String NAME = "PendingReason";
    /** For {@code @Schema(ref = ...)} on a property that holds a pending reason. */
    public static final String REF = "#/components/schemas/" + NAME;

    @Override
    public void customise(OpenAPI openApi) {
        Components components = openApi.getComponents() == null ? new Components() : openApi.getComponents();
        openApi.setComponents(components);
        StringSchema schema = new StringSchema();
        schema.setDescription("Why a job is not running, as Slurm's squeue and scontrol spell it: None while "
                + "nothing keeps it (running, ended, or not yet looked at)");
        schema.setEnum(Arrays.stream(PendingReason.values()).map(PendingReason::slurmName).toList());
        SdkSchemas.extensible(schema);
        components.addSchemas(NAME, schema);
        // springdoc keeps the String's "type" beside the $ref; the referred schema alone says what it is
        for (Schema<?> model : components.getSchemas().values()) {
            if (model.getProperties() != null) {
                model.getProperties().values().stream().filter(p -> REF.equals(p.get$ref()))
                        .forEach(PendingReasonSchema::onlyRef);
            }
        }
    }

    @SuppressWarnings("rawtypes")
    private static void onlyRef(Schema property) {
        property.setType(null);
        property.setTypes(null);
    }
}
