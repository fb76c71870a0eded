package io.gantry.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.stereotype.Component;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.OutputChunk;
import io.gantry.noded.protocol.AgentProtocol.OutputRead;
import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;

/**
 * Reads of job output files from the agents that hold them: each read is an OUTPUT_READ command
 * delivered through the agent's long poll, answered by the agent's POST to {@code /output} with
 * the request's id. Only the node asked may answer; an agent that does not answer in
 * {@link #ANSWER_WAIT} fails the read with 503 (its client may try again).
 */
@Component
class JobOutputRequests {

    static final Duration ANSWER_WAIT = Duration.ofSeconds(10);

    private record Pending(String node, String jobId, CompletableFuture<OutputChunk> answer) {
    }

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AgentHub hub;

    JobOutputRequests(AgentHub hub) {
        this.hub = hub;
    }

    /** Asks {@code node}'s agent for up to {@code maxBytes} of the job's {@code stream} from {@code offset}. */
    CompletableFuture<OutputChunk> read(String node, String jobId, String stream, long offset, int maxBytes) {
        if (!hub.connected(node)) {
            return CompletableFuture.failedFuture(new GantryException(ProblemType.UNAVAILABLE, "The agent of node "
                    + node + ", where job " + jobId + " runs, is not connected: its output cannot be read now"));
        }
        String requestId = UUID.randomUUID().toString();
        CompletableFuture<OutputChunk> answer = new CompletableFuture<>();
        pending.put(requestId, new Pending(node, jobId, answer));
        hub.deliver(node, List.of(Command.outputRead(jobId, new OutputRead(requestId, stream, offset, maxBytes))));
        return answer.orTimeout(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((chunk, failure) -> pending.remove(requestId))
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(failure instanceof TimeoutException
                        ? new GantryException(ProblemType.UNAVAILABLE, "The agent of node " + node + " did not send job "
                                + jobId + "'s output within " + ANSWER_WAIT.toSeconds() + " s; try again")
                        : failure));
    }

    /**
     * An agent's answer; false when no read of this node waits for it (it came too late, or names
     * another node's request or job): it is dropped.
     */
    boolean answer(String node, OutputChunk chunk) {
        if (chunk == null || chunk.requestId() == null) {
            return false;
        }
        Pending waiting = pending.get(chunk.requestId());
        if (waiting == null || !waiting.node().equals(node) || !waiting.jobId().equals(chunk.jobId())) {
            return false;
        }
        pending.remove(chunk.requestId());
        return waiting.answer().complete(chunk);
    }
}
