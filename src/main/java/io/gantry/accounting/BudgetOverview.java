package io.gantry.accounting;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.accounting.AccountingViews.Budget;
import io.gantry.accounting.AccountingViews.BudgetOwner;
import io.gantry.engine.Tres;
import io.gantry.jobs.JobUsage;
import io.gantry.security.CurrentUser;

/**
 * Every GrpTRESMins budget, one line per TRES it limits, with its burn rate and run-out ({@link BurnRate}):
 * the dashboard's budgets. Used and left are the ones the engine enforces ({@link BudgetService}); the
 * rate is counted afresh from the jobs that ran in the window ({@link JobUsage#ranBetween}, ended and still
 * running), as fair share's accrual counts them, so it does not wait for the next accrual.
 */
@Service
class BudgetOverview {

    private final AssociationRepository associations;
    private final QosRepository qos;
    private final BudgetService budgets;
    private final JobUsage jobs;
    private final FairShareProperties fairShare;
    private final FairShareService billing;
    private final Clock clock;

    BudgetOverview(AssociationRepository associations, QosRepository qos, BudgetService budgets, JobUsage jobs,
            FairShareProperties fairShare, FairShareService billing, Clock clock) {
        this.associations = associations;
        this.qos = qos;
        this.budgets = budgets;
        this.jobs = jobs;
        this.fairShare = fairShare;
        this.billing = billing;
        this.clock = clock;
    }

    /**
     * The budgets the caller may see: OPERATORs and ADMINs all; a USER those that hold their jobs back: of
     * their own associations, of the accounts they are in and the accounts above them, and of the QOS their
     * associations may use.
     */
    @Transactional(readOnly = true)
    List<Budget> list(CurrentUser caller) {
        List<AssociationEntity> allAssociations = associations.findAllByOrderByAccountAscUserAsc();
        List<AssociationEntity> limited = allAssociations.stream().filter(a -> a.budget().grpTresMins() != null).toList();
        List<QosEntity> allQos = qos.findAllByOrderByName();
        List<QosEntity> limitedQos = allQos.stream().filter(q -> q.budget().grpTresMins() != null).toList();
        if (limited.isEmpty() && limitedQos.isEmpty()) {
            return List.of();
        }
        Predicate<AssociationEntity> seesAssociation = a -> true;
        Predicate<QosEntity> seesQos = q -> true;
        if (!caller.isOperator()) {
            List<AssociationEntity> own = allAssociations.stream().filter(a -> caller.username().equals(a.user())).toList();
            Set<String> above = accountsAbove(own.stream().map(AssociationEntity::account).toList());
            boolean anyQos = own.stream().anyMatch(a -> a.qos().isEmpty());
            Set<String> allowed = new HashSet<>();
            own.forEach(a -> allowed.addAll(a.qos()));
            seesAssociation = a -> a.user() == null ? above.contains(a.account()) : caller.username().equals(a.user());
            seesQos = q -> !own.isEmpty() && (anyQos || allowed.contains(q.name()));
        }
        Instant now = clock.instant();
        Instant from = BurnRate.windowStart(now, fairShare.usageResetPeriod());
        BudgetService.Usage used = budgets.usage();
        BudgetService.Usage window = windowUsage(allQos, from, now);
        List<Budget> out = new ArrayList<>();
        for (AssociationEntity a : limited) {
            if (seesAssociation.test(a)) {
                lines(BudgetOwner.ASSOCIATION, a.id(), a.account(), a.user(), null, a.budget(),
                        used.seconds(a.account(), a.user()), window.seconds(a.account(), a.user()), from, now, out);
            }
        }
        for (QosEntity q : limitedQos) {
            if (seesQos.test(q)) {
                lines(BudgetOwner.QOS, null, null, null, q.name(), q.budget(),
                        used.qosSeconds(q.name()), window.qosSeconds(q.name()), from, now, out);
            }
        }
        return out;
    }

    /** One line per TRES the budget limits, {@code billing} included; used in all, and in the window. */
    private void lines(BudgetOwner owner, Long id, String account, String user, String qosName, BudgetLimits budget,
            TresSeconds used, TresSeconds window, Instant from, Instant now, List<Budget> out) {
        Tres limit = budget.grp();
        List<TresLine> tres = List.of(
                new TresLine("cpu", limit.cpu(), used.cpu(), window.cpu()),
                new TresLine("mem", limit.memoryMb(), used.memMb(), window.memMb()),
                new TresLine("node", limit.nodes(), used.node(), window.node()),
                new TresLine("gres/gpu", limit.gpus(), used.gpu(), window.gpu()),
                new TresLine("billing", TresText.billing(budget.grpTresMins()), used.billing(), window.billing()));
        for (TresLine t : tres) {
            if (t.limit() == Long.MAX_VALUE) {
                continue;
            }
            // Whole minutes used, as grpTresMinsUsed shows them, so the two never disagree.
            long usedMinutes = (long) (t.usedSeconds() / 60);
            double perDay = BurnRate.perDay(t.windowSeconds(), from, now);
            Instant runsOut = BurnRate.runsOut(t.limit(), usedMinutes, perDay, now, fairShare.decayHalfLife(),
                    fairShare.usageResetPeriod());
            out.add(new Budget(owner, id, account, user, qosName, t.name(), t.limit(), usedMinutes,
                    Math.max(0, t.limit() - usedMinutes), Math.round(perDay * 10) / 10.0, from, runsOut));
        }
    }

    /** One TRES of a budget: its limit in TRES-minutes, and its TRES-seconds used in all and in the window. */
    private record TresLine(String name, long limit, double usedSeconds, double windowSeconds) {
    }

    /** The TRES-seconds and billing the jobs used in ({@code from}, {@code now}], per association and per QOS. */
    private BudgetService.Usage windowUsage(List<QosEntity> allQos, Instant from, Instant now) {
        Map<String, Double> factors = new HashMap<>();
        allQos.forEach(q -> factors.put(q.name(), q.usageFactor()));
        Map<String, Map<String, TresSeconds>> byAssociation = new HashMap<>();
        Map<String, TresSeconds> byQos = new HashMap<>();
        jobs.ranBetween(from, now, run -> {
            Instant end = run.end() == null || run.end().isAfter(now) ? now : run.end();
            long seconds = end.getEpochSecond() - (run.start().isAfter(from) ? run.start() : from).getEpochSecond();
            if (seconds <= 0 || run.account() == null) {
                return;
            }
            double factor = factors.getOrDefault(run.qos(), 1.0);
            TresSeconds tres = FairShareService.tresSeconds(run, factor, seconds)
                    .withBilling(billing.billing(run) * factor * seconds);
            add(byAssociation.computeIfAbsent(run.account(), k -> new HashMap<>()), run.user(), tres);
            if (run.qos() != null) {
                add(byQos, run.qos(), tres);
            }
        });
        return budgets.rollUp(byAssociation, byQos);
    }

    /** These accounts and every account above them. */
    private Set<String> accountsAbove(List<String> accounts) {
        Map<String, String> parents = budgets.parents();
        Set<String> out = new HashSet<>();
        for (String account : accounts) {
            String a = account;
            while (a != null && out.add(a)) {
                a = parents.get(a);
            }
        }
        return out;
    }

    private static void add(Map<String, TresSeconds> sums, String key, TresSeconds more) {
        sums.merge(key, more, TresSeconds::plus);
    }
}
