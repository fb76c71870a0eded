package io.gantry.accounting;

import java.time.Instant;
import java.util.List;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * What the accounting API reads and writes. In a change, {@code null} leaves a field as it is; a
 * limit is cleared with {@code -1} (numbers) or {@code ""} (TRES), as {@code sacctmgr} does.
 * Every text has the maximum length of its store column ({@code @Size}, shown in the OpenAPI document).
 */
public final class AccountingViews {

    /** Names of accounts, users and QOS: their store columns' size. */
    static final int NAME = 64;
    static final int DESCRIPTION = 1024;
    static final int ORGANIZATION = 256;
    static final int TRES = 256;
    /** QOS named in one list (an association's, a QOS's preempt list): they are stored joined, in 1,024 characters. */
    static final int MAX_QOS = 15;

    private AccountingViews() {
    }

    @Schema(name = "Account")
    public record Account(String name, String parent, String description, String organization,
            @Schema(description = "Fair-share shares (Slurm's Fairshare)") int shares, Instant createdAt,
            @Schema(description = "GPUs guaranteed to the account's jobs (and its sub-accounts'), lent to its "
                    + "siblings while idle and reclaimed when needed; null: none", example = "gres/gpu=64")
            String guaranteedTres,
            @Schema(description = "At most this many GPUs of its siblings' idle guarantee borrowed at once; null: "
                    + "no limit", example = "gres/gpu=32") String maxBorrowTres,
            @Schema(description = "At most this many GPUs of its idle guarantee lent at once; null: no limit",
                    example = "gres/gpu:h100=16") String maxLendTres) {
    }

    @Schema(name = "AccountRequest", description = "A new account, or a change to one (null leaves a field)")
    public record AccountRequest(
            @Schema(description = "Required when creating") @Size(max = NAME) String name,
            @Schema(description = "Defaults to root when creating") @Size(max = NAME) String parent,
            @Size(max = DESCRIPTION) String description, @Size(max = ORGANIZATION) String organization,
            @Schema(description = "At least 1; defaults to 1") Integer shares,
            @Schema(description = "GPU TRES (gres/gpu=N or gres/gpu:TYPE=N, comma separated); \"\" clears. The "
                    + "guarantees of an account's children add up to at most its own", example = "gres/gpu=64")
            @Size(max = TRES) String guaranteedTres,
            @Schema(description = "GPU TRES; \"\" clears", example = "gres/gpu=32") @Size(max = TRES) String maxBorrowTres,
            @Schema(description = "GPU TRES; \"\" clears", example = "gres/gpu=16") @Size(max = TRES) String maxLendTres) {

        /** A request that sets no quota field. */
        public AccountRequest(String name, String parent, String description, String organization, Integer shares) {
            this(name, parent, description, organization, shares, null, null, null);
        }
    }

    @Schema(name = "Association")
    public record Association(long id, String account,
            @Schema(description = "null for the account's own association") String user, int shares,
            Integer maxJobs, Integer maxSubmitJobs,
            @Schema(example = "cpu=64,gres/gpu=8") String grpTres,
            @Schema(description = "null means QOS normal") String defaultQos,
            @Schema(description = "The QOS its jobs may ask for; empty allows every QOS") List<String> qos,
            @Schema(description = "Running jobs of this association and every association below it, together, at "
                    + "most (Slurm's GrpJobs); null: no limit") Integer grpJobs,
            @Schema(description = "Pending and running jobs of this association and every association below it, "
                    + "together, at most (Slurm's GrpSubmitJobs); null: no limit") Integer grpSubmitJobs,
            @Schema(description = "TRES of one job, at most (Slurm's MaxTRESPerJob); associations below without their "
                    + "own take it; null: no limit", example = "cpu=32,gres/gpu=4") String maxTresPerJob,
            @Schema(description = "TRES of one job on one node, at most (Slurm's MaxTRESPerNode); inherited like "
                    + "maxTresPerJob", example = "gres/gpu=2") String maxTresPerNode,
            @Schema(description = "Time limit of one job in seconds, at most (Slurm's MaxWallDurationPerJob); "
                    + "inherited like maxTresPerJob; null: no limit") Long maxWallSeconds,
            @Schema(description = BUDGET, example = "gres/gpu=6000") String grpTresMins,
            @Schema(description = RUN_MINS, example = "gres/gpu=1200") String grpTresRunMins,
            @Schema(description = MAX_MINS, example = "gres/gpu=600") String maxTresMinsPerJob,
            @Schema(description = USED, example = "gres/gpu=4210") String grpTresMinsUsed,
            @Schema(description = LEFT, example = "gres/gpu=1790") String grpTresMinsLeft,
            @Schema(description = GRP_WALL, example = "36000") Long grpWallSeconds,
            @Schema(description = WALL_USED, example = "12600") Long grpWallSecondsUsed,
            @Schema(description = WALL_LEFT, example = "23400") Long grpWallSecondsLeft) {
    }

