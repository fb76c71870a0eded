package io.gantry.steps;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.jobs.HostedJobs;
import io.gantry.jobs.HostedJobs.HostedJob;
import io.gantry.scheduling.JobEnded;
import io.gantry.security.JobCredentialCheck;

/**
 * Answers whether a job credential's run is still active without a store read per request: a verdict
 * lives {@link #TTL}; the leader forgets it at once when the job ends, followers within the TTL.
 */
@Component
class ActiveJobCredentials implements JobCredentialCheck {

    static final Duration TTL = Duration.ofSeconds(5);
    private static final int MAX_ENTRIES = 100_000;

    private record Verdict(boolean active, Instant at) {
    }

    private final HostedJobs jobs;
    private final Clock clock;
    private final Map<String, Verdict> verdicts = new ConcurrentHashMap<>();

    ActiveJobCredentials(HostedJobs jobs, Clock clock) {
        this.jobs = jobs;
        this.clock = clock;
    }

    @Override
    public boolean active(String jobId, long runStartMillis) {
        String key = jobId + "@" + runStartMillis;
        Instant now = clock.instant();
        Verdict verdict = verdicts.get(key);
        if (verdict == null || !verdict.at().plus(TTL).isAfter(now)) {
            if (verdicts.size() >= MAX_ENTRIES) {
                verdicts.clear();
            }
            verdict = new Verdict(check(jobId, runStartMillis), now);
            verdicts.put(key, verdict);
        }
        return verdict.active();
    }

    private boolean check(String jobId, long runStartMillis) {
        List<HostedJob> found = jobs.find(List.of(jobId));
        if (found.isEmpty()) {
            return false;
        }
        HostedJob job = found.get(0);
        // the store rounds to microseconds a start the launch may have carried in nanoseconds
        return job.state().isActive() && job.startTime() != null
                && Math.abs(job.startTime().toEpochMilli() - runStartMillis) <= 1;
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobEnded event) {
        verdicts.keySet().removeIf(k -> k.startsWith(event.jobId() + "@"));
    }
}
