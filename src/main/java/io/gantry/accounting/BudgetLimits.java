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
 * in MB-minutes ({@code mem=1G} is 1,024 MB-minutes), as Slurm counts it.
 */
@Embeddable
class BudgetLimits {

    @Column(name = "grp_tres_mins", length = 256)
    private String grpTresMins;

    @Column(name = "grp_tres_run_mins", length = 256)
    private String grpTresRunMins;

    @Column(name = "max_tres_mins_per_job", length = 256)
    private String maxTresMinsPerJob;

    String grpTresMins() { return grpTresMins; }
    String grpTresRunMins() { return grpTresRunMins; }
    String maxTresMinsPerJob() { return maxTresMinsPerJob; }

    /** Sets the fields that are not null ({@code ""} clears one); every bad one is a field error, nothing set then. */
    void apply(String grp, String run, String maxPerJob, List<FieldError> errors) {
        String[] texts = { grp, run, maxPerJob };
        String[] fields = { "grpTresMins", "grpTresRunMins", "maxTresMinsPerJob" };
        String[] normal = new String[3];
        int before = errors.size();
        for (int i = 0; i < 3; i++) {
            if (texts[i] != null) {
                try {
                    normal[i] = TresText.normalize(fields[i], texts[i]);
                } catch (GantryException e) {
                    errors.addAll(e.errors());
                }
            }
        }
        if (errors.size() > before) {
            return;
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
        return grpTresMins != null || grpTresRunMins != null || maxTresMinsPerJob != null;
    }

    Tres grp() { return TresText.limit(grpTresMins); }
    Tres run() { return TresText.limit(grpTresRunMins); }
    Tres maxPerJob() { return TresText.limit(maxTresMinsPerJob); }
}
