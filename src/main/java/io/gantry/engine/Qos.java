package io.gantry.engine;

import java.util.Objects;

/**
 * A quality of service: a priority and limits. Zero counts and {@link Tres#UNLIMITED} mean no
 * limit; {@code maxWallSeconds <= 0} means no wall limit. {@code preempts} names the QOS whose
 * running jobs a pending job of this QOS may stop to start now, in {@code preemptMode}.
 */
public record Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
        Tres maxTresPerJob, Tres grpTres, java.util.Set<String> preempts, Preemption.Mode preemptMode) {

    /** A QOS that preempts nothing. */
    public Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
            Tres maxTresPerJob, Tres grpTres) {
        this(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres,
                java.util.Set.of(), Preemption.Mode.REQUEUE);
    }

    public Qos {
        preempts = preempts == null ? java.util.Set.of() : java.util.Set.copyOf(preempts);
        preemptMode = preemptMode == null ? Preemption.Mode.REQUEUE : preemptMode;
        Objects.requireNonNull(name, "name");
        maxTresPerUser = maxTresPerUser == null ? Tres.UNLIMITED : maxTresPerUser;
        maxTresPerJob = maxTresPerJob == null ? Tres.UNLIMITED : maxTresPerJob;
        grpTres = grpTres == null ? Tres.UNLIMITED : grpTres;
    }

    public static Qos named(String name, int priority) {
        return new Qos(name, priority, 0, 0, Tres.UNLIMITED, Tres.UNLIMITED, Tres.UNLIMITED);
    }
}
