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
            @Schema(description = "The QOS its jobs may ask for; empty allows every QOS") List<String> qos) {
    }

    @Schema(name = "AssociationRequest", description = "A new association, or a change to one (null leaves a field)")
    public record AssociationRequest(
            @Schema(description = "Required when creating") @Size(max = NAME) String account,
            @Schema(description = "Required when creating") @Size(max = NAME) String user,
            Integer shares, Integer maxJobs, Integer maxSubmitJobs,
            @Schema(example = "cpu=64,gres/gpu=8") @Size(max = TRES) String grpTres,
            @Size(max = NAME) String defaultQos, @Size(max = MAX_QOS) List<@NotNull @Size(max = NAME) String> qos) {
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
            @Schema(description = "Seconds a job of this QOS runs before QOS preemption may choose it (Slurm's "
                    + "PreemptExemptTime); null: none") Long preemptExemptSeconds) {
    }

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
            @Schema(description = "0 or more; -1 clears") Long preemptExemptSeconds) {

        /** A request without a preempt exempt time. */
        public QosRequest(String name, String description, Integer priority, Long maxWallSeconds,
                Integer maxJobsPerUser, Integer maxSubmitJobsPerUser, String maxTresPerUser, String maxTresPerJob,
                String grpTres, List<String> preempt, String preemptMode, Double usageFactor, Long graceSeconds) {
            this(name, description, priority, maxWallSeconds, maxJobsPerUser, maxSubmitJobsPerUser, maxTresPerUser,
                    maxTresPerJob, grpTres, preempt, preemptMode, usageFactor, graceSeconds, null);
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
