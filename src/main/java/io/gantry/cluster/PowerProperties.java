package io.gantry.cluster;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.power.*}: power saving, as Slurm's SuspendProgram and ResumeProgram.
 * <ul>
 * <li>{@code suspend-time}: how long an agent-run node stays idle (no job, in service) before it is
 * powered down; unset (the default) turns power saving off.</li>
 * <li>{@code suspend-program}, {@code resume-program}: run on the leading controller, as the controller's
 * user, with the nodes in hostlist form as their one argument ({@code gpu[01-04]}).</li>
 * <li>{@code suspend-timeout}: how long a node stays POWERING_DOWN before it counts as POWERED_DOWN (sooner
 * when its agent goes away).</li>
 * <li>{@code resume-timeout}: how long a node may take from its resume program to its agent registering;
 * beyond it the node goes DOWN ("ResumeTimeout reached") and its jobs go back to the queue. It is also the
 * delay the expected starts count for a powered-down node.</li>
 * <li>{@code excluded-nodes} (hostlists), {@code excluded-partitions}: nodes never powered down.</li>
 * </ul>
 */
@ConfigurationProperties("gantry.power")
public record PowerProperties(
        Duration suspendTime,
        String suspendProgram,
        String resumeProgram,
        @DefaultValue("30s") Duration suspendTimeout,
        @DefaultValue("300s") Duration resumeTimeout,
        @DefaultValue List<String> excludedNodes,
        @DefaultValue List<String> excludedPartitions) {

    public PowerProperties {
        if (suspendTime != null && (suspendTime.isNegative() || suspendTime.isZero())) {
            throw new IllegalArgumentException("gantry.power.suspend-time must be positive (unset turns power saving off)");
        }
        if (suspendTimeout.isNegative() || resumeTimeout.isNegative() || resumeTimeout.isZero()) {
            throw new IllegalArgumentException("gantry.power.suspend-timeout and resume-timeout must be positive");
        }
        if (suspendTime != null && (blank(suspendProgram) || blank(resumeProgram))) {
            throw new IllegalArgumentException("gantry.power.suspend-time is set: gantry.power.suspend-program and "
                    + "gantry.power.resume-program must name the programs that power nodes down and up");
        }
    }

    /** Whether nodes are powered down at all. */
    public boolean enabled() {
        return suspendTime != null;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
