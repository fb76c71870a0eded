package io.gantry.accounting;

import java.util.List;
import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.engine.FairTree;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

/** {@code GET /fairshare}: the account tree with shares, usage and fair-share factors, like sshare. */
@RestController
@RequestMapping("/api/v1")
@Tag(name = "accounting")
class FairShareController {

    private final FairShareService fairShare;
    private final UserVisibility visibility;
    private final BudgetService budgets;

    FairShareController(FairShareService fairShare, UserVisibility visibility, BudgetService budgets) {
        this.budgets = budgets;
        this.fairShare = fairShare;
        this.visibility = visibility;
    }

    @Schema(name = "FairShareLine", example = """
            {"account":"physics","user":"alice","parent":"physics","depth":2,"rawShares":1,"normShares":0.5,
             "rawUsage":86400.0,"rawUsageTotal":172800.0,"effectiveUsage":0.75,"levelFairShare":0.667,
             "fairShareFactor":0.5,"gpuUsage":10800.0,"gpuUsageTotal":21600.0}""")
    record Line(String account,
            @Schema(description = "The user, or null for the account itself") String user,
            String parent, int depth,
            @Schema(description = "Shares as set (Slurm's Fairshare)") long rawShares,
            @Schema(description = "Shares over the siblings' shares") double normShares,
            @Schema(description = "Decayed usage in billing-seconds") double rawUsage,
            @Schema(description = "Usage never decayed, in billing-seconds") double rawUsageTotal,
            @Schema(description = "Usage over the siblings' usage") double effectiveUsage,
            @Schema(description = "normShares / effectiveUsage; null when it has no usage (infinite)")
            Double levelFairShare,
            @Schema(description = "The factor the priority uses (users only), in [0,1]") Double fairShareFactor,
            @Schema(description = "Decayed usage in GPU-seconds (whole GPUs, and the part of one a MIG instance or "
                    + "shard is worth), decayed as rawUsage is; an account's is its users' below it")
            double gpuUsage,
            @Schema(description = "GPU-seconds never decayed; an account's is its users' below it") double gpuUsageTotal,
            @Schema(description = "The association's budget in TRES-minutes (Slurm's GrpTRESMins); null: none",
                    example = "gres/gpu=6000") String grpTresMins,
            @Schema(description = "TRES-minutes used as the budgets count them (decayed, times the QOS usage factor; "
                    + "Slurm's GrpTRESRaw); an account's is its users' below it",
                    example = "cpu=120,mem=0,energy=0,node=60,billing=1080,fs/disk=0,vmem=0,pages=0,gres/gpu=60")
            String grpTresRaw) {
    }

    @Operation(operationId = "getFairShare", summary = "The fair-share tree, like sshare -a",
            description = "With gantry.accounting.private-users a USER gets the accounts and only their own user "
                    + "lines and those of the accounts they coordinate; the accounts' totals still count everyone.")
    @GetMapping("/fairshare")
    List<Line> tree(CurrentUser caller) {
        UserVisibility.Names names = visibility.of(caller);
        Map<String, Map<String, Double>> raw = fairShare.rawUsage();
        Map<String, Map<String, FairShareService.GpuUsage>> gpu = fairShare.gpuUsage();
        List<FairTree.Line> lines = fairShare.tree().lines();
        BudgetService.Usage usage = budgets.usage();
        Map<String, Map<String, String>> limits = budgets.grpTresMins();
        // An account's totals are its users' below it, at any depth.
        Map<String, String> parentOf = new java.util.HashMap<>();
        lines.stream().filter(l -> l.user() == null).forEach(l -> parentOf.put(l.account(), l.parent()));
        Map<String, double[]> accountTotals = new java.util.HashMap<>();
        for (FairTree.Line l : lines) {
            if (l.user() != null) {
                FairShareService.GpuUsage g = gpuOf(gpu, l);
                double t = total(raw, l);
                for (String a = l.account(); a != null; a = parentOf.get(a)) {
                    double[] sums = accountTotals.computeIfAbsent(a, k -> new double[3]);
                    sums[0] += t;
                    sums[1] += g.decayed();
                    sums[2] += g.raw();
                }
            }
        }
        return lines.stream().filter(l -> l.user() == null || names.shows(l.account(), l.user())).map(l -> {
            double[] sums = l.user() != null
                    ? new double[] { total(raw, l), gpuOf(gpu, l).decayed(), gpuOf(gpu, l).raw() }
                    : accountTotals.getOrDefault(l.account(), new double[3]);
            return new Line(l.account(), l.user(), l.parent(), l.depth(), l.rawShares(), l.normShares(), l.rawUsage(),
                    sums[0], l.effectiveUsage(), Double.isFinite(l.levelFairShare()) ? l.levelFairShare() : null,
                    Double.isNaN(l.fairShare()) ? null : l.fairShare(), sums[1], sums[2],
                    limits.getOrDefault(l.account(), Map.of()).get(l.user() == null ? "" : l.user()),
                    BudgetService.raw(usage.minutes(l.account(), l.user()), l.rawUsage() / 60));
        }).toList();
    }

    private static FairShareService.GpuUsage gpuOf(Map<String, Map<String, FairShareService.GpuUsage>> gpu,
            FairTree.Line user) {
        return gpu.getOrDefault(user.account(), Map.of()).getOrDefault(user.user(), NO_GPU);
    }

    private static final FairShareService.GpuUsage NO_GPU = new FairShareService.GpuUsage(0, 0);

    private static double total(Map<String, Map<String, Double>> raw, FairTree.Line user) {
        return raw.getOrDefault(user.account(), Map.of()).getOrDefault(user.user(), 0.0);
    }
}
