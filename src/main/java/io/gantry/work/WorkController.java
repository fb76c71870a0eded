package io.gantry.work;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.accounting.FairShareService;
import io.gantry.jobs.MyJobs;
import io.gantry.jobs.MyWork;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;

/** {@code GET /work}: the caller's own work in one request, the dashboard's landing. */
@RestController
@RequestMapping("/api/v1")
@Tag(name = "jobs")
class WorkController {

    private final MyJobs jobs;
    private final FairShareService fairShare;

    WorkController(MyJobs jobs, FairShareService fairShare) {
        this.jobs = jobs;
        this.fairShare = fairShare;
    }

    @Operation(operationId = "getMyWork", summary = "The caller's own work: active jobs (running first), newest ended "
            + "jobs, failures of the last 24 hours, an array as one row each; GPU-hours and fair-share factors",
            description = "Always the caller's own jobs, whatever their roles (an operator lists everyone's with listJobs).")
    @GetMapping("/work")
    MyWork myWork(CurrentUser caller) {
        String user = caller.username();
        List<MyWork.FairShare> factors = fairShare.factors().entrySet().stream()
                .filter(e -> e.getValue().containsKey(user))
                .map(e -> new MyWork.FairShare(e.getKey(), finite(e.getValue().get(user))))
                .sorted(java.util.Comparator.comparing(MyWork.FairShare::account))
                .toList();
        return jobs.of(user, factors);
    }

    private static Double finite(Double value) {
        return value == null || value.isNaN() || value.isInfinite() ? null : value;
    }

}
