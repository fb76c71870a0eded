package io.gantry.events;

import java.time.Clock;

import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import io.gantry.cluster.NodeStateChanged;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobsChanged;
import io.gantry.jobs.JobsProperties;
import io.gantry.scheduling.JobEnded;
import io.gantry.scheduling.JobStarted;
import io.gantry.scheduling.JobsReplanned;
import io.gantry.security.CallerStanding;
import io.gantry.security.CurrentUser;
import io.gantry.steps.StepChanged;

/**
 * Job and node changes for live views, as server-sent events. The listeners run on the
 * publisher's thread (the scheduler's, after its commit) and only hand a draft to the
 * {@link EventRelay}: nothing here waits on a client or on the store. The last
 * {@code gantry.events.client-queue} events (at least {@value EventStreams#KEPT}) are kept so a
 * client that reconnects with {@code Last-Event-ID} misses nothing that recent; one that was away
 * longer is told to reload ({@code event: reset}).
 */
@Component
class LiveEvents {

    private final EventRelay relay;
    private final CallerStanding standing;
    private final EventStreams streams;
    private final JobsProperties jobs;
    private final Clock clock;

    LiveEvents(EventRelay relay, EventStreams streams, JobsProperties jobs, Clock clock, CallerStanding standing) {
        this.standing = standing;
        this.relay = relay;
        this.streams = streams;
        this.jobs = jobs;
        this.clock = clock;
    }

    /**
     * A stream for {@code caller}: every event, unless private jobs keep a USER to node events and
     * their own jobs' events, as {@code GET /jobs} keeps them to their own jobs.
     */
    SseEmitter subscribe(CurrentUser caller, Long lastEventId) {
        return streams.open(caller.username(), !jobs.privateJobs() || caller.isOperator(), lastEventId,
                standing.ofCurrentCaller());
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobsChanged event) {
        publish("job", Long.toString(event.jobId()), event.change());
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobStarted event) {
        for (ActiveJob job : event.jobs()) {
            publish("job", job.displayId(), "RUNNING");
        }
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobEnded event) {
        publish("job", event.jobId(), event.state().name());
    }

    /**
     * The scheduler changed these pending jobs' reason or expected start (by a minute and a tenth
     * of the wait or more, see {@code JobsReplanned.noticeable}): {@code REPLANNED}, so that their
     * pages re-read them instead of polling; an array's id with {@code REPLANNED TASKS} for many of its tasks.
     */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobsReplanned event) {
        java.util.Set<String> named = new java.util.HashSet<>(event.jobIds());
        for (String job : replannedSubjects(event.jobIds())) {
            publish("job", job, named.contains(job) ? "REPLANNED" : REPLANNED_TASKS);
        }
    }

    /**
     * More tasks of one array than this re-planned by one pass are announced as one event naming the
     * array (its id, {@code 18}, change {@link #REPLANNED_TASKS}): a 100,000-task array moves thousands of estimates at once, and one
     * event per task would fill every client's queue (and drop it) to say what one event says.
     */
    static final int TASKS_NAMED_UP_TO = 50;
    /** The change of the one event for many re-planned tasks of an array, which it names. */
    static final String REPLANNED_TASKS = "REPLANNED TASKS";

    /** The ids to announce for these re-planned jobs: each, but an array's instead of its tasks' when many. */
    static java.util.List<String> replannedSubjects(java.util.List<String> jobIds) {
        java.util.Map<String, Integer> tasksOf = new java.util.HashMap<>();
        for (String job : jobIds) {
            int task = job.indexOf('_');
            if (task > 0) {
                tasksOf.merge(job.substring(0, task), 1, Integer::sum);
            }
        }
        java.util.List<String> subjects = new java.util.ArrayList<>();
        java.util.Set<String> arraysNamed = new java.util.HashSet<>();
        for (String job : jobIds) {
            int task = job.indexOf('_');
            String array = task > 0 ? job.substring(0, task) : null;
            if (array == null || tasksOf.get(array) <= TASKS_NAMED_UP_TO) {
                subjects.add(job);
            } else if (arraysNamed.add(array)) {
                subjects.add(array);
            }
        }
        return subjects;
    }

    /** A step's start or end: a job event whose change names the step, e.g. {@code STEP 42.0 COMPLETED}. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(StepChanged event) {
        publish("job", event.jobId(), "STEP " + event.step() + " " + event.state());
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(NodeStateChanged event) {
        publish("node", event.node(), event.state().name());
    }

    void publish(String kind, String subject, String change) {
        relay.offer(new EventRelay.Draft(kind, subject, change, clock.instant()));
    }
}
