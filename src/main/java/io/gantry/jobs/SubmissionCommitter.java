package io.gantry.jobs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Group commit of submissions: request threads validate their submission on their own, then hand
 * its rows here and wait; one committer thread writes every submission that arrived meanwhile in
 * one transaction (one batch of rows, one fsync) and answers them all. Nothing is answered before
 * its rows are committed. When a whole group fails (a bad row among them), each of its submissions
 * is committed alone, so one cannot fail another.
 *
 * <p>A lone submission is committed at once: groups form only while a commit is under way, so
 * batching adds no latency when the controller is quiet.
 */
@Component
class SubmissionCommitter implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SubmissionCommitter.class);
    private static final int MAX_GROUP = 512;
    private static final int MAX_ROWS = 20_000;

    /** One submission's rows (a job, or every task of an array), before its job id is known. */
    record Pending(List<JobEntity> rows, Instant at, String detail, CompletableFuture<Long> done) {
    }

    private final JobInserts inserts;
    private final TransactionTemplate transaction;
    private final ApplicationEventPublisher publisher;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private volatile boolean running;
    private Thread thread;

    SubmissionCommitter(JobInserts inserts, TransactionTemplate transaction, ApplicationEventPublisher publisher) {
        this.inserts = inserts;
        this.transaction = transaction;
        this.publisher = publisher;
    }

    /**
     * Commits a submission's rows with the next job id and returns that id once committed. The rows
     * are given their job id here; a failure to write them is thrown as it was raised.
     */
    long commit(List<JobEntity> rows, Instant at, String detail) {
        if (!running) {
            // Before start or after stop (tests without the lifecycle): commit on the caller's thread.
            return commitAlone(new Pending(rows, at, detail, new CompletableFuture<>()));
        }
        Pending p = new Pending(rows, at, detail, new CompletableFuture<>());
        queue.add(p);
        try {
            return p.done().get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the submission was being committed", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the store did not commit the submission within 60 s", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private void loop() {
        List<Pending> group = new ArrayList<>();
        while (running || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                int rows = first.rows().size();
                Pending next;
                while (group.size() < MAX_GROUP && rows < MAX_ROWS && (next = queue.poll()) != null) {
                    group.add(next);
                    rows += next.rows().size();
                }
                commitGroup(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } finally {
                group.clear();
            }
        }
    }

    /** Commits one group; package-private so a test can hand it a group whose commit fails. */
    void commitGroup(List<Pending> group) {
        if (group.size() == 1) {
            Pending p = group.get(0);
            try {
                p.done().complete(commitAlone(p));
            } catch (RuntimeException e) {
                p.done().completeExceptionally(e);
            }
            return;
        }
        List<Long> assigned = new ArrayList<>(group.size());
        try {
            List<Long> ids = transaction.execute(status -> {
                List<Long> jobIds = inserts.nextJobIds(group.size());
                assigned.addAll(jobIds);
                List<JobEntity> all = new ArrayList<>();
                List<JobInserts.Submitted> events = new ArrayList<>(group.size());
                for (int i = 0; i < group.size(); i++) {
                    Pending p = group.get(i);
                    long jobId = jobIds.get(i);
                    for (JobEntity row : p.rows()) {
                        row.assignJobId(jobId);
                        all.add(row);
                    }
                    events.add(new JobInserts.Submitted(jobId, p.at(), p.detail()));
                }
                inserts.insertAll(all, events);
                for (long jobId : jobIds) {
                    publisher.publishEvent(new JobsChanged(jobId, "SUBMITTED"));
                }
                return jobIds;
            });
            for (int i = 0; i < group.size(); i++) {
                group.get(i).done().complete(ids.get(i));
            }
        } catch (RuntimeException groupFailed) {
            if (!assigned.isEmpty() && answeredFromStore(group, assigned, groupFailed)) {
                return;
            }
            log.debug("A group of {} submissions failed together ({}); committing each alone", group.size(),
                    groupFailed.toString());
            for (Pending p : group) {
                try {
                    p.done().complete(commitAlone(p));
                } catch (RuntimeException e) {
                    p.done().completeExceptionally(e);
                }
            }
        }
    }

    /**
     * Whether a failed group's outcome was settled by asking the store. A commit whose answer was lost (the
     * store died or failed over under it) may have committed all the same: then its submissions are answered
     * with their ids, for committing them again would store each twice. When the store cannot say, each is
     * answered with the failure, and none is committed again. Returns false only when the group is known not
     * to be stored, so each may be committed alone.
     */
    private boolean answeredFromStore(List<Pending> group, List<Long> ids, RuntimeException groupFailed) {
        boolean stored;
        try {
            stored = inserts.stored(ids.get(0));
        } catch (RuntimeException unknown) {
            log.warn("A group of {} submissions failed ({}) and the store cannot say whether it committed them ({}); "
                    + "they are answered with the failure", group.size(), groupFailed.toString(), unknown.toString());
            for (Pending p : group) {
                p.done().completeExceptionally(groupFailed);
            }
            return true;
        }
        if (!stored) {
            return false;
        }
        log.warn("A group of {} submissions was committed although its commit failed ({}); answering with its ids",
                group.size(), groupFailed.toString());
        for (int i = 0; i < group.size(); i++) {
            publisher.publishEvent(new JobsChanged(ids.get(i), "SUBMITTED"));
            group.get(i).done().complete(ids.get(i));
        }
        return true;
    }

    private long commitAlone(Pending p) {
        Long id = transaction.execute(status -> {
            long jobId = inserts.nextJobId();
            for (JobEntity row : p.rows()) {
                row.assignJobId(jobId);
            }
            inserts.insertAll(p.rows(), List.of(new JobInserts.Submitted(jobId, p.at(), p.detail())));
            publisher.publishEvent(new JobsChanged(jobId, "SUBMITTED"));
            return jobId;
        });
        return id == null ? 0 : id;
    }

    @Override
    public void start() {
        running = true;
        thread = new Thread(this::loop, "gantry-submissions");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops after the web server (which stops first) so submissions in flight are committed. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 4096;
    }
}
