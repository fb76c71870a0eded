// The dashboard's view of the REST contract (shared/API.md): what the views rely on, with
// required fields where the contract promises them. The generated schema (schema.d.ts) types
// the requests in client.ts; these types name what the views read from the answers.

import type { components } from './schema';

/**
 * Why a job is not running, in Slurm's words: generated from the document's PendingReason (the
 * engine's io.gantry.engine.PendingReason), so a reason added there is a type error wherever the
 * dashboard must know every reason (lib/pending.ts's sentences). A newer controller may still send
 * one this build does not know: the views fall back on the code.
 */
export type PendingReason = components['schemas']['PendingReason'];

/** An array summed up by the server (GET /jobs/{id}/array): tasks by state and exit code, task ids as ranges. */
export interface ArraySummary {
  arrayJobId: number; name?: string | null; user: string; account?: string | null; partition?: string | null;
  tasks: number; taskIds: string; states: { state: string; tasks: number }[]; exitCodes: { exitCode: number; tasks: number }[];
}

export type NodeState = 'IDLE' | 'MIXED' | 'ALLOCATED' | 'DRAINING' | 'DRAINED' | 'DOWN' | 'UNKNOWN'
  | 'POWERED_DOWN' | 'POWERING_UP' | 'POWERING_DOWN';

export interface ClusterNode {
  name: string; state: NodeState; reason?: string | null; cpus: number; memoryMb: number; gpus: number;
  gpuType?: string | null; features?: string[]; allocCpus: number; allocMemoryMb: number; allocGpus: number;
  partitions?: string[]; switchName?: string | null; block?: string | null; simulated?: boolean;
  /** Who set the reason (drain, down) and when, as scontrol's Reason=... [user@time]. */
  reasonUser?: string | null; reasonTime?: string | null;
  /** The reservation it is in now; a MAINT reservation starting on it within 24 h and when. */
  reservation?: string | null; maintenanceReservation?: string | null; maintenanceStart?: string | null;
  /** Jobs that ended on it in the last windowMinutes and how many failed; failing marks a black hole. */
  recentFailures?: { failed: number; ended: number; windowMinutes: number; failing: boolean } | null;
}
export interface Partition {
  name: string; nodes: string; totalNodes: number; totalGpus: number; isDefault: boolean;
  state?: string | null; totalCpus?: number | null; maxTimeSeconds?: number | null; defaultTimeSeconds?: number | null; priorityTier?: number | null;
}
export interface Topology {
  switches: { name: string; parent?: string | null; nodes: string; leaf: boolean }[];
  blocks: { name: string; nodes: string }[];
  /** topology.conf's BlockSizes: the base block size first, then the larger aggregates (nodes). */
  blockSizes?: number[]; baseBlockSize?: number;
}

/** GET /work: the caller's own work, an array as one row (the landing page). */
export interface MyWork {
  user: string; active: MyWorkRow[]; recent: MyWorkRow[]; failures: MyWorkRow[]; failuresSince: string;
  gpuHours7Days: number; gpuHours30Days: number; fairShare: { account: string; factor?: number | null }[];
}
export interface MyWorkRow {
  /** 42, 42_7 for a lone task, or an array's own id when array is true. */
  id: string; jobId: number; array: boolean; name?: string | null; partition?: string | null; state: JobState;
  reason?: string | null; submitTime?: string | null; startTime?: string | null; endTime?: string | null;
  exitCode?: number | null; allocatedNodes?: string | null;
  /** The array's tasks (1 for a job), how many of them this list is about, and all of them by state. */
  tasks: number; listed: number; states: { state: JobState; tasks: number }[];
}

export interface Page<T> { items: T[]; page: number; size: number; total: number }

export interface TokenResponse { token: string; tokenType: string; expiresAt: string }
export interface WhoAmI {
  username: string; roles: string[]; accounts: string[];
  /** The accounts whose sub-trees this user manages as their coordinator (absent from older controllers). */
  coordinatorOf?: string[];
  /** The account a job that names none is charged to (absent from older controllers). */
  defaultAccount?: string | null;
}

export type JobState = 'PENDING' | 'RUNNING' | 'COMPLETING' | 'COMPLETED' | 'FAILED' | 'CANCELLED'
  | 'TIMEOUT' | 'NODE_FAIL' | 'PREEMPTED' | 'OUT_OF_MEMORY' | 'DEADLINE'
  | 'SUSPENDED';
export const JOB_STATES: JobState[] = ['PENDING', 'RUNNING', 'COMPLETING', 'COMPLETED', 'FAILED', 'CANCELLED',
  'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'DEADLINE',
  'SUSPENDED'];

export interface Allocation { node: string; cpus: number; memoryMb: number; gpuIndices?: number[] }