    static final String GRP_WALL = "Wall-clock seconds all the jobs of the association and those below it (or of the "
            + "QOS) may run together, each job counting its own run time times its QOS's usage factor (Slurm's GrpWall, "
            + "which sacctmgr shows in minutes); decayed and reset as the budgets' usage. A job whose time limit on top "
            + "of what was used and what running jobs may still run would overrun it pends (AssocGrpWallLimit, "
            + "QOSGrpWallLimit); null: none";
    static final String WALL_USED = "Wall-clock seconds counted against grpWallSeconds (as of the last usage accrual); "
            + "null without grpWallSeconds";
    static final String WALL_LEFT = "grpWallSeconds minus grpWallSecondsUsed (at least 0); null without grpWallSeconds";
    static final String WALL_REQUEST = "Seconds, 0 or more (Slurm's GrpWall); -1 clears";

    static final String BUDGET = "Budget in TRES-minutes (Slurm's GrpTRESMins) of every job of the association and "
            + "those below it, used as the fair-share usage is (decayed, reset with rawUsage=0); a job that could "
            + "overrun it by its time limit pends (AssocGrpGRESMinutes, ...); null: none";
    static final String RUN_MINS = "TRES-minutes its running jobs may hold until their time limits (Slurm's "
            + "GrpTRESRunMins); null: none";
    static final String MAX_MINS = "TRES x time limit one job may ask for (Slurm's MaxTRESMinsPerJob); null: none";
    static final String USED = "TRES-minutes counted against grpTresMins (as of the last usage accrual), for the "
            + "TRES it limits; null without grpTresMins";
    static final String LEFT = "grpTresMins minus grpTresMinsUsed (at least 0); null without grpTresMins";
    static final String RAW_USAGE = "Only 0: forgets the usage fair share and the budgets count (Slurm's "
            + "RawUsage=0); of an account, of every association below it too";

    /** Whose a budget is: an association's (an account's, or a user's in an account) or a QOS's. */
    public enum BudgetOwner { ASSOCIATION, QOS }

    @Schema(name = "Budget", description = "One TRES of one GrpTRESMins budget, with how fast it is used and when it "
            + "runs out at that pace")
    public record Budget(BudgetOwner owner,
            @Schema(description = "The association's id; null for a QOS's budget") Long associationId,
            @Schema(description = "null for a QOS's budget") String account,
            @Schema(description = "null for an account's own budget (every association below it) and a QOS's") String user,
            @Schema(description = "The QOS; null for an association's budget") String qos,
            @Schema(description = "The TRES it limits", allowableValues = {"cpu", "mem", "node", "gres/gpu", "billing"},
                    example = "gres/gpu") String tres,
            @Schema(description = "The budget in TRES-minutes (mem in MB-minutes), as grpTresMins has it",
                    example = "6000") long limitMinutes,
            @Schema(description = "TRES-minutes counted against it (as grpTresMinsUsed: decayed, reset with "
                    + "rawUsage=0 and each usage-reset-period, as of the last usage accrual)", example = "4210")
            long usedMinutes,
            @Schema(description = "limitMinutes minus usedMinutes, at least 0", example = "1790") long leftMinutes,
            @Schema(description = "TRES-minutes a day its jobs used since rateSince (jobs that ended and what running "
                    + "jobs used so far, times their QOS usage factor, not decayed), scaled to a day",
                    example = "480.5") double burnPerDay,
            @Schema(description = "Start of the window burnPerDay is measured over: 24 hours ago, or the start of the "
                    + "current usage-reset-period when that is later") Instant rateSince,
            @Schema(description = "When usedMinutes reaches limitMinutes if its jobs go on at burnPerDay, with usage "
                    + "decaying and reset as it does; now when nothing is left; null when it does not run out at this "
                    + "rate (a rate of 0, decay holding the usage below the limit, or a reset first)")
            Instant runsOutAt) {
    }

