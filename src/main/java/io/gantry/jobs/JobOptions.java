package io.gantry.jobs;

import java.time.Instant;

import jakarta.persistence.Embeddable;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The options a job keeps as it was asked, once the submission has checked them: one record from the
 * resolved submission ({@link JobSpec}) to the store ({@link JobEntity} embeds it, {@link JobInserts}
 * writes its components as columns named after them) and to what the API shows ({@link JobViews.JobView}
 * unwraps it into the job's fields). An option added here is stored and shown without touching those
 * classes: it needs its JSON field ({@link JobSubmission}), its {@code #SBATCH} line
 * ({@link SbatchDirectives}), the resolver step that checks it, a column, and whatever acts on it.
 * <p>
 * Every component is null when the job did not ask.
 *
 * @param deadline {@code --deadline}: when it must have ended ({@link Deadlines} ends it DEADLINE otherwise)
 * @param killOnInvalidDep {@code --kill-on-invalid-dep}: cancelled (true) or left pending (false) when its
 *     dependency can never hold; null: the cluster's default
 */
@Embeddable
public record JobOptions(
        @Schema(description = "When it must have ended (--deadline); null when none. A job that can no longer "
                + "end by then ends in state DEADLINE") Instant deadline,
        @Schema(description = "Whether it is cancelled when its dependency can never be satisfied "
                + "(--kill-on-invalid-dep=yes|no); null when it did not say, and the cluster's "
                + "gantry.scheduler.kill-invalid-depend decides") Boolean killOnInvalidDep) {

    /** A job that asked for none of them. */
    public static final JobOptions NONE = new JobOptions(null, null);

    static Builder builder() {
        return new Builder();
    }

    /** The options as a submission's steps settle them, one by one. */
    static final class Builder {
        private Instant deadline;
        private Boolean killOnInvalidDep;

        Builder deadline(Instant value) {
            this.deadline = value;
            return this;
        }

        Builder killOnInvalidDep(Boolean value) {
            this.killOnInvalidDep = value;
            return this;
        }

        JobOptions build() {
            return new JobOptions(deadline, killOnInvalidDep);
        }
    }
}
