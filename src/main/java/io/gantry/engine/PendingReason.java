package io.gantry.engine;

/** Why a job is not running, in Slurm's words ({@link #toString()} gives them). */
public enum PendingReason {
    NONE("None"),
    PRIORITY("Priority"),
    RESOURCES("Resources"),
    DEPENDENCY("Dependency"),
    DEPENDENCY_NEVER_SATISFIED("DependencyNeverSatisfied"),
    JOB_HELD_USER("JobHeldUser"),
    JOB_HELD_ADMIN("JobHeldAdmin"),
    BEGIN_TIME("BeginTime"),
    JOB_ARRAY_TASK_LIMIT("JobArrayTaskLimit"),
    PARTITION_TIME_LIMIT("PartitionTimeLimit"),
    PARTITION_NODE_LIMIT("PartitionNodeLimit"),
    PARTITION_DOWN("PartitionDown"),
    PARTITION_CONFIG("PartitionConfig"),
    REQ_NODE_NOT_AVAIL("ReqNodeNotAvail"),
    BAD_CONSTRAINTS("BadConstraints"),
    /**
     * Waiting for its topology: up to its --switches wait for an allocation on no more leaf switches
     * than it asked for, or for a whole block (or whole blocks for its --segment groups, or a block
     * free of every other job for --exclusive=topo) while enough nodes are free elsewhere.
     */
    TOPOLOGY_WAIT("TopologyWait"),
    RESERVATION("Reservation"),
    RESERVED_FOR_MAINTENANCE("ReqNodeNotAvail, Reserved for maintenance"),
    INVALID_QOS("InvalidQOS"),
    QOS_MAX_WALL_DURATION_PER_JOB_LIMIT("QOSMaxWallDurationPerJobLimit"),
    QOS_MAX_JOBS_PER_USER_LIMIT("QOSMaxJobsPerUserLimit"),
    QOS_MAX_GRES_PER_USER("QOSMaxGRESPerUser"),
    QOS_MAX_CPU_PER_USER_LIMIT("QOSMaxCpuPerUserLimit"),
    /** A QOS's MaxJobsPerAccount; Slurm 22.05 prints these per-account reasons without "QOS". */
    QOS_MAX_JOBS_PER_ACCOUNT("MaxJobsPerAccount"),
    QOS_MAX_GRES_PER_ACCOUNT("MaxGRESPerAccount"),
    QOS_MAX_CPU_PER_ACCOUNT("MaxCpuPerAccount"),
    QOS_MAX_NODE_PER_ACCOUNT("MaxNodePerAccount"),
    QOS_MIN_CPU("QOSMinCpuNotSatisfied"),
    QOS_MIN_NODE("QOSMinNode"),
    QOS_MIN_GRES("QOSMinGRES"),
    QOS_MAX_GRES_PER_JOB("QOSMaxGRESPerJob"),
    QOS_MAX_CPU_PER_JOB_LIMIT("QOSMaxCpuPerJobLimit"),
    QOS_MAX_NODE_PER_JOB_LIMIT("QOSMaxNodePerJobLimit"),
    QOS_GRP_GRES("QOSGrpGRES"),
    QOS_GRP_CPU_LIMIT("QOSGrpCpuLimit"),
    ASSOC_MAX_JOBS_LIMIT("AssocMaxJobsLimit"),
    ASSOC_GRP_GRES("AssocGrpGRES"),
    ASSOC_GRP_CPU_LIMIT("AssocGrpCpuLimit"),
    ASSOC_GRP_MEM_LIMIT("AssocGrpMemLimit"),
    ASSOC_GRP_NODE_LIMIT("AssocGrpNodeLimit"),
    /** The running jobs of its association, or of an account above it, reached its GrpJobs. */
    ASSOC_GRP_JOBS_LIMIT("AssocGrpJobsLimit"),
    /** Its time limit is above its association's MaxWallDurationPerJob (its own or inherited). */
    ASSOC_MAX_WALL_DURATION_PER_JOB_LIMIT("AssocMaxWallDurationPerJobLimit"),
    /** It asks for more GPUs than its association's MaxTRESPerJob allows. */
    ASSOC_MAX_GRES_PER_JOB("AssocMaxGRESPerJob"),
    ASSOC_MAX_CPU_PER_JOB_LIMIT("AssocMaxCpuPerJobLimit"),
    ASSOC_MAX_MEM_PER_JOB("AssocMaxMemPerJob"),
    ASSOC_MAX_NODE_PER_JOB_LIMIT("AssocMaxNodePerJobLimit"),
    /** It asks for more GPUs on one node than its association's MaxTRESPerNode allows. */
    ASSOC_MAX_GRES_PER_NODE("AssocMaxGRESPerNode"),
    ASSOC_MAX_CPU_PER_NODE("AssocMaxCpuPerNode"),
    ASSOC_MAX_MEM_PER_NODE("AssocMaxMemPerNode"),
    // Budgets in TRES-minutes (Budgets): the QOS's, then the associations' from the user's up the tree.
    QOS_GRP_CPU_MINUTES_LIMIT("QOSGrpCPUMinutesLimit"),
    QOS_GRP_MEMORY_MINUTES("QOSGrpMemoryMinutes"),
    QOS_GRP_NODE_MINUTES("QOSGrpNodeMinutes"),
    QOS_GRP_GRES_MINUTES("QOSGrpGRESMinutes"),
    QOS_GRP_CPU_RUN_MINUTES_LIMIT("QOSGrpCPURunMinutesLimit"),
    QOS_GRP_MEMORY_RUN_MINUTES("QOSGrpMemoryRunMinutes"),
    QOS_GRP_NODE_RUN_MINUTES("QOSGrpNodeRunMinutes"),
    QOS_GRP_GRES_RUN_MINUTES("QOSGrpGRESRunMinutes"),
    QOS_MAX_CPU_MINUTES_PER_JOB_LIMIT("QOSMaxCpuMinutesPerJobLimit"),
    QOS_MAX_MEMORY_MINUTES_PER_JOB("QOSMaxMemoryMinutesPerJob"),
    QOS_MAX_NODE_MINUTES_PER_JOB("QOSMaxNodeMinutesPerJob"),
    QOS_MAX_GRES_MINUTES_PER_JOB("QOSMaxGRESMinutesPerJob"),
    /** Budgets on {@code billing} (the partition's TRESBillingWeights x what the job holds). */
    QOS_GRP_BILLING_MINUTES("QOSGrpBillingMinutes"),
    QOS_GRP_BILLING_RUN_MINUTES("QOSGrpBillingRunMinutes"),
    QOS_MAX_BILLING_MINUTES_PER_JOB("QOSMaxBillingMinutesPerJob"),
    ASSOC_GRP_CPU_MINUTES_LIMIT("AssocGrpCPUMinutesLimit"),
    ASSOC_GRP_MEM_MINUTES("AssocGrpMemMinutes"),
    ASSOC_GRP_NODE_MINUTES("AssocGrpNodeMinutes"),
    ASSOC_GRP_GRES_MINUTES("AssocGrpGRESMinutes"),
    ASSOC_GRP_CPU_RUN_MINUTES_LIMIT("AssocGrpCPURunMinutesLimit"),
    ASSOC_GRP_MEM_RUN_MINUTES("AssocGrpMemRunMinutes"),
    ASSOC_GRP_NODE_RUN_MINUTES("AssocGrpNodeRunMinutes"),
    ASSOC_GRP_GRES_RUN_MINUTES("AssocGrpGRESRunMinutes"),
    ASSOC_MAX_CPU_MINUTES_PER_JOB_LIMIT("AssocMaxCpuMinutesPerJobLimit"),
    ASSOC_MAX_MEM_MINUTES_PER_JOB("AssocMaxMemMinutesPerJob"),
    ASSOC_MAX_NODE_MINUTES_PER_JOB("AssocMaxNodeMinutesPerJob"),
    ASSOC_MAX_GRES_MINUTES_PER_JOB("AssocMaxGRESMinutesPerJob"),
    ASSOC_GRP_BILLING_MINUTES("AssocGrpBillingMinutes"),
    ASSOC_GRP_BILLING_RUN_MINUTES("AssocGrpBillingRunMinutes"),
    ASSOC_MAX_BILLING_MINUTES_PER_JOB("AssocMaxBillingMinutesPerJob"),
    /** Its time limit on top of what its QOS's jobs ran and may still run would overrun the QOS's GrpWall. */
    QOS_GRP_WALL_LIMIT("QOSGrpWallLimit"),
    /** The same for its association's GrpWall, or an account's above it. */
    ASSOC_GRP_WALL_LIMIT("AssocGrpWallLimit"),
    /**
     * Its account is under its guarantee and jobs of other accounts borrow it: they are being stopped
     * (reclaimed), or may be once they ran the minimum run time, and the job starts when they end.
     */
    QUOTA_RECLAIM("WaitingForReclaim"),
    /** Starting it would make its account borrow more than its {@code maxBorrowTres}. */
    QUOTA_BORROW_LIMIT("QuotaBorrowLimit"),
    /**
     * Beyond its account's guarantee and the free pool, and no other account of its cohort has idle
     * guarantee to lend (idle, not wanted by the owner's pending jobs, within {@code maxLendTres}).
     */
    QUOTA_NOTHING_TO_BORROW("QuotaNothingToBorrow");

    private final String slurmName;

    PendingReason(String slurmName) {
        this.slurmName = slurmName;
    }

    public String slurmName() {
        return slurmName;
    }

    /** The reason named as Slurm spells it, e.g. {@code "QOSMaxJobsPerUserLimit"}. */
    public static PendingReason fromSlurmName(String name) {
        for (PendingReason r : values()) {
            if (r.slurmName.equals(name)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown reason: " + name);
    }

    @Override
    public String toString() {
        return slurmName;
    }
}
