package io.gantry.scheduling;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.quotas.*} (issue 16): {@code min-runtime} is how long a job that borrows another
 * account's guarantee runs at least before a reclaim may stop it (so a busy owner cannot make
 * borrowers thrash); the owner's job waits as WaitingForReclaim meanwhile.
 */
@ConfigurationProperties("gantry.quotas")
public record QuotaProperties(@DefaultValue("0s") Duration minRuntime) {

    public QuotaProperties {
        if (minRuntime.isNegative()) {
            throw new IllegalArgumentException("gantry.quotas.min-runtime must not be negative");
        }
    }
}