export interface Job {
  jobId: number | string; id?: string; arrayJobId?: number | null; arrayTaskId?: number | null;
  name?: string | null; user: string; account?: string | null; partition?: string | null; qos?: string | null;
  state: JobState; reason?: PendingReason | null; priority?: number | null;
  submitTime?: string | null; eligibleTime?: string | null; startTime?: string | null; endTime?: string | null;
  expectedStartTime?: string | null; timeLimitSeconds?: number | null;
  nodes?: number | null; tasks?: number | null; cpusPerTask?: number | null; memoryMb?: number | null;
  gpus?: number | null; gpusPerNode?: number | null; gpuType?: string | null;
  allocatedNodes?: string | null; allocation?: Allocation[] | null; exitCode?: number | null;
  dependency?: string | null; requeueCount?: number | null; script?: string | null;
  stdout?: string | null; stderr?: string | null; workdir?: string | null; constraints?: string | null;
  /** The nodes it asked for (sbatch -w) and those it must not run on (-x), as hostlists. */
  nodelist?: string | null; exclude?: string | null;
  /** Measured on its node when it ended (the job's cgroup); null when not known. */
  maxRssBytes?: number | null; totalCpuMillis?: number | null;
  /** --exclusive=mode: 'topo' has the blocks of its nodes to itself. */
  exclusiveMode?: string | null; exclusive?: boolean | null;
  /** The blocks its nodes are in (empty while it holds none). */
  blocks?: string[] | null;
  /** The container its batch script runs in (pyxis's --container-image..., Slurm's --container). */
  container?: ContainerSpec | null;
  /** The digest its image resolved to on its batch host; null until the node has it. */
  containerImageDigest?: string | null;
  /** Its GPU use from its nodes' nvidia-smi readings (one job's page only); null when none arrived. */
  gpuUsage?: JobGpuUsage | null;
  cluster?: string | null;
}

export interface JobGpuUsage {
  averageUtilization?: number | null; peakUtilization?: number | null; peakMemoryMb?: number | null;
  averageMemoryMb?: number | null; gpuSeconds: number; idleGpuSeconds: number; samples: number; lastSample?: string | null;
}

/** GET /api/v1/jobs/{id}/gpu-usage: readings per GPU over time, oldest first. */
export interface JobGpuUsageSeries {
  jobId: string; bucketSeconds?: number | null;
  points: { time: string; node: string; gpu: number; utilization?: number | null; memoryUsedMb?: number | null;
    memoryTotalMb?: number | null; powerWatts?: number | null }[];
}

/** An OCI image (pyxis) or bundle (Slurm's --container) to run in; null fields take pyxis's defaults. */
export interface ContainerSpec {
  image?: string | null; bundle?: string | null; mounts?: string[] | null; workdir?: string | null;
  name?: string | null; env?: string[] | null; mountHome?: boolean | null; remapRoot?: boolean | null;
  writable?: boolean | null; entrypoint?: boolean | null;
}

export interface JobEvent { time: string; type: string; detail?: string | null }

/** One step of a job (GET /api/v1/jobs/{id}/steps): the batch script ("batch") or an srun step (0, 1, ...). */
export interface JobStep {
  stepId: string; id: string; name?: string | null; argv?: string[] | null; nodelist?: string | null;
  nodes: number; tasks: number; cpusPerTask?: number | null; state: JobState; exitCode?: number | null;
  startTime?: string | null; endTime?: string | null;
  /** The image (else bundle or container name) it runs in, and the digest its node resolved; null for none. */
  containerImage?: string | null; containerImageDigest?: string | null;
}

export interface JobSubmission {
  name?: string; script?: string; partition?: string; account?: string; qos?: string; nodes?: number;
  tasks?: number; cpusPerTask?: number; memoryMb?: number; gpus?: number; gpusPerNode?: number; gpuType?: string;
  timeLimitSeconds?: number; constraints?: string; exclusive?: boolean; dependency?: string; array?: string;
  hold?: boolean; nice?: number; stdout?: string; stderr?: string; simulatedRunSeconds?: number;
  simulatedExitCode?: number;
}
export interface SubmitResponse { jobId: number | string; arrayTaskIds?: (number | string)[]; warnings?: string[] }

export interface Diag {
  cycles?: number; lastCycleMs?: number; meanCycleMs?: number; maxCycleMs?: number; jobsSubmitted?: number;
  jobsStarted?: number; jobsBackfilled?: number; jobsCompleted?: number; pending?: number; running?: number;
  leader?: boolean | string; serverTime?: string;
}

/** What POST /jobs/test answers (sbatch --test-only): when and where the submission would start; jobId is always 0. */
export interface JobTrial {
  jobId: number; startTime?: string | null; processors?: number | null; nodes?: string | null; partition?: string | null;
  reason?: string | null; warnings?: string[] | null;
}
export interface FieldError { field: string; message: string }
export interface Problem { type?: string; title?: string; status?: number; detail?: string; errors?: FieldError[] }