    @Schema(name = "AssociationRequest", description = "A new association, or a change to one (null leaves a field)")
    public record AssociationRequest(
            @Schema(description = "Required when creating") @Size(max = NAME) String account,
            @Schema(description = "Required when creating") @Size(max = NAME) String user,
            Integer shares, Integer maxJobs, Integer maxSubmitJobs,
            @Schema(example = "cpu=64,gres/gpu=8") @Size(max = TRES) String grpTres,
            @Size(max = NAME) String defaultQos, @Size(max = MAX_QOS) List<@NotNull @Size(max = NAME) String> qos,
            @Schema(description = "0 or more; -1 clears") Integer grpJobs,
            @Schema(description = "0 or more; -1 clears") Integer grpSubmitJobs,
            @Schema(description = "TRES; \"\" clears", example = "cpu=32,gres/gpu=4") @Size(max = TRES) String maxTresPerJob,
            @Schema(description = "TRES; \"\" clears", example = "gres/gpu=2") @Size(max = TRES) String maxTresPerNode,
            @Schema(description = "Seconds, 1 or more; -1 clears") Long maxWallSeconds,
            @Schema(description = "TRES-minutes, e.g. gres/gpu=6000; \"\" clears") @Size(max = TRES) String grpTresMins,
            @Schema(description = "TRES-minutes; \"\" clears") @Size(max = TRES) String grpTresRunMins,
            @Schema(description = "TRES-minutes; \"\" clears") @Size(max = TRES) String maxTresMinsPerJob,
            @Schema(description = RAW_USAGE) Double rawUsage,
            @Schema(description = WALL_REQUEST) Long grpWallSeconds) {

        /** A request that sets none of the tree's limits and budgets added in issue 32. */
        public AssociationRequest(String account, String user, Integer shares, Integer maxJobs, Integer maxSubmitJobs,
                String grpTres, String defaultQos, List<String> qos) {
            this(account, user, shares, maxJobs, maxSubmitJobs, grpTres, defaultQos, qos, null, null, null, null, null, null,
                    null, null, null, null);
        }

        /** The same request with {@code qos} instead. */
        public AssociationRequest withQos(List<String> other) {
            return new AssociationRequest(account, user, shares, maxJobs, maxSubmitJobs, grpTres, defaultQos, other,
                    grpJobs, grpSubmitJobs, maxTresPerJob, maxTresPerNode, maxWallSeconds, grpTresMins, grpTresRunMins,
                    maxTresMinsPerJob, rawUsage, grpWallSeconds);
        }
    }

    @Schema(name = "Qos")
    public record Qos(String name, String description, int priority, Long maxWallSeconds, Integer maxJobsPerUser,
            Integer maxSubmitJobsPerUser,
            @Schema(example = "gres/gpu=16") String maxTresPerUser,
            @Schema(example = "cpu=64,gres/gpu=8") String maxTresPerJob,
            @Schema(example = "gres/gpu=64") String grpTres,
            List<String> preempt,
            @Schema(allowableValues = {"REQUEUE", "CANCEL", "SUSPEND"}) String preemptMode,
            double usageFactor,
            @Schema(description = "Seconds between the signal and the kill when a job of this QOS is preempted or "
                    + "reclaimed (Slurm's GraceTime); null: none") Long graceSeconds,
            @Schema(description = "Budget in TRES-minutes of every job of the QOS (Slurm's GrpTRESMins); a job that "
                    + "could overrun it by its time limit pends (QOSGrpGRESMinutes, ...); null: none",
                    example = "gres/gpu=6000") String grpTresMins,
            @Schema(description = RUN_MINS, example = "gres/gpu=1200") String grpTresRunMins,
            @Schema(description = MAX_MINS, example = "gres/gpu=600") String maxTresMinsPerJob,
            @Schema(description = USED, example = "gres/gpu=4210") String grpTresMinsUsed,
            @Schema(description = LEFT, example = "gres/gpu=1790") String grpTresMinsLeft,
            @Schema(description = "Seconds a job of this QOS runs before QOS preemption may choose it (Slurm's "
                    + "PreemptExemptTime); null: none") Long preemptExemptSeconds,
            @Schema(description = "Running jobs of one account under this QOS (Slurm's MaxJobsPerAccount; beyond it "
                    + "they pend with MaxJobsPerAccount); null: none") Integer maxJobsPerAccount,
            @Schema(description = "What the running jobs of one account under this QOS may hold (Slurm's "
                    + "MaxTRESPerAccount: MaxGRESPerAccount, MaxCpuPerAccount); null: none",
                    example = "gres/gpu=32") String maxTresPerAccount,
            @Schema(description = "The least each job of this QOS must ask (Slurm's MinTRESPerJob); a job asking "
                    + "less is refused at submission; null: none", example = "gres/gpu=1") String minTresPerJob,
            @Schema(description = "Jobs of this QOS are never warned, requeued or cancelled by a partition's GPU "
                    + "idle policy (sacctmgr Flags=GpuIdleExempt)") boolean gpuIdleExempt,
            @Schema(description = GRP_WALL, example = "36000") Long grpWallSeconds,
            @Schema(description = WALL_USED, example = "12600") Long grpWallSecondsUsed,
            @Schema(description = WALL_LEFT, example = "23400") Long grpWallSecondsLeft,
            @Schema(description = NO_DECAY) boolean noDecay,
            @Schema(description = "Slurm's OverPartQOS flag (sacctmgr Flags=OverPartQOS): where this QOS and the "
                    + "partition QOS of a job's partition set the same limit, this QOS's wins") boolean overPartQos) {
    }

