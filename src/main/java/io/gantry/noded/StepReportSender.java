package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.AgentProtocol.StepReports;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers step tasks' output and exits to the controller on a thread of its own, oldest first, in
 * batches, retried every second until acknowledged. Unlike job reports they live in memory only: a
 * step does not outlive the agent that runs its tasks. Output is bounded: while more than
 * {@value #MAX_QUEUED_BYTES} bytes wait (the controller is away, or a task writes faster than it
 * takes), new output is dropped with a warning, leaving a gap in the task's sequence numbers. Exits
 * are never dropped, so srun always learns how its tasks ended.
 */
final class StepReportSender implements Consumer<StepReport> {

    private static final Logger log = LoggerFactory.getLogger(StepReportSender.class);
    static final int MAX_QUEUED_BYTES = 16 * 1024 * 1024;
    private static final int BATCH_REPORTS = 500;
    private static final int BATCH_BYTES = 1024 * 1024;
    private static final long RETRY_MILLIS = 1000;

    /** Where batches go; the agent's is {@link ControllerClient#stepReports}. */
    @FunctionalInterface
    interface Delivery {
        void send(Agent.Session session, StepReports reports)
                throws IOException, InterruptedException, ControllerClient.Refused;
    }

    private final Delivery delivery;
    private final Supplier<Agent.Session> session;
    private final Deque<StepReport> queue = new ArrayDeque<>();
    private final Thread thread;
    private long queuedBytes;
    private long dropped;
    private volatile boolean stopped;
    private String lastProblem;

    StepReportSender(Delivery delivery, Supplier<Agent.Session> session) {
        this.delivery = delivery;
        this.session = session;
        this.thread = new Thread(this::run, "agent-step-reports");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        stopped = true;
        thread.interrupt();
    }

    @Override
    public synchronized void accept(StepReport report) {
        long size = size(report);
        if (report.type() == StepReportType.OUTPUT && queuedBytes + size > MAX_QUEUED_BYTES) {
            if (dropped++ == 0) {
                log.warn("step output waits to be sent beyond {} bytes: dropping output of step {}.{} and others "
                        + "until the controller catches up", MAX_QUEUED_BYTES, report.jobId(), report.stepId());
            }
            return;
        }
        queue.addLast(report);
        queuedBytes += size;
        notifyAll();
    }

    /** The reports waiting to be sent, oldest first. */
    synchronized List<StepReport> pending() {
        return List.copyOf(queue);
    }

    private synchronized List<StepReport> oldest(long timeoutMillis) throws InterruptedException {
        if (queue.isEmpty()) {
            wait(timeoutMillis);
        }
        List<StepReport> batch = new ArrayList<>();
        long bytes = 0;
        for (StepReport r : queue) {
            if (batch.size() >= BATCH_REPORTS || (!batch.isEmpty() && bytes + size(r) > BATCH_BYTES)) {
                break;
            }
            batch.add(r);
            bytes += size(r);
        }
        return batch;
    }

    private synchronized void remove(int count) {
        for (int i = 0; i < count && !queue.isEmpty(); i++) {
            queuedBytes -= size(queue.removeFirst());
        }
        if (dropped > 0 && queuedBytes < MAX_QUEUED_BYTES / 2) {
            log.warn("step output flows again; {} output report(s) were dropped", dropped);
            dropped = 0;
        }
    }

    private void run() {
        try {
            while (!stopped) {
                List<StepReport> batch = oldest(RETRY_MILLIS);
                if (batch.isEmpty()) {
                    continue;
                }
                Agent.Session current = session.get();
                if (current == null) {
                    Thread.sleep(RETRY_MILLIS); // not registered yet
                    continue;
                }
                if (send(batch, current)) {
                    remove(batch.size());
                } else {
                    Thread.sleep(RETRY_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            // stopping
        }
    }

    /** True when the batch is done with: acknowledged, or refused in a way resending cannot mend. */
    private boolean send(List<StepReport> batch, Agent.Session current) throws InterruptedException {
        String problem;
        try {
            delivery.send(current, new StepReports(batch));
            if (lastProblem != null) {
                log.info("sending step reports works again");
                lastProblem = null;
            }
            return true;
        } catch (IOException e) {
            problem = Agent.describe(e);
        } catch (ControllerClient.Refused e) {
            if (e.status() == 400 || e.status() == 404) {
                log.warn("the controller refused {} step report(s) of step {}.{}: {}; dropping them", batch.size(),
                        batch.get(0).jobId(), batch.get(0).stepId(), e.getMessage());
                return true;
            }
            problem = e.getMessage();
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        if (!problem.equals(lastProblem)) {
            log.warn("sending {} step report(s) failed, retrying every second: {}", batch.size(), problem);
            lastProblem = problem;
        }
        return false;
    }

    private static long size(StepReport report) {
        return 64 + (report.data() == null ? 0 : report.data().length());
    }
}