/** One row of GET /api/v1/accounting/jobs, like a line of sacct. */
export interface AccountingRecord {
  jobId: string; name?: string | null; user: string; account?: string | null; partition?: string | null; qos?: string | null;
  state: JobState; exitCode?: number | null; submitTime?: string | null; startTime?: string | null; endTime?: string | null;
  elapsedSeconds: number; timeLimitSeconds?: number | null; allocTres?: string | null; cpuSeconds: number; gpuSeconds: number;
  nodeList?: string | null; maxRssBytes?: number | null; maxRss?: string | null; totalCpuMillis?: number | null;
  totalCpu?: string | null; borrowed?: boolean | null; reclaimedAt?: string | null; reclaimedFor?: string | null;
}

/** One line of GET /api/v1/fairshare (sshare -a): an account (user null) or a user under it. */
export interface FairShareLine {
  account: string; user?: string | null; parent?: string | null; depth: number; rawShares?: number | null;
  normShares?: number | null; rawUsage?: number | null; rawUsageTotal?: number | null; effectiveUsage?: number | null;
  levelFairShare?: number | null; fairShareFactor?: number | null;
  /** GPU-seconds, decayed as rawUsage is, and never decayed (an account's: its users' below it). */
  gpuUsage?: number | null; gpuUsageTotal?: number | null;
}

/** One line of GET /api/v1/quotas: an account's guaranteed, in use, borrowed, lent and pending GPUs (of one kind). */
export interface AccountQuota {
  account: string; parent?: string | null; tres: string; guaranteed: number; inUse: number; borrowed: number;
  lent: number; pendingDemand: number;
}

/**
 * One TRES of one GrpTRESMins budget (GET /api/v1/budgets): limit, used and left in TRES-minutes, the
 * TRES-minutes a day it burned since rateSince, and when it runs out at that rate (null: it does not).
 */
export interface Budget {
  owner: NonNullable<components['schemas']['Budget']['owner']>; associationId?: number | null; account?: string | null;
  user?: string | null; qos?: string | null; tres: string; limitMinutes: number; usedMinutes: number; leftMinutes: number;
  burnPerDay: number; rateSince: string; runsOutAt?: string | null;
}

export const PRIORITY_FACTORS = ['age', 'fairShare', 'jobSize', 'partition', 'qos', 'shortJob', 'expansion'] as const;
export type PriorityFactor = (typeof PRIORITY_FACTORS)[number];
export type PriorityFactors = Partial<Record<PriorityFactor, number | null>>;

/** A pending job's priority as GET /api/v1/priority (sprio) shows it. */
export interface JobPriority {
  jobId: string; user?: string; account?: string; partition?: string | null; qos?: string; priority: number;
  reason?: PendingReason | null; nice?: number | null; factors?: PriorityFactors; weighted?: PriorityFactors;
}
export interface PriorityList { computedAt?: string | null; jobs: JobPriority[]; weights?: PriorityFactors }

/** GET /api/v1/reports/utilization (sreport): hours per group per interval; down includes drained. */
export interface UtilizationHours { allocated: number; idle: number; down: number; reserved?: number; total: number }
/** Why GPUs were not allocated, in GPU-seconds; adds up to the bucket's gpuHours idle + down + reserved (times 3600). */
export interface IdleCauses { noDemand: number; reserved: number; fragmented: number; topology: number; limits: number; draining: number; down: number; poweredDown?: number }
export interface UtilizationBucket { start: string; end: string; group: string | null; gpuHours: UtilizationHours; cpuHours?: UtilizationHours; idleCauses?: IdleCauses | null }
/** The allocated GPU-hours whose GPUs read below the idle threshold (the nodes' nvidia-smi readings). */
export type AllocatedIdleGpus = components['schemas']['AllocatedIdleGpus'];
export interface UtilizationReport { buckets: UtilizationBucket[]; allocatedIdle?: AllocatedIdleGpus | null }

/** The admin views' answers (GET /reservations, /qos, /users, /accounts, /associations). */
export interface Reservation {
  name: string; startTime?: string | null; endTime?: string | null; durationSeconds?: number | null; nodes?: string | null;
  nodeCount?: number | null; partition?: string | null; users?: string[] | null; accounts?: string[] | null;
  flags?: string[] | null; state?: string | null; createdBy?: string | null;
}
export interface ReservationRequest {
  name?: string; startTime?: string; endTime?: string; durationSeconds?: number; nodes?: string; nodeCount?: number;
  partition?: string; users?: string[]; accounts?: string[]; flags?: string[];
}
export interface Qos {
  name: string; description?: string | null; priority?: number | null; maxWallSeconds?: number | null; maxJobsPerUser?: number | null;
  maxSubmitJobsPerUser?: number | null; maxTresPerJob?: string | null; maxTresPerUser?: string | null; grpTres?: string | null;
  usageFactor?: number | null; preempt?: string[] | null; preemptMode?: string | null;
}
export interface UserAccount { username: string; roles: string[]; enabled?: boolean | null; defaultAccount?: string | null }
export interface Account { name: string; parent?: string | null; description?: string | null; organization?: string | null; shares?: number | null }
export interface Association {
  id: number; account: string; user?: string | null; shares?: number | null; maxJobs?: number | null; maxSubmitJobs?: number | null;
  grpTres?: string | null; qos?: string[] | null; defaultQos?: string | null;
}
