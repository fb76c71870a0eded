package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.Reports;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the report queue to the controller on a thread of its own, so a job's end goes out as
 * soon as it happens instead of waiting for the next poll: the oldest reports in batches, retried
 * every second until the controller acknowledges them with a 2xx answer, which is when they leave
 * the queue. Never reorders. A batch the controller refuses as invalid (400) is sent again one report
 * at a time, and a single report it refuses is dropped with a warning: resending it could never
 * succeed, and would hold back every report behind it.
 */
final class ReportSender {

    private static final Logger log = LoggerFactory.getLogger(ReportSender.class);
    private static final int BATCH = 100;
    private static final long RETRY_MILLIS = 1000;

    private final ReportQueue queue;
    private final ControllerClient client;
    private final Supplier<Agent.Session> session;
    private final Thread thread;
    private volatile boolean stopped;
    private String lastProblem;

    ReportSender(ReportQueue queue, ControllerClient client, Supplier<Agent.Session> session) {
        this.queue = queue;
        this.client = client;
        this.session = session;
        this.thread = new Thread(this::run, "agent-reports");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        stopped = true;
        thread.interrupt();
    }

    private void run() {
        try {
            while (!stopped) {
                List<Report> batch = queue.oldest(BATCH, RETRY_MILLIS);
                Agent.Session current = session.get();
                if (batch.isEmpty()) {
                    continue;
                }
                if (current == null) {
                    Thread.sleep(RETRY_MILLIS); // not registered yet
                    continue;
                }
                Outcome outcome = send(batch, current);
                if (outcome == Outcome.SENT) {
                    queue.acknowledge(batch.size());
                } else if (outcome == Outcome.INVALID) {
                    if (!sendOneByOne(batch, current)) {
                        Thread.sleep(RETRY_MILLIS);
                    }
                } else {
                    Thread.sleep(RETRY_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            // stopping
        }
    }

    private enum Outcome {
        SENT, INVALID, FAILED
    }

    /** Sends the oldest reports singly; false when one could not be delivered (it is retried later). */
    private boolean sendOneByOne(List<Report> batch, Agent.Session current) throws InterruptedException {
        for (Report report : batch) {
            Outcome outcome = send(List.of(report), current);
            if (outcome == Outcome.FAILED) {
                return false;
            }
            if (outcome == Outcome.INVALID) {
                log.warn("the controller refused the {} report of job {} as invalid; dropping it", report.type(),
                        report.jobId());
                lastProblem = null;
            }
            queue.acknowledge(1);
        }
        return true;
    }

    private Outcome send(List<Report> batch, Agent.Session current) throws InterruptedException {
        String problem;
        try {
            client.report(current.node(), new Reports(batch), current.credential());
            if (lastProblem != null) {
                log.info("sending job reports works again");
                lastProblem = null;
            }
            return Outcome.SENT;
        } catch (IOException e) {
            problem = Agent.describe(e);
        } catch (ControllerClient.Refused e) {
            if (e.status() == 400) {
                if (!e.getMessage().equals(lastProblem)) {
                    log.warn("the controller refused {} job report(s): {}", batch.size(), e.getMessage());
                    lastProblem = e.getMessage();
                }
                return Outcome.INVALID;
            }
            problem = e.getMessage();
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        if (!problem.equals(lastProblem)) {
            log.warn("sending {} job report(s) failed, retrying every second: {}", batch.size(), problem);
            lastProblem = problem;
        }
        return Outcome.FAILED;
    }
}
