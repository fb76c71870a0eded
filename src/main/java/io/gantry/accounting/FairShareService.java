package io.gantry.accounting;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.cluster.ClusterLayout;
import io.gantry.control.LeaderLock;
import io.gantry.engine.BillingWeights;
import io.gantry.engine.FairTree;
import io.gantry.engine.Tres;
import io.gantry.engine.UsageDecay;
import io.gantry.jobs.JobUsage;

/**
 * Usage and fair share, like slurmctld's priority/multifactor with Fair Tree. Every
 * {@code calc-period} the leader decays all usage by the half-life and adds what jobs used since the
 * last time (billing x seconds, to the second, for running jobs and for jobs that ended meanwhile).
 * The fair-share factor of every user association comes from {@link FairTree} over the account tree
 * and that usage; the engine's priority, {@code /fairshare} and {@code /priority} all use it.
 */
@Service
public class FairShareService {


    private final FairShareProperties properties;
    private final AccountRepository accounts;
    private final AssociationRepository associations;
    private final QosRepository qos;
    private final JdbcTemplate jdbc;
    private final JobUsage jobs;
    private final TransactionTemplate transaction;
    private final LeaderLock leader;
    private final Clock clock;
    private final org.springframework.context.ApplicationEventPublisher events;
    private final Map<String, BillingWeights> partitionBilling = new HashMap<>();
    private final BillingWeights defaultBilling;
    private volatile FairTree.Result cached;

    FairShareService(FairShareProperties properties, AccountRepository accounts, AssociationRepository associations,
            QosRepository qos, JdbcTemplate jdbc, JobUsage jobs, TransactionTemplate transaction, LeaderLock leader,
            Clock clock, org.springframework.context.ApplicationEventPublisher events, ClusterLayout layout) {
        this.events = events;
        layout.partitions().forEach((name, p) -> partitionBilling.put(name, p.billingWeights()));
        this.defaultBilling = new BillingWeights(properties.cpuWeight(), properties.memoryGbWeight(),
                properties.gpuWeight(), 0, false);
        this.properties = properties;
        this.accounts = accounts;
        this.associations = associations;
        this.qos = qos;
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.transaction = transaction;
        this.leader = leader;
        this.clock = clock;
    }

    /** The tree as sshare shows it, and every user association's factor; recomputed after each accrual. */
    public FairTree.Result tree() {
        FairTree.Result r = cached;
        if (r == null) {
            r = compute();
            cached = r;
        }
        return r;
    }

    /** Forgets the computed tree (accounts, shares or usage changed). */
    void invalidate() {
        cached = null;
    }

    @org.springframework.transaction.event.TransactionalEventListener(fallbackExecution = true)
    void on(AccountingChanged event) {
        invalidate();
    }

