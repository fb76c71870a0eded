package io.gantry.scheduling;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.accounting.AccountingService;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.Engine;
import io.gantry.engine.QuotaTree;
import io.gantry.engine.QuotaUse;
import io.gantry.engine.Snapshot;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * {@code GET /quotas} (issue 16): per account and GPU kind, what it is guaranteed, what its jobs hold,
 * what its sub-tree borrows beyond its guarantee (idle guarantee of others, at any level above it),
 * what of its own idle guarantee others borrow, and what its
 * pending jobs ask for. Counted as the engine counts them, over the jobs of the scheduler's last
 * cycle and the accounts and nodes as they are now.
 */
@RestController
@RequestMapping("/api/v1")
@Tag(name = "quotas")
class QuotaController {

    private final AccountingService accounting;
    private final ClusterService cluster;
    private final QuotaReclaims reclaims;
    private final Engine engine = new Engine();

    QuotaController(AccountingService accounting, ClusterService cluster, QuotaReclaims reclaims) {
        this.accounting = accounting;
        this.cluster = cluster;
        this.reclaims = reclaims;
    }

    @Schema(name = "AccountQuota", example = """
            {"account":"physics","parent":"root","tres":"gres/gpu","guaranteed":8,"inUse":12,"borrowed":4,"lent":0,
             "pendingDemand":2}""")
    record AccountQuota(String account, @Schema(description = "null for root") String parent,
            @Schema(description = "What the figures count: gres/gpu (GPUs of any type) or gres/gpu:TYPE")
            String tres,
            @Schema(description = "GPUs guaranteed (root: the configured GPUs)") long guaranteed,
            @Schema(description = "GPUs its jobs and its sub-accounts' jobs hold") long inUse,
            @Schema(description = "GPUs its jobs and its sub-accounts' hold beyond its guarantee on others' idle "
                    + "guarantee, borrowed at any level above it") long borrowed,
            @Schema(description = "GPUs of its idle guarantee other accounts' jobs hold") long lent,
            @Schema(description = "GPUs its pending jobs (and its sub-accounts') ask for") long pendingDemand) {
    }

    @Operation(operationId = "listQuotas", summary = "Guaranteed, in use, borrowed, lent and pending GPUs per account")
    @GetMapping("/quotas")
    PageResponse<AccountQuota> list(@RequestParam(required = false) Integer page,
            @RequestParam(required = false) Integer size) {
        var limits = accounting.engineLimits();
        var layout = cluster.engineLayout();
        Snapshot last = reclaims.last();
        Snapshot.Builder b = Snapshot.builder().now(last == null ? 0 : last.now()).nodes(layout.nodes())
                .partitions(layout.partitions());
        if (last != null) {
            b.running(new java.util.ArrayList<>(last.running())).pending(new java.util.ArrayList<>(last.pending()));
        }
        b.quotas(new QuotaTree(limits.quotas(), 0, java.util.Set.of(), reclaims.borrowing(), reclaims.borrowedAt()));
        List<QuotaUse> use = engine.quotaUse(b.build());
        return PageResponse.of(use, PageRequest.of(page, size), u -> new AccountQuota(u.account(), u.parent(),
                u.gpuType().isEmpty() ? "gres/gpu" : "gres/gpu:" + u.gpuType(), u.guaranteed(), u.inUse(),
                u.borrowed(), u.lent(), u.pendingDemand()));
    }
}