    static final String NO_DECAY = "The QOS's own usage (what its grpTresMins and grpWallSeconds count) is neither "
            + "decayed nor cleared by the usage reset period, only by rawUsage=0 (Slurm's NoDecay flag, sacctmgr "
            + "Flags=NoDecay); its associations' usage still decays";

    @Schema(name = "QosRequest", description = "A new QOS, or a change to one (null leaves a field)")
    public record QosRequest(
            @Schema(description = "Required when creating") @Size(max = NAME) String name,
            @Size(max = DESCRIPTION) String description, Integer priority, Long maxWallSeconds, Integer maxJobsPerUser,
            Integer maxSubmitJobsPerUser, @Size(max = TRES) String maxTresPerUser,
            @Size(max = TRES) String maxTresPerJob, @Size(max = TRES) String grpTres,
            @Size(max = MAX_QOS) List<@NotNull @Size(max = NAME) String> preempt,
            @Schema(allowableValues = {"REQUEUE", "CANCEL", "SUSPEND"}) String preemptMode,
            Double usageFactor,
            @Schema(description = "0 or more; -1 clears") Long graceSeconds,
            @Schema(description = "TRES-minutes, e.g. gres/gpu=6000; \"\" clears") @Size(max = TRES) String grpTresMins,
            @Schema(description = "TRES-minutes; \"\" clears") @Size(max = TRES) String grpTresRunMins,
            @Schema(description = "TRES-minutes; \"\" clears") @Size(max = TRES) String maxTresMinsPerJob,
            @Schema(description = "Only 0: forgets the usage the QOS's budgets count (Slurm's RawUsage=0)")
            Double rawUsage,
            @Schema(description = "0 or more; -1 clears") Long preemptExemptSeconds,
            @Schema(description = "0 or more; -1 clears") Integer maxJobsPerAccount,
            @Schema(description = "TRES; \"\" clears") @Size(max = TRES) String maxTresPerAccount,
            @Schema(description = "TRES; \"\" clears") @Size(max = TRES) String minTresPerJob,
            @Schema(description = "true: exempt from the partitions' GPU idle policies") Boolean gpuIdleExempt,
            @Schema(description = WALL_REQUEST) Long grpWallSeconds,
            @Schema(description = NO_DECAY) Boolean noDecay,
            @Schema(description = "true: Slurm's OverPartQOS, this QOS's limits win over the partition QOS's")
            Boolean overPartQos) {

        /** A request without the GPU idle exemption. */
        public QosRequest(String name, String description, Integer priority, Long maxWallSeconds,
                Integer maxJobsPerUser, Integer maxSubmitJobsPerUser, String maxTresPerUser, String maxTresPerJob,
                String grpTres, List<String> preempt, String preemptMode, Double usageFactor, Long graceSeconds,
                String grpTresMins, String grpTresRunMins, String maxTresMinsPerJob, Double rawUsage,
                Long preemptExemptSeconds, Integer maxJobsPerAccount, String maxTresPerAccount, String minTresPerJob) {
            this(name, description, priority, maxWallSeconds, maxJobsPerUser, maxSubmitJobsPerUser, maxTresPerUser,
                    maxTresPerJob, grpTres, preempt, preemptMode, usageFactor, graceSeconds, grpTresMins,
                    grpTresRunMins, maxTresMinsPerJob, rawUsage, preemptExemptSeconds, maxJobsPerAccount,
                    maxTresPerAccount, minTresPerJob, null, null, null, null);
        }

        /** A request without a budget, a preempt exempt time or per-account limits. */
        public QosRequest(String name, String description, Integer priority, Long maxWallSeconds,
                Integer maxJobsPerUser, Integer maxSubmitJobsPerUser, String maxTresPerUser, String maxTresPerJob,
                String grpTres, List<String> preempt, String preemptMode, Double usageFactor, Long graceSeconds) {
            this(name, description, priority, maxWallSeconds, maxJobsPerUser, maxSubmitJobsPerUser, maxTresPerUser,
                    maxTresPerJob, grpTres, preempt, preemptMode, usageFactor, graceSeconds, null, null, null, null, null,
                    null, null, null, null, null, null, null);
        }
    }

    /**
     * What the engine needs of accounting for one cycle: every QOS and every association, every
     * account's quota (issue 16) and each QOS's grace time in seconds (absent: none).
     */
    public record EngineLimits(List<io.gantry.engine.Qos> qos, List<io.gantry.engine.Association> associations,
            List<io.gantry.engine.Quota> quotas, java.util.Map<String, Long> graceSeconds) {

        public EngineLimits {
            qos = List.copyOf(qos);
            associations = List.copyOf(associations);
            quotas = quotas == null ? List.of() : List.copyOf(quotas);
            graceSeconds = graceSeconds == null ? java.util.Map.of() : java.util.Map.copyOf(graceSeconds);
        }
    }
}
