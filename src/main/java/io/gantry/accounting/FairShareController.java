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

    FairShareController(FairShareService fairShare, UserVisibility visibility) {
        this.fairShare = fairShare;
        this.visibility = visibility;
    }

    @Schema(name = "FairShareLine", example = """
            {"account":"physics","user":"alice","parent":"physics","depth":2,"rawShares":1,"normShares":0.5,
             "rawUsage":86400.0,"rawUsageTotal":172800.0,"effectiveUsage":0.75,"levelFairShare":0.667,
             "fairShareFactor":0.5}""")
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
            @Schema(description = "The factor the priority uses (users only), in [0,1]") Double fairShareFactor) {
    }

    @Operation(operationId = "getFairShare", summary = "The fair-share tree, like sshare -a",
            description = "With gantry.accounting.private-users a USER gets the accounts and only their own user "
                    + "lines and those of the accounts they coordinate; the accounts' totals still count everyone.")
    @GetMapping("/fairshare")
    List<Line> tree(CurrentUser caller) {
        UserVisibility.Names names = visibility.of(caller);
        Map<String, Map<String, Double>> raw = fairShare.rawUsage();
        List<FairTree.Line> lines = fairShare.tree().lines();
        // An account's total is its users' below it, at any depth.
        Map<String, String> parentOf = new java.util.HashMap<>();
        lines.stream().filter(l -> l.user() == null).forEach(l -> parentOf.put(l.account(), l.parent()));
        Map<String, Double> accountTotals = new java.util.HashMap<>();
        for (FairTree.Line l : lines) {
            if (l.user() != null) {
                double t = total(raw, l);
                for (String a = l.account(); a != null; a = parentOf.get(a)) {
                    accountTotals.merge(a, t, Double::sum);
                }
            }
        }
        return lines.stream().filter(l -> l.user() == null || names.shows(l.account(), l.user()))
                .map(l -> new Line(l.account(), l.user(), l.parent(), l.depth(),
                l.rawShares(), l.normShares(), l.rawUsage(),
                l.user() != null ? total(raw, l) : accountTotals.getOrDefault(l.account(), 0.0), l.effectiveUsage(),
                Double.isFinite(l.levelFairShare()) ? l.levelFairShare() : null,
                Double.isNaN(l.fairShare()) ? null : l.fairShare())).toList();
    }

    private static double total(Map<String, Map<String, Double>> raw, FairTree.Line user) {
        return raw.getOrDefault(user.account(), Map.of()).getOrDefault(user.user(), 0.0);
    }
}
