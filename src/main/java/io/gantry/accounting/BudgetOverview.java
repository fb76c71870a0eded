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

    /** The TRES a line can be about, in the order of a usage row's slots (billing is slot 5, after wall time). */
    private static final String[] TRES = { "cpu", "mem", "node", "gres/gpu", "billing" };

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
                        used.qos().getOrDefault(q.name(), new double[6]), window.qos().getOrDefault(q.name(), new double[6]),
                        from, now, out);
            }
        }
        return out;
    }

    /**
     * One line per TRES the budget limits, {@code billing} included; used and window are usage rows in
     * TRES-seconds (cpu, mem, node, gpu, wall, billing).
     */
    private void lines(BudgetOwner owner, Long id, String account, String user, String qosName, BudgetLimits budget,
            double[] used, double[] window, Instant from, Instant now, List<Budget> out) {
        Tres limit = budget.grp();
        long[] limits = { limit.cpu(), limit.memoryMb(), limit.nodes(), limit.gpus(),
            TresText.billing(budget.grpTresMins()) };
        for (int i = 0; i < limits.length; i++) {
            if (limits[i] == Long.MAX_VALUE) {
                continue;
            }
            int slot = i < 4 ? i : 5;
            // Whole minutes used, as grpTresMinsUsed shows them, so the two never disagree.
            long usedMinutes = (long) ((slot < used.length ? used[slot] : 0) / 60);
            double perDay = BurnRate.perDay(slot < window.length ? window[slot] : 0, from, now);
            Instant runsOut = BurnRate.runsOut(limits[i], usedMinutes, perDay, now, fairShare.decayHalfLife(),
                    fairShare.usageResetPeriod());
            out.add(new Budget(owner, id, account, user, qosName, TRES[i], limits[i], usedMinutes,
                    Math.max(0, limits[i] - usedMinutes), Math.round(perDay * 10) / 10.0, from, runsOut));
        }
    }

    /** The TRES-seconds and billing-seconds the jobs used in ({@code from}, {@code now}], per association and per QOS. */
    private BudgetService.Usage windowUsage(List<QosEntity> allQos, Instant from, Instant now) {
        Map<String, Double> factors = new HashMap<>();
        allQos.forEach(q -> factors.put(q.name(), q.usageFactor()));
        Map<String, Map<String, double[]>> byAssociation = new HashMap<>();
        Map<String, double[]> byQos = new HashMap<>();
        jobs.ranBetween(from, now, run -> {
            Instant end = run.end() == null || run.end().isAfter(now) ? now : run.end();
            long seconds = end.getEpochSecond() - (run.start().isAfter(from) ? run.start() : from).getEpochSecond();
            if (seconds <= 0 || run.account() == null) {
                return;
            }
            double factor = factors.getOrDefault(run.qos(), 1.0);
            double[] tres = java.util.Arrays.copyOf(FairShareService.tresSeconds(run, factor, seconds), 6);
            tres[5] = billing.billing(run) * factor * seconds;
            add(byAssociation.computeIfAbsent(run.account(), k -> new HashMap<>())
                    .computeIfAbsent(run.user(), k -> new double[6]), tres);
            if (run.qos() != null) {
                add(byQos.computeIfAbsent(run.qos(), k -> new double[6]), tres);
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

    private static void add(double[] sum, double[] more) {
        for (int i = 0; i < sum.length; i++) {
            sum[i] += more[i];
        }
    }
}
