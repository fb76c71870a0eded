package io.gantry.reports;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;

/** {@code GET /reports/utilization}: allocated, idle, down and reserved GPU- and CPU-hours per bucket. */
@RestController
@RequestMapping("/api/v1/reports")
@Tag(name = "accounting")
class UtilizationController {

    private final UtilizationService utilization;

    UtilizationController(UtilizationService utilization) {
        this.utilization = utilization;
    }

    @GetMapping("/utilization")
    @Operation(operationId = "getUtilization", summary = "GPU- and CPU-hours allocated, idle, down and reserved per "
            + "hour or day, for the cluster or per account or user (like sreport)")
    UtilizationReport utilization(
            @Parameter(description = "From (instant or date, UTC); default end minus one day") @RequestParam(required = false) String start,
            @Parameter(description = "To (instant or date, UTC); default now") @RequestParam(required = false) String end,
            @Parameter(description = "cluster (default), account or user") @RequestParam(required = false) String groupBy,
            @Parameter(description = "hour (default) or day") @RequestParam(required = false) String interval) {
        return utilization.report(start, end, groupBy, interval);
    }
}
