package io.gantry.scheduling;

/**
 * This controller has just become the scheduling leader and loaded the active state: what runs only
 * on the leader (simulated nodes) starts now.
 */
public record LeadershipAcquired() {
}
