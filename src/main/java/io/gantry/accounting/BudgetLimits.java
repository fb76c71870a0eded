package io.gantry.accounting;

import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.engine.Tres;

/**
 * The TRES-minutes budgets of an association or a QOS (issue 32), kept as written (see {@link TresText}):
 * Slurm's {@code GrpTRESMins}, {@code GrpTRESRunMins} and {@code MaxTRESMinsPerJob}. A memory budget is
 * in MB-minutes ({@code mem=1G} is 1,024 MB-minutes), as Slurm counts it. Beside them Slurm's {@code GrpWall},
 * in seconds: the wall-clock time all the jobs together may run.
 */
@Embeddable
class BudgetLimits {

    @Column(name = "grp_tres_mins", length = 256)
    private String grpTresMins;

    @Column(name = "grp_tres_run_mins", length = 256)
    private String grpTresRunMins;

    @Column(name = "max_tres_mins_per_job", length = 256)
    private String maxTresMinsPerJob;

    @Column(name = "grp_wall_seconds")
    private Long grpWallSeconds;

    String grpTresMins() { return grpTresMins; }
    String grpTresRunMins() { return grpTresRunMins; }
    String maxTresMinsPerJob() { return maxTresMinsPerJob; }
    Long grpWallSeconds() { return grpWallSeconds; }

    /**
     * Sets the fields that are not null ({@code ""} clears a TRES one, -1 {@code grpWall}); every bad one is a
     * field error, nothing set then.
     */
    void apply(String grp, String run, String maxPerJob, Long grpWall, List<FieldError> errors) {
        String[] texts = { grp, run, maxPerJob };
        String[] fields = { "grpTresMins", "grpTresRunMins", "maxTresMinsPerJob" };
        String[] normal = new String[3];
        int before = errors.size();
        for (int i = 0; i < 3; i++) {
            if (texts[i] != null) {
                try {
                    normal[i] = TresText.normalize(fields[i], texts[i], true);
                } catch (GantryException e) {
                    errors.addAll(e.errors());
                }
            }
        }
        if (grpWall != null && grpWall < -1) {
            errors.add(new FieldError("grpWallSeconds", "must be 0 or more seconds, or -1 to clear it; was " + grpWall));
        }
        if (errors.size() > before) {
            return;
        }
        if (grpWall != null) {
            grpWallSeconds = grpWall == -1 ? null : grpWall;
        }
        if (grp != null) {
            grpTresMins = normal[0];
        }
        if (run != null) {
            grpTresRunMins = normal[1];
        }
        if (maxPerJob != null) {
            maxTresMinsPerJob = normal[2];
        }
    }

    boolean any() {
        return grpTresMins != null || grpTresRunMins != null || maxTresMinsPerJob != null || grpWallSeconds != null;
    }

    /** Slurm allows only {@code RawUsage=0}: a reset. */
    static void rawUsage(Double value, List<FieldError> errors) {
        if (value != null && value != 0) {
            errors.add(new FieldError("rawUsage", "only 0 is allowed (it resets the usage), was " + value));
        }
    }

    /** {@code grpWallSeconds} as the engine takes it. */
    long wall() { return grpWallSeconds == null ? io.gantry.engine.Budget.NO_WALL : grpWallSeconds; }

    /** Wall seconds used and left of {@code grpWallSeconds}; nulls without it. */
    Long[] wallUsedAndLeft(double usedSeconds) {
        if (grpWallSeconds == null) {
            return new Long[2];
        }
        long used = (long) usedSeconds;
        return new Long[] { used, Math.max(0, grpWallSeconds - used) };
    }

    Tres grp() { return TresText.limit(grpTresMins); }
    Tres run() { return TresText.limit(grpTresRunMins); }
    Tres maxPerJob() { return TresText.limit(maxTresMinsPerJob); }

    /** The budgets on billing, in billing-minutes, with what was used ({@code usedSeconds}, billing-seconds). */
    io.gantry.engine.Budget.Billing billing(double usedSeconds) {
        return new io.gantry.engine.Budget.Billing(TresText.billing(grpTresMins), TresText.billing(grpTresRunMins),
                TresText.billing(maxTresMinsPerJob), (long) Math.max(0, usedSeconds));
    }
}
