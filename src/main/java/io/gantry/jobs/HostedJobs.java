package io.gantry.jobs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.jobs.JobViews.JobView;

/**
 * Jobs as the nodes that run them see them: which jobs a node's agent should be running, what it
 * needs to launch one, and the acknowledgement that it did. Ending jobs goes through the
 * scheduler's completion, which gives their resources back.
 */
@Service
public class HostedJobs {

    /** The states of a job its batch host's agent runs (or is ending). */
    private static final List<String> ON_NODE = java.util.stream.Stream.of(JobState.RUNNING, JobState.COMPLETING,
            JobState.SUSPENDED).map(Enum::name).toList();

    private final JobRepository jobs;
    private final JobScripts scripts;
    private final JobEventRepository events;
    private final org.springframework.context.ApplicationEventPublisher publisher;
    private final io.gantry.cluster.ClusterService cluster;
    private final JdbcClient jdbc;

    HostedJobs(JobRepository jobs, JobScripts scripts, io.gantry.cluster.ClusterService cluster,
            JobEventRepository events, org.springframework.context.ApplicationEventPublisher publisher,
            JdbcClient jdbc) {
        this.jdbc = jdbc;
        this.events = events;
        this.publisher = publisher;
        this.jobs = jobs;
        this.scripts = scripts;
        this.cluster = cluster;
    }

    /** A running or ended job with the node that runs its batch script. */
    public record HostedJob(long row, String id, JobState state, String batchHost, boolean launched,
            java.time.Instant startTime, String allocatedNodes) {

        /** Whether the job holds {@code node} (its steps may run there). */
        public boolean runsOn(String node) {
            if (allocatedNodes == null || allocatedNodes.isEmpty()) {
                return false;
            }
            try {
                return io.gantry.engine.Hostlist.parse(allocatedNodes, SubmissionResolver.MAX_HOSTS).hosts()
                        .contains(node);
            } catch (RuntimeException unreadable) {
                return false;
            }
        }
    }

    /**
     * Running and completing jobs whose batch script runs on {@code node}. One plain SELECT: every join
     * and every agent's sync asks it, and the repository's query cost each of them more than its answer
     * (a quarter of a joining agent's time at 18,500 agents).
     */
    @Transactional(readOnly = true)
    public List<HostedJob> onBatchHost(String node) {
        return jdbc.sql("SELECT id, job_id, array_task_id, state, batch_host, launched, start_time, allocated_nodes "
                        + "FROM jobs WHERE batch_host = :node AND state IN (:states)")
                .param("node", node)
                .param("states", ON_NODE)
                .query((rs, n) -> {
                    java.time.OffsetDateTime started = rs.getObject("start_time", java.time.OffsetDateTime.class);
                    return new HostedJob(rs.getLong("id"), JobIds.format(rs.getLong("job_id"), rs.getInt("array_task_id")),
                            JobState.valueOf(rs.getString("state")), rs.getString("batch_host"),
                            rs.getBoolean("launched"), started == null ? null : started.toInstant(),
                            rs.getString("allocated_nodes"));
                })
                .list();
    }

    /** The jobs with these display ids ({@code 42}, {@code 42_7}) that exist, in one query; ids that do not parse are skipped. */
    @Transactional(readOnly = true)
    public List<HostedJob> find(Collection<String> ids) {
        java.util.Set<String> wanted = new java.util.HashSet<>();
        java.util.Set<Long> jobIds = new java.util.HashSet<>();
        for (String id : ids) {
            parse(id).ifPresent(p -> {
                jobIds.add(p.jobId());
                wanted.add(JobIds.format(p.jobId(), p.task() == null ? JobIds.NO_TASK : p.task()));
            });
        }
        if (jobIds.isEmpty()) {
            return List.of();
        }
        List<HostedJob> found = new ArrayList<>();
        for (JobEntity j : jobs.findByJobIdIn(jobIds)) {
            HostedJob h = hosted(j);
            if (wanted.contains(h.id())) {
                found.add(h);
            }
        }
        return found;
    }

    /** Everything about the given jobs that their node needs to run them, scripts included. */
    @Transactional(readOnly = true)
    public List<JobView> views(Collection<Long> rows) {
        List<JobEntity> found = jobs.findAllById(rows);
        java.util.Map<Long, JobScripts.Script> byJob = scripts.find(found.stream().map(JobEntity::jobId).toList());
        return found.stream()
                .map(j -> JobService.view(j, byJob.getOrDefault(j.jobId(), JobScripts.Script.NONE), cluster))
                .toList();
    }

    /** Records that the batch host's agent started these jobs; returns how many were not yet marked. */
    @Transactional(propagation = Propagation.REQUIRED)
    public int markLaunched(Collection<Long> rows) {
        int changed = 0;
        for (JobEntity job : jobs.findAllById(rows)) {
            if (job.state().isActive() && !job.launched()) {
                job.markLaunched();
                changed++;
            }
        }
        return changed;
    }

    /**
     * Records what an agent's IMAGE report says: for the batch script's image ({@code stepId} null) the
     * digest it resolved to, on the job (none while a pull is under way: {@code digest} null); for any
     * image, an IMAGE event in the job's history. The job
     * goes on running: an image on its node is no end.
     */
    @Transactional(propagation = Propagation.REQUIRED)
    public void recordImage(long row, Integer stepId, String digest, java.time.Instant at, String detail) {
        jobs.findById(row).filter(j -> j.state().isActive()).ifPresent(job -> {
            if (stepId == null && digest != null) {
                job.recordImageDigest(digest);
            }
            events.save(new JobEventEntity(row, at, "IMAGE", detail));
            // the job's page re-reads its history when the event stream names it
            publisher.publishEvent(new JobsChanged(job.jobId(), "IMAGE"));
        });
    }

    private static Optional<JobIds.Parsed> parse(String id) {
        try {
            return Optional.of(JobIds.parse(id));
        } catch (GantryException notAnId) {
            return Optional.empty();
        }
    }

    private static HostedJob hosted(JobEntity j) {
        return new HostedJob(j.id(), JobIds.format(j.jobId(), j.arrayTaskId()), j.state(), j.batchHost(), j.launched(),
                j.startTime(), j.allocatedNodes());
    }
}
