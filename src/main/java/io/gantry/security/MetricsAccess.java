package io.gantry.security;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Whether {@code /metrics} (and {@code /actuator/prometheus}, which serves the same registry) needs a
 * token. As Slurm 25.11's slurmctld does: open by default, so that Prometheus scrapes it with no
 * credentials (they show who has how many jobs and GPUs, which every user already sees in squeue);
 * once user data is private ({@code gantry.jobs.private-jobs} or {@code gantry.accounting.private-users},
 * Slurm's PrivateData) or {@code gantry.metrics.require-token} is set, only an OPERATOR's token
 * (Slurm's MetricsAuthUsers; Prometheus sends it with {@code authorization: credentials_file}).
 * Read from the environment by name: the security configuration depends on no feature package.
 */
final class MetricsAccess {

    static final String[] PATHS = {"/metrics", "/actuator/prometheus"};

    private MetricsAccess() {
    }

    static boolean tokenRequired(Environment environment) {
        Binder binder = Binder.get(environment);
        return flag(binder, "gantry.metrics.require-token") || flag(binder, "gantry.jobs.private-jobs")
                || flag(binder, "gantry.accounting.private-users");
    }

    private static boolean flag(Binder binder, String name) {
        return binder.bind(name, Boolean.class).orElse(false);
    }
}
