package io.gantry.audit;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;

/** One recorded change, as {@code GET /api/v1/audit} lists it. */
@Schema(name = "AuditEvent")
public record AuditEvent(
        long id,
        @Schema(description = "When the change was made") Instant at,
        @Schema(description = "Who made the change") String actor,
        @Schema(description = "The authority it was made under", allowableValues = {"ADMIN", "OPERATOR", "COORDINATOR",
                "AGENT"})
        String actorRole,
        @Schema(allowableValues = {"create", "update", "delete", "cancel", "hold", "release", "requeue", "revoke",
                "signal", "rotate", "join", "join_refused", "suspend", "resume"}) String action,
        @Schema(allowableValues = {"user", "account", "association", "qos", "coordinators", "reservation", "node", "job",
                "join_token", "partition"})
        String entityType,
        @Schema(description = "The entity's name, id or job id") String entityKey,
        @Schema(description = "The entity before the change as the API shows it; null for a create", type = "object",
                nullable = true) Object before,
        @Schema(description = "The entity after the change; null for a delete", type = "object", nullable = true)
        Object after,
        @Schema(description = "The client address the change came from", nullable = true) String clientAddress) {
}
