package io.gantry.fleet;

import java.util.List;

import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.jobs.JobTimeLimitChanged;

/**
 * Tells a running job's agent its new time limit once the change is committed, so that a limit
 * raised by an operator is not enforced at the old one (and a lowered one is). Simulated nodes
 * and agents connected elsewhere have no session here; theirs is dropped, as kills are.
 */
@Component
class TimeLimitUpdates {

    private final AgentHub hub;

    TimeLimitUpdates(AgentHub hub) {
        this.hub = hub;
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobTimeLimitChanged event) {
        hub.deliver(event.batchHost(), List.of(Command.update(event.jobId(), event.timeLimitSeconds())));
    }
}
