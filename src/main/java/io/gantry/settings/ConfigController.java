package io.gantry.settings;

import java.time.Clock;
import java.time.Instant;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

import io.gantry.fleet.AgentsProperties;
import io.gantry.cluster.ClusterProperties;
import io.gantry.jobs.JobsProperties;
import io.gantry.scheduling.SchedulerProperties;

/**
 * {@code GET /api/v1/config}: the controller's settings that have a Slurm counterpart, so that
 * {@code scontrol show config} can print them under Slurm's names. Workflow engines read that output
 * (Snakemake's Slurm plugin reads {@code MinJobAge} to choose between squeue and sacct), so it must come
 * from the running controller, not from defaults the command would guess.
 */
@Tag(name = "diag")
@RestController
@RequestMapping("/api/v1")
class ConfigController {

    private final ClusterProperties cluster;
    private final JobsProperties jobs;
    private final SchedulerProperties scheduler;
    private final AgentsProperties agents;
    private final String mpiDefault;
    private final Instant bootTime;

    ConfigController(ClusterProperties cluster, JobsProperties jobs, SchedulerProperties scheduler,
            AgentsProperties agents, @Value("${gantry.steps.mpi-default:none}") String mpiDefault, Clock clock) {
        this.cluster = cluster;
        this.jobs = jobs;
        this.scheduler = scheduler;
        this.agents = agents;
        this.mpiDefault = mpiDefault;
        this.bootTime = clock.instant();
    }

    /**
     * The settings, each named after what it is in Gantry; the comment says which Slurm parameter it
     * answers for. Ended jobs are never purged from the controller's records (Slurm's MinJobAge=0).
     */
    @Schema(name = "ControllerConfig")
    record Config(
            @Schema(description = "gantry.cluster.name (ClusterName)") String clusterName,
            @Schema(description = "when this controller started (BOOT_TIME)") Instant bootTime,
            @Schema(description = "gantry.jobs.max-array-size (MaxArraySize)") int maxArraySize,
            @Schema(description = "whether users see only their own jobs (PrivateData=jobs)") boolean privateJobs,
            @Schema(description = "seconds an ended job stays in the controller's records, 0 = always (MinJobAge)")
            long minJobAgeSeconds,
            @Schema(description = "gantry.scheduler.interval in seconds (SchedulerParameters sched_interval)")
            long schedulerIntervalSeconds,
            @Schema(description = "gantry.scheduler.full-pass-interval in seconds (SchedulerParameters bf_interval)")
            long fullPassIntervalSeconds,
            @Schema(description = "gantry.agents.kill-wait in seconds (KillWait)") long killWaitSeconds,
            @Schema(description = "gantry.agents.heartbeat-timeout in seconds (SlurmdTimeout)") long nodeTimeoutSeconds,
            @Schema(description = "gantry.agents.health-check-interval in seconds (HealthCheckInterval)")
            long healthCheckIntervalSeconds,
            @Schema(description = "gantry.agents.allow-root-jobs (DisableRootJobs is its opposite)") boolean allowRootJobs,
            @Schema(description = "gantry.steps.mpi-default (MpiDefault)") String mpiDefault,
            @Schema(description = "gantry.cluster.preempt-type (PreemptType)", allowableValues = {"preempt/qos",
                    "preempt/partition_prio", "preempt/none"}) String preemptType) {
    }

    @Operation(operationId = "getConfig", summary = "The controller's settings, as scontrol show config prints them")
    @GetMapping("/config")
    Config getConfig() {
        return new Config(cluster.name(), bootTime, jobs.maxArraySize(), jobs.privateJobs(), 0,
                scheduler.interval().toSeconds(), scheduler.fullPassInterval().toSeconds(),
                agents.killWait().toSeconds(), agents.heartbeatTimeout().toSeconds(),
                agents.healthCheckInterval().toSeconds(), agents.allowRootJobs(), mpiDefault,
                io.gantry.engine.Preemption.Type.named(cluster.preemptType()).slurmName());
    }
}
