package io.gantry.scheduling;

import java.util.List;

import io.gantry.jobs.ActiveJob;

/**
 * This controller has just become the scheduling leader and loaded the active state: what runs only
 * on the leader (simulated nodes) starts now, from {@code running}, the running and completing jobs.
 */
public record LeadershipAcquired(List<ActiveJob> running) {

    public LeadershipAcquired {
        running = List.copyOf(running);
    }
}
