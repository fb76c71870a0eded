package io.gantry.steps;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.web.context.request.async.DeferredResult;

import io.gantry.noded.protocol.StepProtocol.StepIo;
import io.gantry.noded.protocol.StepProtocol.StepOutputChunk;
import io.gantry.noded.protocol.StepProtocol.StepTaskExit;
import io.gantry.jobs.JobState;

/**
 * A running (or just ended) step on the leader: the one relay between its tasks' agents and srun. Output
 * chunks get a sequence number per step in the order they arrive and wait here, at most
 * {@link #MAX_BYTES} of them (the oldest are dropped, and the next reader is told); srun long-polls them
 * with its last sequence number. Guarded by its own monitor.
 */
final class StepRun {

    /** Output kept per step for srun to read; a step that writes faster than srun reads loses its oldest. */
    static final long MAX_BYTES = 16L * 1024 * 1024;

    private record Waiter(long after, DeferredResult<StepIo> result) {
    }

    final StepRecord step;
    /** node -> first global rank of its tasks; the nodes' ranks follow the layout. */
    private final Map<String, int[]> ranks = new HashMap<>();
    private final ArrayDeque<StepOutputChunk> chunks = new ArrayDeque<>();
    private final Map<Integer, Long> lastSeqOfTask = new HashMap<>();
    private final TreeMap<Integer, StepTaskExit> exits = new TreeMap<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private long lastSeq;
    private long bytes;
    private long droppedBytes;
    private boolean signalled;
    private JobState endState;
    private Integer endExit;
    private long endedAtMillis;
    /** Set for an {@code srun --mpi=pmi2} step: its key-value exchange between nodes. */
    private PmiExchange pmi;
    /** A task of an MPI step failed and the step was killed for it: the kill's signals are not the step's end. */
    private boolean failFast;
    /** Tasks that called PMI's abort, with the exit code they asked for. */
    private final Map<Integer, Integer> abortCodes = new HashMap<>();

    StepRun(StepRecord step) {
        this.step = step;
        int first = 0;
        for (int i = 0; i < step.nodes().size(); i++) {
            int count = step.layout().get(i);
            ranks.put(step.nodes().get(i), new int[] { first, first + count });
            first += count;
        }
    }

    /** Whether {@code procId} is one of the tasks the step runs on {@code node}. */
    boolean runsOn(String node, int procId) {
        int[] range = ranks.get(node);
        return range != null && procId >= range[0] && procId < range[1];
    }

    synchronized void output(int procId, String stream, long taskSeq, String data) {
        if (endState != null || data == null || data.isEmpty()) {
            return;
        }
        Long last = lastSeqOfTask.get(procId);
        if (last != null && taskSeq <= last) {
            return; // a report the agent sent again
        }
        lastSeqOfTask.put(procId, taskSeq);
        chunks.add(new StepOutputChunk(++lastSeq, procId, "stderr".equals(stream) ? "stderr" : "stdout", data));
        bytes += data.length();
        while (bytes > MAX_BYTES && chunks.size() > 1) {
            StepOutputChunk dropped = chunks.removeFirst();
            bytes -= dropped.data().length();
            droppedBytes += dropped.data().length();
        }
        wake();
    }

    /** Records a task's end; true when it was the last task and the step thereby ended. */
    synchronized boolean ended(int procId, Integer exitCode, Integer signal, long nowMillis) {
        if (endState != null || exits.containsKey(procId)) {
            return false;
        }
        if (abortCodes.containsKey(procId) && (signal != null || exitCode == null || exitCode == 0)) {
            // killed after its PMI abort: it ends with the code it asked for, as under mpiexec
            exitCode = abortCodes.get(procId);
            signal = null;
        }
        exits.put(procId, new StepTaskExit(procId, exitCode, signal));
        if (exits.size() < step.tasks()) {
            wake();
            return false;
        }
        if (failFast && failedWith() > 0) {
            int code = failedWith();
            // the tasks the failure's kill ended count for nothing: the step ends with the failed task's code
            exits.replaceAll((p, e) -> e.signal() != null && e.signal() == 9 ? new StepTaskExit(p, null, null) : e);
            finish(JobState.FAILED, code, nowMillis);
            return true;
        }
        int highest = 0;
        for (StepTaskExit e : exits.values()) {
            highest = Math.max(highest, e.exitCode() != null ? e.exitCode() : 128 + (e.signal() == null ? 0 : e.signal()));
        }
        finish(signalled && highest != 0 ? JobState.CANCELLED : highest == 0 ? JobState.COMPLETED : JobState.FAILED,
                highest, nowMillis);
        return true;
    }

