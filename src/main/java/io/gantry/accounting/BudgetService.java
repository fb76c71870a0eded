package io.gantry.accounting;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Service;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.engine.Budget;
import io.gantry.engine.Budgets;
import io.gantry.engine.Tres;

/**
 * TRES-minutes budgets (issue 32, Slurm's GrpTRESMins, GrpTRESRunMins, MaxTRESMinsPerJob): what the
 * engine enforces each cycle, and what the views show of them. What a budget has used is fair share's
 * usage in TRES-seconds ({@link FairShareService#accrue}: the jobs' allocated TRES x the seconds they
 * ran, ended or running, times their QOS's usage factor, decayed with the half-life, cleared by
 * {@code RawUsage=0} or each {@code usage-reset-period}); an account's counts every association below it.
 * GrpWall counts the wall-clock seconds the jobs ran, accrued, decayed and reset alike.
 */
@Service
public class BudgetService {

    /** How long the engine may use budgets read before; any accounting change or accrual clears them. */
    private static final Duration TTL = Duration.ofSeconds(5);

    private final AssociationRepository associations;
    private final QosRepository qos;
    private final AccountRepository accounts;
    private final FairShareService fairShare;
    private final Clock clock;
    private final AtomicLong generation = new AtomicLong();
    private volatile Cached cached;

    private record Cached(Budgets budgets, Instant readAt) {
    }

    BudgetService(AssociationRepository associations, QosRepository qos, AccountRepository accounts,
            FairShareService fairShare, Clock clock) {
        this.associations = associations;
        this.qos = qos;
        this.accounts = accounts;
        this.fairShare = fairShare;
        this.clock = clock;
    }

    /** What budgets used ({@link TresSeconds}: TRES, wall and billing), per user association, account and QOS. */
    record Usage(Map<String, Map<String, TresSeconds>> users, Map<String, TresSeconds> accounts,
            Map<String, TresSeconds> qos) {

        /** Used TRES-minutes of an association ({@code user} null: the account's, its users' below it). */
        Tres minutes(String account, String user) {
            return seconds(account, user).inMinutes();
        }

        /** Billing-minutes an association's budget used ({@code user} null: the account's). */
        long billingMinutes(String account, String user) {
            return seconds(account, user).billingMinutes();
        }

        long qosBillingMinutes(String name) {
            return qosSeconds(name).billingMinutes();
        }

        Tres qosMinutes(String name) {
            return qosSeconds(name).inMinutes();
        }

        double qosWallSeconds(String name) {
            return qosSeconds(name).wall();
        }

        TresSeconds seconds(String account, String user) {
            return user == null ? accounts.getOrDefault(account, TresSeconds.ZERO)
                    : users.getOrDefault(account, Map.of()).getOrDefault(user, TresSeconds.ZERO);
        }

        TresSeconds qosSeconds(String name) {
            return qos.getOrDefault(name, TresSeconds.ZERO);
        }
    }

    /** The budgets' usage now (as of the last accrual). */
    Usage usage() {
        return rollUp(fairShare.tresUsage(), fairShare.qosTresUsage());
    }

    /** TRES-seconds per user association and per QOS as a {@link Usage}: each account's, its users' below it. */
    Usage rollUp(Map<String, Map<String, TresSeconds>> users, Map<String, TresSeconds> byQos) {
        Map<String, String> parents = parents();
        Map<String, TresSeconds> totals = new HashMap<>();
        users.forEach((account, byUser) -> byUser.values().forEach(v -> {
            Set<String> seen = new HashSet<>();
            for (String a = account; a != null && seen.add(a); a = parents.get(a)) {
                totals.merge(a, v, TresSeconds::plus);
            }
        }));
        return new Usage(users, totals, byQos);
    }

