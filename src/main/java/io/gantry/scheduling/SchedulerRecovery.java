package io.gantry.scheduling;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.cluster.ClusterService;
import io.gantry.cluster.ClusterService.NodeUse;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobAllocation;

/**
 * At start, derives what nodes hold from the jobs the store says run, and takes the nodes that joined
 * through their agents while this controller followed: the store is the truth.
 */
@Component
class SchedulerRecovery {

    private static final Logger log = LoggerFactory.getLogger(SchedulerRecovery.class);

    private final ClusterService cluster;
    private final GpuLedger gpus;
    private final TransactionTemplate transaction;

    SchedulerRecovery(ClusterService cluster, GpuLedger gpus, TransactionTemplate transaction) {
        this.cluster = cluster;
        this.gpus = gpus;
        this.transaction = transaction;
    }

    /** {@code holding}: the running and completing jobs, as the new leader just loaded them. */
    void recover(List<ActiveJob> holding) {
        transaction.executeWithoutResult(status -> {
            int joined = cluster.adoptJoinedNodes();
            if (joined > 0) {
                log.info("Took {} nodes that joined through their agents from the store", joined);
            }
            // A job suspended for its preemptor holds nothing: what it held is its preemptor's.
            List<NodeUse> uses = holding.stream().filter(j -> !j.suspendedForPreemptor())
                    .flatMap(j -> j.allocation().stream())
                    .map(JobAllocation::use).toList();
            cluster.resetAllocations(uses);
            int orphans = gpus.releaseOrphans();
            log.info("Recovered {} running jobs from the store{}", holding.size(),
                    orphans > 0 ? " and released " + orphans + " GPUs no running job held" : "");
        });
    }
}
