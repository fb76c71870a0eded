package io.gantry.engine;

import java.util.Objects;

/**
 * A quality of service: a priority and limits. Zero counts and {@link Tres#UNLIMITED} mean no
 * limit; {@code maxWallSeconds <= 0} means no wall limit.
 */
public record Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
        Tres maxTresPerJob, Tres grpTres) {

    public Qos {
        Objects.requireNonNull(name, "name");
        maxTresPerUser = maxTresPerUser == null ? Tres.UNLIMITED : maxTresPerUser;
        maxTresPerJob = maxTresPerJob == null ? Tres.UNLIMITED : maxTresPerJob;
        grpTres = grpTres == null ? Tres.UNLIMITED : grpTres;
    }

    public static Qos named(String name, int priority) {
        return new Qos(name, priority, 0, 0, Tres.UNLIMITED, Tres.UNLIMITED, Tres.UNLIMITED);
    }
}
