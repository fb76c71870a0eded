package io.gantry.accounting;

import java.util.Arrays;
import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;

import org.springframework.data.domain.Persistable;

import io.gantry.engine.Tres;

@Entity
@Table(name = "qos")
class QosEntity implements Persistable<String> {

    @Id
    @Column(length = 64)
    private String name;

    @Column(length = 1024)
    private String description;

    @Column(nullable = false)
    private int priority;

    @Column(name = "max_wall_seconds")
    private Long maxWallSeconds;

    @Column(name = "max_jobs_per_user")
    private Integer maxJobsPerUser;

    @Column(name = "max_submit_jobs_per_user")
    private Integer maxSubmitJobsPerUser;

    @Column(name = "max_tres_per_user", length = 256)
    private String maxTresPerUser;

    @Column(name = "max_tres_per_job", length = 256)
    private String maxTresPerJob;

    @Column(name = "grp_tres", length = 256)
    private String grpTres;

    @Column(length = 1024)
    private String preempt;

    @Column(name = "preempt_mode", length = 16)
    private String preemptMode;

    @Column(name = "usage_factor", nullable = false)
    private double usageFactor;

    @Column(name = "grace_seconds")
    private Long graceSeconds;

    @jakarta.persistence.Embedded
    private BudgetLimits budget = new BudgetLimits();
    @Column(name = "preempt_exempt_seconds")
    private Long preemptExemptSeconds;

    @Column(name = "max_jobs_per_account")
    private Integer maxJobsPerAccount;

    @Column(name = "max_tres_per_account", length = 256)
    private String maxTresPerAccount;

    @Column(name = "min_tres_per_job", length = 256)
    private String minTresPerJob;

    /** Jobs of this QOS are never acted on by a partition's GPU idle policy (issue 33). */
    @Column(name = "gpu_idle_exempt", nullable = false)
    private boolean gpuIdleExempt;

    /** Slurm's NoDecay flag: the QOS's own usage is neither decayed nor reset by the period. */
    @Column(name = "no_decay", nullable = false)
    private boolean noDecay;

    /** Slurm's OverPartQOS: this QOS's limits win over those a partition QOS sets too. */
    @Column(name = "over_part_qos", nullable = false)
    private boolean overPartQos;

    @Version
    private long version;

    /**
     * While true (from the constructor until the row is stored or read) {@code save} inserts
     * (persist) instead of merging, so a second create of the same name is refused by the primary
     * key rather than written over the first (issue 28).
     */
    @Transient
    private boolean fresh;

    protected QosEntity() {
    }

    QosEntity(String name) {
        this.name = name;
        this.usageFactor = 1.0;
        this.fresh = true;
    }

    @Override
    public String getId() {
        return name;
    }

    @Override
    public boolean isNew() {
        return fresh;
    }

    @PostLoad
    @PostPersist
    void stored() {
        fresh = false;
    }

    String name() { return name; }
    BudgetLimits budget() { return budget == null ? budget = new BudgetLimits() : budget; }
    Long maxWallSeconds() { return maxWallSeconds; }
    Integer maxJobsPerUser() { return maxJobsPerUser; }
    Integer maxSubmitJobsPerUser() { return maxSubmitJobsPerUser; }
    String maxTresPerJob() { return maxTresPerJob; }

    List<String> preempt() {
        return preempt == null || preempt.isEmpty() ? List.of() : Arrays.asList(preempt.split(","));
    }

    void setDescription(String v) { description = v; }
    void setPriority(int v) { priority = v; }
    void setMaxWallSeconds(Long v) { maxWallSeconds = v; }
    void setMaxJobsPerUser(Integer v) { maxJobsPerUser = v; }
    void setMaxSubmitJobsPerUser(Integer v) { maxSubmitJobsPerUser = v; }
    void setMaxTresPerUser(String v) { maxTresPerUser = v; }
    void setMaxTresPerJob(String v) { maxTresPerJob = v; }
    void setGrpTres(String v) { grpTres = v; }
    void setPreempt(List<String> v) { preempt = v == null || v.isEmpty() ? null : String.join(",", v); }
    void setPreemptMode(String v) { preemptMode = v; }
    void setUsageFactor(double v) { usageFactor = v; }
    double usageFactor() { return usageFactor; }
    Long graceSeconds() { return graceSeconds; }
    void setGraceSeconds(Long v) { graceSeconds = v; }
    void setPreemptExemptSeconds(Long v) { preemptExemptSeconds = v; }
    void setMaxJobsPerAccount(Integer v) { maxJobsPerAccount = v; }
    void setMaxTresPerAccount(String v) { maxTresPerAccount = v; }
    void setMinTresPerJob(String v) { minTresPerJob = v; }
    void setGpuIdleExempt(boolean v) { gpuIdleExempt = v; }
    void setNoDecay(boolean v) { noDecay = v; }
    void setOverPartQos(boolean v) { overPartQos = v; }

    /** As the API shows it, with what its budgets have used of {@code usage} (billing-minutes included). */
    AccountingViews.Qos toView(BudgetService.Usage usage) {
        String[] usedLeft = BudgetService.usedAndLeft(budget().grpTresMins(), usage.qosMinutes(name),
                usage.qosBillingMinutes(name));
        Long[] wall = budget().wallUsedAndLeft(usage.qosWallSeconds(name));
        return new AccountingViews.Qos(name, description, priority, maxWallSeconds, maxJobsPerUser,
                maxSubmitJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres, preempt(), preemptMode, usageFactor,
                graceSeconds, budget().grpTresMins(), budget().grpTresRunMins(), budget().maxTresMinsPerJob(),
                usedLeft[0], usedLeft[1], preemptExemptSeconds, maxJobsPerAccount, maxTresPerAccount, minTresPerJob,
                gpuIdleExempt, budget().grpWallSeconds(), wall[0], wall[1], noDecay, overPartQos);
    }

    io.gantry.engine.Qos toEngine() {
        return new io.gantry.engine.Qos(name, priority, maxWallSeconds == null ? 0 : maxWallSeconds,
                maxJobsPerUser == null ? 0 : maxJobsPerUser, Tres.parse(maxTresPerUser, Tres.UNLIMITED),
                Tres.parse(maxTresPerJob, Tres.UNLIMITED), Tres.parse(grpTres, Tres.UNLIMITED),
                java.util.Set.copyOf(preempt()), preemptMode == null ? null
                        : io.gantry.engine.Preemption.Mode.valueOf(preemptMode.toUpperCase(java.util.Locale.ROOT)),
                graceSeconds == null ? 0 : graceSeconds, preemptExemptSeconds == null ? 0 : preemptExemptSeconds)
                .withAccountLimits(maxJobsPerAccount == null ? 0 : maxJobsPerAccount,
                        Tres.parse(maxTresPerAccount, Tres.UNLIMITED), Tres.parse(minTresPerJob, Tres.ZERO))
                .withOverPartQos(overPartQos);
    }
}