    synchronized void signalled() {
        signalled = true;
    }

    /** The highest exit code a task of it exited with (not counting signals). */
    private int failedWith() {
        int code = 0;
        for (StepTaskExit e : exits.values()) {
            if (e.exitCode() != null) {
                code = Math.max(code, e.exitCode());
            }
        }
        return code;
    }

    /** Makes it an {@code srun --mpi=pmi2} step (at its start, or from its first fence after a takeover). */
    synchronized PmiExchange pmi() {
        if (pmi == null) {
            pmi = new PmiExchange(step.nodes());
        }
        return pmi;
    }

    synchronized boolean isPmi() {
        return pmi != null;
    }

    /**
     * A task of an MPI step failed ({@code exitCode} the code its PMI abort asked for, or null): true the
     * first time, when the caller kills the step on every node. The step then ends FAILED with the
     * failed task's code, not with the kill's signal (as mpiexec ends with it).
     */
    synchronized boolean failFast(int procId, Integer exitCode) {
        if (endState != null) {
            return false;
        }
        if (exitCode != null && (exitCode & 0xFF) != 0) {
            abortCodes.putIfAbsent(procId, exitCode & 0xFF); // what the task's exit status would hold
        }
        if (failFast) {
            return false;
        }
        failFast = true;
        return true;
    }

    /**
     * Ends the step without its tasks' word (its job ended, or a node of it failed); tasks that never
     * reported count as killed. False when it had ended already.
     */
    synchronized boolean abort(JobState state, long nowMillis) {
        if (endState != null) {
            return false;
        }
        for (int procId = 0; procId < step.tasks(); procId++) {
            exits.putIfAbsent(procId, new StepTaskExit(procId, null, 9));
        }
        finish(state, null, nowMillis);
        return true;
    }

    private void finish(JobState state, Integer exit, long nowMillis) {
        endState = state;
        endExit = exit;
        endedAtMillis = nowMillis;
        wake();
    }

    synchronized boolean done() {
        return endState != null;
    }

    synchronized JobState endState() {
        return endState;
    }

    synchronized Integer endExit() {
        return endExit;
    }

    /** When it ended (epoch milliseconds of the controller's clock); 0 while it runs. */
    synchronized long endedAtMillis() {
        return endedAtMillis;
    }

    /** Answers at once when there is output after {@code after} or the step is done, else holds the poll. */
    synchronized void poll(long after, DeferredResult<StepIo> result) {
        if (endState != null || lastSeq > after) {
            result.setResult(io(after));
            return;
        }
        Waiter waiter = new Waiter(after, result);
        waiters.add(waiter);
        result.onCompletion(() -> forget(waiter));
    }

    private synchronized void forget(Waiter waiter) {
        waiters.remove(waiter);
    }

    /** What a poll answers right now. */
    synchronized StepIo io(long after) {
        List<StepOutputChunk> out = new ArrayList<>();
        StepOutputChunk first = chunks.peekFirst();
        if (first != null && first.seq() > after + 1 && droppedBytes > 0) {
            out.add(new StepOutputChunk(first.seq() - 1, -1, "stderr", "srun: " + droppedBytes + " bytes of this "
                    + "step's output were dropped: the controller keeps at most " + MAX_BYTES / (1024 * 1024)
                    + " MB per step for srun to read\n"));
        }
        for (StepOutputChunk c : chunks) {
            if (c.seq() > after) {
                out.add(c);
            }
        }
        long next = Math.max(after, lastSeq);
        return new StepIo(out, next, endState != null, endState != null ? List.copyOf(exits.values()) : List.of());
    }

    private void wake() {
        if (waiters.isEmpty()) {
            return;
        }
        Iterator<Waiter> it = waiters.iterator();
        List<Waiter> ready = new ArrayList<>();
        while (it.hasNext()) {
            Waiter w = it.next();
            if (endState != null || lastSeq > w.after()) {
                ready.add(w);
                it.remove();
            }
        }
        for (Waiter w : ready) {
            w.result().setResult(io(w.after()));
        }
    }
}
