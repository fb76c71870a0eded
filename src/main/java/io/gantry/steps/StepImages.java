package io.gantry.steps;

import org.springframework.stereotype.Component;

/**
 * The images srun steps run in, as their nodes report them (an agent's IMAGE report with a step id
 * comes with the job's reports, which the agents feature reads): the steps feature keeps them.
 */
@Component
public class StepImages {

    private final StepStore store;

    StepImages(StepStore store) {
        this.store = store;
    }

    /** Records the digest of step {@code stepId}'s image; false when it had one already or no such step exists. */
    public boolean record(long jobRow, int stepId, String digest) {
        return store.recordImage(jobRow, stepId, digest);
    }
}