    /** Every budget as the engine takes it. Read at most every few seconds, and again after a change. */
    public Budgets engineBudgets() {
        Cached c = cached;
        Instant now = clock.instant();
        if (c != null && now.isBefore(c.readAt().plus(TTL))) {
            return c.budgets();
        }
        long before = generation.get();
        List<Budget> list = new ArrayList<>();
        List<AssociationEntity> limited = associations.findAll().stream().filter(a -> a.budget().any()).toList();
        List<QosEntity> allQos = qos.findAll();
        List<QosEntity> limitedQos = allQos.stream().filter(q -> q.budget().any()).toList();
        Map<String, Long> factors = new HashMap<>();
        allQos.stream().filter(q -> q.usageFactor() != 1.0)
                .forEach(q -> factors.put(q.name(), Math.round(q.usageFactor() * 1000)));
        Budgets budgets;
        if (limited.isEmpty() && limitedQos.isEmpty()) {
            budgets = Budgets.NONE;
        } else {
            Usage usage = usage();
            for (AssociationEntity a : limited) {
                BudgetLimits b = a.budget();
                TresSeconds used = usage.seconds(a.account(), a.user());
                list.add(new Budget(a.account(), a.user(), null, b.grp(), b.run(), b.maxPerJob(), used.inSeconds(),
                        b.wall(), (long) used.wall(), b.billing(used.billing())));
            }
            for (QosEntity q : limitedQos) {
                BudgetLimits b = q.budget();
                TresSeconds used = usage.qosSeconds(q.name());
                list.add(new Budget(null, null, q.name(), b.grp(), b.run(), b.maxPerJob(), used.inSeconds(), b.wall(),
                        (long) used.wall(), b.billing(used.billing())));
            }
            budgets = new Budgets(list, parents(), fairShare.accruedAt().getEpochSecond(), factors);
        }
        if (generation.get() == before) {
            cached = new Cached(budgets, now);
        }
        return budgets;
    }

    @Order(Ordered.HIGHEST_PRECEDENCE)
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(AccountingChanged event) {
        generation.incrementAndGet();
        cached = null;
    }

    /** A limit's TRES as used and left, in TRES-minutes, only for the TRES it limits; null without a limit. */
    static String[] usedAndLeft(String limitText, Tres usedMinutes) {
        return usedAndLeft(limitText, usedMinutes, 0);
    }

    /** The same with the billing-minutes used, for a {@code billing=N} in the limit. */
    static String[] usedAndLeft(String limitText, Tres usedMinutes, long usedBillingMinutes) {
        if (limitText == null) {
            return new String[2];
        }
        Tres limit = TresText.limit(limitText);
        long billingLimit = TresText.billing(limitText);
        long[] l = { limit.cpu(), limit.memoryMb(), limit.nodes(), limit.gpus() };
        long[] u = { usedMinutes.cpu(), usedMinutes.memoryMb(), usedMinutes.nodes(), usedMinutes.gpus() };
        String[] names = { "cpu", "mem", "node", "gres/gpu" };
        StringBuilder used = new StringBuilder();
        StringBuilder left = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            if (l[i] == Long.MAX_VALUE) {
                continue;
            }
            String sep = used.length() == 0 ? "" : ",";
            used.append(sep).append(names[i]).append('=').append(u[i]);
            left.append(sep).append(names[i]).append('=').append(Math.max(0, l[i] - u[i]));
        }
        if (billingLimit != Long.MAX_VALUE) {
            String sep = used.length() == 0 ? "" : ",";
            used.append(sep).append("billing=").append(usedBillingMinutes);
            left.append(sep).append("billing=").append(Math.max(0, billingLimit - usedBillingMinutes));
        }
        return new String[] { used.toString(), left.toString() };
    }

    /** Every association's GrpTRESMins as written, by account then user ({@code ""} for the account's own). */
    Map<String, Map<String, String>> grpTresMins() {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (AssociationEntity a : associations.findAll()) {
            if (a.budget().grpTresMins() != null) {
                out.computeIfAbsent(a.account(), k -> new HashMap<>()).put(a.user() == null ? "" : a.user(),
                        a.budget().grpTresMins());
            }
        }
        return out;
    }

    /** Used TRES-minutes as sshare's GrpTRESRaw lists them: cpu, mem, energy, node, billing, ..., gres/gpu. */
    static String raw(Tres minutes, double billingMinutes) {
        return "cpu=" + minutes.cpu() + ",mem=" + minutes.memoryMb() + ",energy=0,node=" + minutes.nodes()
                + ",billing=" + (long) billingMinutes + ",fs/disk=0,vmem=0,pages=0,gres/gpu=" + minutes.gpus();
    }

    /** Every account and the accounts below it, {@code account} first. */
    List<String> accountsBelow(String account) {
        Map<String, List<String>> children = new HashMap<>();
        parents().forEach((child, parent) -> children.computeIfAbsent(parent, k -> new ArrayList<>()).add(child));
        List<String> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        List<String> todo = new ArrayList<>(List.of(account));
        while (!todo.isEmpty()) {
            String a = todo.remove(todo.size() - 1);
            if (seen.add(a)) {
                out.add(a);
                todo.addAll(children.getOrDefault(a, List.of()));
            }
        }
        return out;
    }

    /** Every account's parent, by account (root has none). */
    Map<String, String> parents() {
        Map<String, String> parents = new HashMap<>();
        accounts.findAll().forEach(a -> {
            if (a.parent() != null) {
                parents.put(a.name(), a.parent());
            }
        });
        return parents;
    }
}
