package io.gantry.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.stereotype.Component;

import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;
import io.gantry.security.CurrentUser;

/**
 * The audit records of actions on other users' jobs (an OPERATOR or ADMIN cancelling, holding,
 * releasing, changing or requeueing them); a user acting on their own jobs leaves none. Snapshots
 * hold what the action may change, never the script or environment; an array's show its tasks by state.
 */
@Component
class JobAudit {

    private final Audit audit;

    JobAudit(Audit audit) {
        this.audit = audit;
    }

    /** Takes the jobs' snapshot before {@code caller} acts on them; call {@link Trail#record} after. */
    Trail before(String id, List<JobEntity> targets, CurrentUser caller) {
        boolean others = targets.stream().anyMatch(job -> !caller.username().equals(job.user()));
        return new Trail(id, targets, others ? caller : null, others ? snapshot(targets) : null);
    }

    /** One action on one job id, recorded once its change is made (in the same transaction). */
    final class Trail {

        private final String id;
        private final List<JobEntity> targets;
        private final CurrentUser caller;
        private final Object before;

        private Trail(String id, List<JobEntity> targets, CurrentUser caller, Object before) {
            this.id = id;
            this.targets = targets;
            this.caller = caller;
            this.before = before;
        }

        void record(AuditAction action) {
            if (caller != null) {
                audit.record(Actor.staff(caller.username(), caller.isAdmin()), action, AuditEntity.JOB, id, before,
                        snapshot(targets));
            }
        }
    }

    private static Object snapshot(List<JobEntity> targets) {
        if (targets.size() == 1) {
            return snapshot(targets.get(0));
        }
        Map<String, Object> array = new LinkedHashMap<>();
        JobEntity first = targets.get(0);
        array.put("jobId", first.jobId());
        array.put("user", first.user());
        array.put("tasks", targets.size());
        Map<String, Integer> states = new TreeMap<>();
        Map<String, Integer> holds = new TreeMap<>();
        for (JobEntity job : targets) {
            states.merge(job.state().name(), 1, Integer::sum);
            holds.merge(job.hold().name(), 1, Integer::sum);
        }
        array.put("states", states);
        array.put("holds", holds);
        return array;
    }

    private static Map<String, Object> snapshot(JobEntity job) {
        Map<String, Object> snapshot = new LinkedHashMap<>();
        snapshot.put("id", JobIds.format(job.jobId(), job.arrayTaskId()));
        snapshot.put("user", job.user());
        snapshot.put("account", job.account());
        snapshot.put("name", job.name());
        snapshot.put("state", job.state().name());
        snapshot.put("hold", job.hold().name());
        snapshot.put("partition", job.partition() != null ? job.partition() : String.join(",", job.partitions()));
        snapshot.put("qos", job.qos());
        snapshot.put("nice", job.nice());
        snapshot.put("timeLimitSeconds", job.timeLimitSeconds());
        snapshot.put("constraints", job.constraints());
        snapshot.put("requeueCount", job.requeueCount());
        return snapshot;
    }
}
