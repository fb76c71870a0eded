package io.gantry.accounting;

import java.util.Arrays;
import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import io.gantry.engine.Tres;

@Entity
@Table(name = "associations")
class AssociationEntity {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, length = 64)
    private String account;

    @Column(name = "user_name", length = 64)
    private String user;

    @Column(nullable = false)
    private int shares;

    @Column(name = "max_jobs")
    private Integer maxJobs;

    @Column(name = "max_submit_jobs")
    private Integer maxSubmitJobs;

    @Column(name = "grp_tres", length = 256)
    private String grpTres;

    @Column(name = "grp_jobs")
    private Integer grpJobs;

    @Column(name = "grp_submit_jobs")
    private Integer grpSubmitJobs;

    @Column(name = "max_tres_per_job", length = 256)
    private String maxTresPerJob;

    @Column(name = "max_tres_per_node", length = 256)
    private String maxTresPerNode;

    @Column(name = "max_wall_seconds")
    private Long maxWallSeconds;

    @Column(name = "default_qos", length = 64)
    private String defaultQos;

    @Column(length = 1024)
    private String qos;

    @jakarta.persistence.Embedded
    private BudgetLimits budget = new BudgetLimits();

    @Version
    private long version;

    protected AssociationEntity() {
    }

    AssociationEntity(String account, String user, int shares) {
        this.account = account;
        this.user = user;
        this.shares = shares;
    }

    Long id() { return id; }
    String account() { return account; }
    String user() { return user; }
    int shares() { return shares; }
    Integer maxSubmitJobs() { return maxSubmitJobs; }
    Integer grpSubmitJobs() { return grpSubmitJobs; }
    String defaultQos() { return defaultQos; }
    BudgetLimits budget() { return budget == null ? budget = new BudgetLimits() : budget; }

    /** The QOS its jobs may ask for; empty allows every QOS. */
    List<String> qos() {
        return qos == null || qos.isEmpty() ? List.of() : Arrays.asList(qos.split(","));
    }

    void setShares(int v) { shares = v; }
    void setMaxJobs(Integer v) { maxJobs = v; }
    void setMaxSubmitJobs(Integer v) { maxSubmitJobs = v; }
    void setGrpTres(String v) { grpTres = v; }
    void setGrpJobs(Integer v) { grpJobs = v; }
    void setGrpSubmitJobs(Integer v) { grpSubmitJobs = v; }
    void setMaxTresPerJob(String v) { maxTresPerJob = v; }
    void setMaxTresPerNode(String v) { maxTresPerNode = v; }
    void setMaxWallSeconds(Long v) { maxWallSeconds = v; }
    void setDefaultQos(String v) { defaultQos = v; }
    void setQos(List<String> v) { qos = v == null || v.isEmpty() ? null : String.join(",", v); }

    /**
     * As the API shows it, with the TRES-minutes its budget has used ({@code usedMinutes}), the wall-clock
     * seconds its GrpWall has ({@code usedWallSeconds}) and the billing-minutes used, for a budget on billing.
     */
    AccountingViews.Association toView(Tres usedMinutes, double usedWallSeconds, long usedBillingMinutes) {
        String[] usedLeft = BudgetService.usedAndLeft(budget().grpTresMins(), usedMinutes, usedBillingMinutes);
        Long[] wall = budget().wallUsedAndLeft(usedWallSeconds);
        return new AccountingViews.Association(id, account, user, shares, maxJobs, maxSubmitJobs, grpTres,
                defaultQos, qos(), grpJobs, grpSubmitJobs, maxTresPerJob, maxTresPerNode, maxWallSeconds,
                budget().grpTresMins(), budget().grpTresRunMins(), budget().maxTresMinsPerJob(),
                usedLeft[0], usedLeft[1], budget().grpWallSeconds(), wall[0], wall[1]);
    }

    /**
     * As the engine takes it, with the fair-share factor computed for it (1.0 for an account's own)
     * and, for an account's own association, the account's parent ({@code parent}; null for a root).
     */
    io.gantry.engine.Association toEngine(double fairShare, String parent) {
        return new io.gantry.engine.Association(account, user, parent, fairShare, new io.gantry.engine.AssocLimits(
                grpJobs == null ? 0 : grpJobs, Tres.parse(grpTres, Tres.UNLIMITED), maxJobs == null ? 0 : maxJobs,
                Tres.parse(maxTresPerJob, Tres.UNLIMITED), Tres.parse(maxTresPerNode, Tres.UNLIMITED),
                maxWallSeconds == null ? 0 : maxWallSeconds));
    }
}
