package io.gantry.audit;

import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;

/** The audit trail for ADMINs, like {@code sacctmgr list transactions}. */
@RestController
@RequestMapping("/api/v1/audit")
@Tag(name = "audit", description = "Who changed what, when (ADMIN)")
class AuditController {

    private final Audit audit;

    AuditController(Audit audit) {
        this.audit = audit;
    }

    @GetMapping
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "listAuditEvents", summary = "Changes made by ADMINs, OPERATORs and coordinators, "
            + "and agents' joins under node names an agent held before (made or refused), newest first, like sacctmgr "
            + "list transactions (ADMIN)")
    PageResponse<AuditEvent> listAuditEvents(
            @Parameter(description = "Only this user's changes") @RequestParam(required = false) String actor,
            @Parameter(description = "Only changes to this kind of entity: user, account, association, qos, "
                    + "coordinators, reservation, node, job, join_token or partition") @RequestParam(required = false) String entity,
            @Parameter(description = "Only changes to the entity with this name, id or job id")
            @RequestParam(required = false) String key,
            @Parameter(description = "Only changes at or after this time (ISO-8601, or a date: midnight UTC)")
            @RequestParam(required = false) String since,
            @Parameter(description = "Only changes before this time (ISO-8601, or a date: midnight UTC)")
            @RequestParam(required = false) String until,
            @RequestParam(required = false) Integer page, @RequestParam(required = false) Integer size) {
        return audit.list(AuditFilter.of(actor, entity, key, since, until), PageRequest.of(page, size));
    }
}
