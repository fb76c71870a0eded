package io.gantry.steps;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import io.gantry.accounting.JobStepSource;
import io.gantry.engine.Hostlist;
import io.gantry.jobs.HostedJobs;
import io.gantry.jobs.HostedJobs.HostedJob;

/** sacct's step lines, from the store: two queries for a page of jobs. */
@Component
class AccountedSteps implements JobStepSource {

    private final HostedJobs jobs;
    private final StepStore store;

    AccountedSteps(HostedJobs jobs, StepStore store) {
        this.jobs = jobs;
        this.store = store;
    }

    @Override
    public Steps steps(Collection<String> jobIds) {
        Map<String, String> batchHosts = new HashMap<>();
        Map<Long, String> idOfRow = new HashMap<>();
        for (HostedJob job : jobs.find(jobIds)) {
            idOfRow.put(job.row(), job.id());
            if (job.batchHost() != null) {
                batchHosts.put(job.id(), job.batchHost());
            }
        }
        Map<String, List<StepLine>> steps = new HashMap<>();
        for (StepRecord s : store.ofJobs(idOfRow.keySet())) {
            steps.computeIfAbsent(idOfRow.get(s.jobRow()), id -> new ArrayList<>()).add(new StepLine(s.stepId(),
                    s.name(), s.state(), s.exitCode(), s.startTime(), s.endTime(), Hostlist.of(s.nodes()).toString(),
                    s.nodes().size(), s.tasks(), s.tasks() * s.cpusPerTask(),
                    s.container() == null ? null : s.container().image() != null ? s.container().image()
                            : s.container().bundle(), s.containerImageDigest()));
        }
        return new Steps(batchHosts, steps);
    }
}
