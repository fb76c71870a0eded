package io.gantry.scheduling;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.scheduler.*}: {@code interval} is the longest time between cycles (a submission,
 * an ended job or a node change wakes the worker sooner); {@code policy} is one of the engine's
 * named policies (default, easy, fifo); {@code enabled=false} stops this process scheduling at all.
 */
@ConfigurationProperties("gantry.scheduler")
public record SchedulerProperties(
        @DefaultValue("1s") Duration interval,
        @DefaultValue("default") String policy,
        @DefaultValue("true") boolean enabled,
        @DefaultValue("4242") long advisoryLockKey) {
}
