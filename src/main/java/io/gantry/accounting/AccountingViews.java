package io.gantry.accounting;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * What the accounting API reads and writes. In a change, {@code null} leaves a field as it is; a
 * limit is cleared with {@code -1} (numbers) or {@code ""} (TRES), as {@code sacctmgr} does.
 */
public final class AccountingViews {

    private AccountingViews() {
    }

    @Schema(name = "Account")
    public record Account(String name, String parent, String description, String organization,
            @Schema(description = "Fair-share shares (Slurm's Fairshare)") int shares, Instant createdAt) {
    }

    @Schema(name = "AccountRequest", description = "A new account, or a change to one (null leaves a field)")
    public record AccountRequest(
            @Schema(description = "Required when creating") String name,
            @Schema(description = "Defaults to root when creating") String parent,
            String description, String organization,
            @Schema(description = "At least 1; defaults to 1") Integer shares) {
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
            @Schema(description = "Required when creating") String account,
            @Schema(description = "Required when creating") String user,
            Integer shares, Integer maxJobs, Integer maxSubmitJobs,
            @Schema(example = "cpu=64,gres/gpu=8") String grpTres,
            String defaultQos, List<String> qos) {
    }

    @Schema(name = "Qos")
    public record Qos(String name, String description, int priority, Long maxWallSeconds, Integer maxJobsPerUser,
            Integer maxSubmitJobsPerUser,
            @Schema(example = "gres/gpu=16") String maxTresPerUser,
            @Schema(example = "cpu=64,gres/gpu=8") String maxTresPerJob,
            @Schema(example = "gres/gpu=64") String grpTres,
            List<String> preempt,
            @Schema(allowableValues = {"REQUEUE", "CANCEL"}) String preemptMode,
            double usageFactor) {
    }

    @Schema(name = "QosRequest", description = "A new QOS, or a change to one (null leaves a field)")
    public record QosRequest(
            @Schema(description = "Required when creating") String name,
            String description, Integer priority, Long maxWallSeconds, Integer maxJobsPerUser,
            Integer maxSubmitJobsPerUser, String maxTresPerUser, String maxTresPerJob, String grpTres,
            List<String> preempt,
            @Schema(allowableValues = {"REQUEUE", "CANCEL"}) String preemptMode,
            Double usageFactor) {
    }

    /** What the engine needs of accounting for one cycle: every QOS and every association. */
    public record EngineLimits(List<io.gantry.engine.Qos> qos, List<io.gantry.engine.Association> associations) {

        public EngineLimits {
            qos = List.copyOf(qos);
            associations = List.copyOf(associations);
        }
    }
}