    private FairTree.Result compute() {
        List<FairTree.Account> tree = accounts.findAll().stream()
                .map(a -> new FairTree.Account(a.name(), a.parent(), a.shares())).toList();
        List<FairTree.User> users = associations.findAll().stream().filter(a -> a.user() != null)
                .map(a -> new FairTree.User(a.account(), a.user(), a.shares())).toList();
        Map<String, Map<String, Double>> usage = new HashMap<>();
        jdbc.query("SELECT account, user_name, usage_decayed FROM association_usage", rs -> {
            usage.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getString(2), rs.getDouble(3));
        });
        return FairTree.compute(tree, users, usage);
    }

    /** GPU-seconds an association used: decayed as fair share's usage is, and never decayed. */
    public record GpuUsage(double decayed, double raw) {
    }

    /** GPU-seconds per association (whole GPUs and the part of a GPU a MIG instance or shard is worth). */
    public Map<String, Map<String, GpuUsage>> gpuUsage() {
        Map<String, Map<String, GpuUsage>> gpu = new HashMap<>();
        jdbc.query("SELECT account, user_name, gpu_decayed, gpu_raw FROM association_usage", rs -> {
            gpu.computeIfAbsent(rs.getString(1), k -> new HashMap<>())
                    .put(rs.getString(2), new GpuUsage(rs.getDouble(3), rs.getDouble(4)));
        });
        return gpu;
    }

    /** Raw (never decayed) usage per association, in billing-seconds. */
    public Map<String, Map<String, Double>> rawUsage() {
        Map<String, Map<String, Double>> raw = new HashMap<>();
        jdbc.query("SELECT account, user_name, usage_raw FROM association_usage", rs -> {
            raw.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getString(2), rs.getDouble(3));
        });
        return raw;
    }

    /**
     * Decays all usage to {@code now} and adds what jobs used since the last accrual. Idempotent for
     * the same {@code now}; run by the leader only.
     */
    public void accrue(Instant now) {
        transaction.executeWithoutResult(status -> {
            List<Instant> last = jdbc.query("SELECT last_tick FROM fairshare_state WHERE id = 1 FOR UPDATE",
                    (rs, i) -> rs.getObject(1, OffsetDateTime.class).toInstant());
            if (last.isEmpty()) {
                jdbc.update("INSERT INTO fairshare_state (id, last_tick) VALUES (1, ?)", utc(now));
                return;
            }
            Instant from = last.get(0);
            if (!now.isAfter(from)) {
                return;
            }
            // PriorityUsageResetPeriod: a new period starts with no usage (the totals stay).
            UsageDecay decay = new UsageDecay(Duration.between(from, now).toSeconds(),
                    properties.decayHalfLife().toSeconds(), properties.usageResetPeriod().crossed(from, now));
            double factor = decay.factor();
            if (factor < 1.0) {
                jdbc.update("UPDATE association_usage SET usage_decayed = usage_decayed * ?, gpu_decayed = gpu_decayed * ?",
                        factor, factor);
                jdbc.update("""
                        UPDATE association_usage SET tres_cpu = tres_cpu * ?, tres_mem = tres_mem * ?,
                               tres_node = tres_node * ?, tres_gpu = tres_gpu * ?, wall_seconds = wall_seconds * ?""",
                        factor, factor, factor, factor, factor);
            }
            if (factor < 1.0) {
                // A QOS flagged NoDecay keeps its own usage (Slurm: its GrpTRESMins, GrpWall and UsageRaw).
                jdbc.update("""
                        UPDATE qos_usage SET tres_cpu = tres_cpu * ?, tres_mem = tres_mem * ?, tres_node = tres_node * ?,
                               tres_gpu = tres_gpu * ?, wall_seconds = wall_seconds * ?, tres_billing = tres_billing * ?
                         WHERE qos NOT IN (SELECT name FROM qos WHERE no_decay = TRUE)""",
                        factor, factor, factor, factor, factor, factor);
            }
            Map<String, Double> usageFactors = new HashMap<>();
            qos.findAll().forEach(q -> usageFactors.put(q.name(), q.usageFactor()));
            // Per association: the budgets' usage, whose billing-seconds (with the QOS's usage factor) are fair
            // share's usage too, and GPU-seconds (as held).
            Map<List<String>, TresSeconds> added = new HashMap<>();
            Map<List<String>, Double> gpuSeconds = new HashMap<>();
            Map<String, TresSeconds> byQos = new HashMap<>();
            jobs.ranBetween(from, now, run -> {
                Instant end = run.end() == null ? now : run.end();
                // Whole clock seconds, so that the periods a run is split into add up to sacct's elapsed time.
                long seconds = (end.isBefore(now) ? end : now).getEpochSecond()
                        - (run.start().isAfter(from) ? run.start() : from).getEpochSecond();
                if (seconds > 0 && run.account() != null) {
                    // MIG instances and shards are charged as the fraction of a GPU they are worth.
                    double billing = billing(run) * usageFactors.getOrDefault(run.qos(), 1.0);
                    double gpus = run.allocated().gpus() + run.sharedGpus();
                    double qosFactor = usageFactors.getOrDefault(run.qos(), 1.0);
                    // GrpWall's wall-clock time counts the QOS's usage factor too, as Slurm's grp_used_wall does.
                    TresSeconds used = tresSeconds(run, qosFactor, seconds).withWall(qosFactor * seconds)
                            .withBilling(billing * seconds);
                    List<String> association = List.of(run.account(), run.user());
                    added.merge(association, used, TresSeconds::plus);
                    gpuSeconds.merge(association, gpus * seconds, Double::sum);
                    if (run.qos() != null) {
                        byQos.merge(run.qos(), used, TresSeconds::plus);
                    }
                }
            });
            for (Map.Entry<List<String>, TresSeconds> e : added.entrySet()) {
                String account = e.getKey().get(0);
                String user = e.getKey().get(1);
                TresSeconds v = e.getValue();
                double billing = v.billing();
                double gpu = gpuSeconds.get(e.getKey());
                int updated = jdbc.update("""
                        UPDATE association_usage SET usage_decayed = usage_decayed + ?, usage_raw = usage_raw + ?,
                               gpu_decayed = gpu_decayed + ?, gpu_raw = gpu_raw + ?, tres_cpu = tres_cpu + ?,
                               tres_mem = tres_mem + ?, tres_node = tres_node + ?, tres_gpu = tres_gpu + ?,
                               wall_seconds = wall_seconds + ?
                         WHERE account = ? AND user_name = ?""", billing, billing, gpu, gpu, v.cpu(), v.memMb(), v.node(),
                        v.gpu(), v.wall(), account, user);
                if (updated == 0) {
                    jdbc.update("""
                            INSERT INTO association_usage (account, user_name, usage_decayed, usage_raw, gpu_decayed,
                                   gpu_raw, tres_cpu, tres_mem, tres_node, tres_gpu, wall_seconds)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", account, user, billing, billing, gpu, gpu, v.cpu(),
                            v.memMb(), v.node(), v.gpu(), v.wall());
                }
            }
            for (Map.Entry<String, TresSeconds> e : byQos.entrySet()) {
                TresSeconds v = e.getValue();
                int updated = jdbc.update("""
                        UPDATE qos_usage SET tres_cpu = tres_cpu + ?, tres_mem = tres_mem + ?, tres_node = tres_node + ?,
                               tres_gpu = tres_gpu + ?, wall_seconds = wall_seconds + ?, tres_billing = tres_billing + ?
                         WHERE qos = ?""", v.cpu(), v.memMb(), v.node(), v.gpu(), v.wall(), v.billing(), e.getKey());
                if (updated == 0) {
                    jdbc.update("""
                            INSERT INTO qos_usage (qos, tres_cpu, tres_mem, tres_node, tres_gpu, wall_seconds, tres_billing)
                            VALUES (?, ?, ?, ?, ?, ?, ?)""", e.getKey(), v.cpu(), v.memMb(), v.node(), v.gpu(), v.wall(),
                            v.billing());
                }
            }
            jdbc.update("UPDATE fairshare_state SET last_tick = ? WHERE id = 1", utc(now));
        });
        // New factors: the engine's cached associations are stale, and the queue may reorder.
        events.publishEvent(new AccountingChanged("fair-share usage"));
    }

    /**
     * What {@code seconds} of a run add to the budgets' TRES-seconds (cpu, mem MB, node, gpu; no wall or
     * billing): what it holds (a MIG instance or shard as the part of a GPU it is worth) times its QOS's usage
     * factor, as Slurm's usage_tres_raw counts it. The burn rates ({@link BudgetOverview}) count the same.
     */
    static TresSeconds tresSeconds(io.gantry.jobs.JobRun run, double usageFactor, long seconds) {
        return new TresSeconds(run.allocated().cpu(), run.allocated().memoryMb(), run.allocated().nodes(),
                run.allocated().gpus() + run.sharedGpus(), 0, 0).times(usageFactor * seconds);
    }

    /**
     * Slurm's {@code RawUsage=0}: forgets the decayed usage (fair share's and the budgets') of a user's
     * association, or of every user association in an account and the accounts below it
     * ({@code user} null); the never-decayed totals stay for reports. Joins the caller's transaction.
     */
    void resetUsage(String account, String user, java.util.Collection<String> accountsBelow) {
        String zero = "UPDATE association_usage SET usage_decayed = 0, gpu_decayed = 0, tres_cpu = 0, tres_mem = 0, "
                + "tres_node = 0, tres_gpu = 0, wall_seconds = 0 WHERE ";
        if (user != null) {
            jdbc.update(zero + "account = ? AND user_name = ?", account, user);
        } else {
            for (String a : accountsBelow) {
                jdbc.update(zero + "account = ?", a);
            }
        }
        invalidate();
    }

    /** Slurm's {@code RawUsage=0} on a QOS: forgets the decayed TRES usage its budgets count. */
    void resetQosUsage(String qosName) {
        jdbc.update("DELETE FROM qos_usage WHERE qos = ?", qosName);
    }

    /**
     * The budgets' decayed TRES-seconds (cpu, mem MB, node, gpu), GrpWall's wall-clock seconds and billing per
     * user association, by account then user; billing is fair share's own usage.
     */
    Map<String, Map<String, TresSeconds>> tresUsage() {
        Map<String, Map<String, TresSeconds>> out = new HashMap<>();
        jdbc.query("""
                SELECT account, user_name, tres_cpu, tres_mem, tres_node, tres_gpu, wall_seconds, usage_decayed
                  FROM association_usage""", rs -> {
            out.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getString(2), new TresSeconds(
                    rs.getDouble(3), rs.getDouble(4), rs.getDouble(5), rs.getDouble(6), rs.getDouble(7), rs.getDouble(8)));
        });
        return out;
    }

    /** The budgets' decayed TRES-seconds (cpu, mem MB, node, gpu), wall-clock seconds and billing per QOS. */
    Map<String, TresSeconds> qosTresUsage() {
        Map<String, TresSeconds> out = new HashMap<>();
        jdbc.query("SELECT qos, tres_cpu, tres_mem, tres_node, tres_gpu, wall_seconds, tres_billing FROM qos_usage",
                rs -> {
                    out.put(rs.getString(1), new TresSeconds(rs.getDouble(2), rs.getDouble(3), rs.getDouble(4),
                            rs.getDouble(5), rs.getDouble(6), rs.getDouble(7)));
                });
        return out;
    }

    /** When usage was last accrued (what running jobs used since is not in it yet). */
    Instant accruedAt() {
        List<Instant> last = jdbc.query("SELECT last_tick FROM fairshare_state WHERE id = 1",
                (rs, i) -> rs.getObject(1, OffsetDateTime.class).toInstant());
        return last.isEmpty() ? clock.instant() : last.get(0);
    }

    /**
     * Billing per second of what a run holds: its partition's TRESBillingWeights (else fair share's global
     * weights) over its TRES, MIG instances and shards billed as the fraction of a GPU they are worth.
     */
    double billing(io.gantry.jobs.JobRun run) {
        BillingWeights w = run.partition() == null ? defaultBilling
                : partitionBilling.getOrDefault(run.partition(), defaultBilling);
        return w.billing(run.allocated()) + w.perGpu() * run.sharedGpus();
    }

    /** Every calc-period, on the leader only. */
    @Scheduled(fixedDelayString = "${gantry.fairshare.calc-period:30s}",
            initialDelayString = "${gantry.fairshare.calc-period:30s}")
    void accrueOnLeader() {
        if (leader.isLeader()) {
            accrue(clock.instant());
        }
    }

    private static OffsetDateTime utc(Instant at) {
        return OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }

    /** For tests and views: the factors of every user association, by account then user. */
    public Map<String, Map<String, Double>> factors() {
        return tree().factors();
    }
}
