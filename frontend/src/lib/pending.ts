import type { PendingReason, PriorityList } from '../api/types';
import { explainStart } from './expectedStart';
import { relative } from './format';

/**
 * Every pending reason the scheduler gives (the document's PendingReason, generated from
 * io.gantry.engine.PendingReason), as the first half of one plain sentence: what holds the job and
 * what its owner can do. Typed by the generated reasons, so a reason without words does not
 * compile (and ReasonSentencesTests names it). Reasons that allow a start time are followed by it
 * (see whyPending).
 */
export const REASON_CLAUSES: Record<PendingReason, string> = {
  None: 'The scheduler has not looked at it yet',
  Priority: 'Jobs with a higher priority are ahead of it in the queue',
  Resources: 'It is waiting for enough free nodes, CPUs, GPUs or memory',
  Dependency: 'It waits for the jobs it depends on',
  DependencyNeverSatisfied: 'A job it depends on ended in a way its dependency rules out, so it will never start; cancel it',
  JobHeldUser: 'It is held by its owner and will not start until released',
  JobHeldAdmin: 'An administrator holds it; it will not start until an operator releases it',
  BeginTime: 'It was submitted not to start before its begin time',
  JobArrayTaskLimit: 'Its array already runs as many tasks at once as its %limit allows; it starts as another task of the array ends',
  PartitionTimeLimit: 'Its time limit is longer than the partition allows, so it cannot start there; lower the time limit or choose another partition',
  PartitionNodeLimit: 'It asks for more nodes than the partition allows one job, so it cannot start there; ask for fewer nodes or choose another partition',
  PartitionDown: 'Its partition is down; it waits until an administrator brings the partition up',
  PartitionConfig: 'No node in its partition has what it asks for (GPUs, CPUs or memory per node), so it cannot start there',
  ReqNodeNotAvail: 'A node it needs is busy with other jobs, drained, down or reserved (a node it names with --nodelist, or too few of its partition\'s nodes are up)',
  BadConstraints: 'No node has the features it asks for (--constraint), so it cannot start; change its constraints',
  TopologyWait: 'It waits for nodes under few enough switches or in one block, as its topology request asks',
  Reservation: 'It waits for its advance reservation',
  'ReqNodeNotAvail, Reserved for maintenance': 'Nodes it could use are set aside for a maintenance window (a reservation with the MAINT flag), so it waits for the window to end or for other nodes to free up',
  InvalidQOS: 'Its QOS is not one its account may use, so it cannot start; choose another QOS',
  QOSMaxWallDurationPerJobLimit: 'Its time limit is longer than its QOS allows, so it cannot start; lower the time limit',
  QOSMaxJobsPerUserLimit: 'Its owner already runs as many jobs as the QOS allows at once; it starts when one of them ends',
  QOSMaxGRESPerUser: 'Its owner already uses as many GPUs as the QOS allows at once; it starts when some are freed',
  QOSMaxCpuPerUserLimit: 'Its owner already uses as many CPUs as the QOS allows at once; it starts when some are freed',
  MaxJobsPerAccount: 'Its account already runs as many jobs under its QOS as the QOS allows one account at once; it starts when one of them ends',
  MaxGRESPerAccount: 'Its account already uses as many GPUs under its QOS as the QOS allows one account at once; it starts when some are freed',
  MaxCpuPerAccount: 'Its account already uses as many CPUs under its QOS as the QOS allows one account at once; it starts when some are freed',
  MaxNodePerAccount: 'Its account already uses as many nodes under its QOS as the QOS allows one account at once; it starts when some are freed',
  QOSMinCpuNotSatisfied: 'It asks for fewer CPUs than its QOS requires of each job, so it cannot start; ask for more',
  QOSMinNode: 'It asks for fewer nodes than its QOS requires of each job, so it cannot start; ask for more',
  QOSMinGRES: 'It asks for fewer GPUs than its QOS requires of each job, so it cannot start; ask for more',
  QOSMaxGRESPerJob: 'It asks for more GPUs than its QOS allows one job, so it cannot start; ask for fewer',
  QOSMaxCpuPerJobLimit: 'It asks for more CPUs than its QOS allows one job, so it cannot start; ask for fewer',
  QOSMaxNodePerJobLimit: 'It asks for more nodes than its QOS allows one job, so it cannot start; ask for fewer',
  QOSGrpGRES: 'Jobs of its QOS already use all the GPUs the QOS may use at once; it starts when some are freed',
  QOSGrpCpuLimit: 'Jobs of its QOS already use all the CPUs the QOS may use at once; it starts when some are freed',
  AssocMaxJobsLimit: 'Its owner already runs as many jobs in its account as the account\'s limit allows each user at once; it starts when one of them ends',
  AssocGrpGRES: 'Its account, or an account above it, already uses all the GPUs it may use at once; it starts when some are freed',
  AssocGrpCpuLimit: 'Its account, or an account above it, already uses all the CPUs it may use at once; it starts when some are freed',
  AssocGrpMemLimit: 'Its account, or an account above it, already uses all the memory it may use at once; it starts when some is freed',
  AssocGrpNodeLimit: 'Its account, or an account above it, already uses all the nodes it may use at once; it starts when some are freed',
  AssocGrpJobsLimit: 'Its account, or an account above it, already runs as many jobs as it may at once; it starts when one of them ends',
  AssocMaxWallDurationPerJobLimit: 'Its time limit is longer than its account allows one job, so it cannot start; lower the time limit',
  AssocMaxGRESPerJob: 'It asks for more GPUs than its account allows one job, so it cannot start; ask for fewer',
  AssocMaxCpuPerJobLimit: 'It asks for more CPUs than its account allows one job, so it cannot start; ask for fewer',
  AssocMaxMemPerJob: 'It asks for more memory than its account allows one job, so it cannot start; ask for less',
  AssocMaxNodePerJobLimit: 'It asks for more nodes than its account allows one job, so it cannot start; ask for fewer',
  AssocMaxGRESPerNode: 'It asks for more GPUs on one node than its account allows, so it cannot start; spread them over more nodes',
  AssocMaxCpuPerNode: 'It asks for more CPUs on one node than its account allows, so it cannot start; spread them over more nodes',
  AssocMaxMemPerNode: 'It asks for more memory on one node than its account allows, so it cannot start; ask for less',
  QOSGrpCPUMinutesLimit: 'Its QOS has too few CPU-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  QOSGrpMemoryMinutes: 'Its QOS has too few memory-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  QOSGrpNodeMinutes: 'Its QOS has too few node-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  QOSGrpGRESMinutes: 'Its QOS has too few GPU-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  QOSGrpCPURunMinutesLimit: 'Its QOS\'s running jobs may still use so many CPU-minutes until their time limits that this job would overrun its budget; it starts as they end',
  QOSGrpMemoryRunMinutes: 'Its QOS\'s running jobs may still use so many memory-minutes until their time limits that this job would overrun its budget; it starts as they end',
  QOSGrpNodeRunMinutes: 'Its QOS\'s running jobs may still use so many node-minutes until their time limits that this job would overrun its budget; it starts as they end',
  QOSGrpGRESRunMinutes: 'Its QOS\'s running jobs may still use so many GPU-minutes until their time limits that this job would overrun its budget; it starts as they end',
  QOSMaxCpuMinutesPerJobLimit: 'It asks for more CPU-minutes (its size times its time limit) than its QOS allows one job, so it cannot start; ask for less',
  QOSMaxMemoryMinutesPerJob: 'It asks for more memory-minutes (its size times its time limit) than its QOS allows one job, so it cannot start; ask for less',
  QOSMaxNodeMinutesPerJob: 'It asks for more node-minutes (its size times its time limit) than its QOS allows one job, so it cannot start; ask for less',
  QOSMaxGRESMinutesPerJob: 'It asks for more GPU-minutes (its size times its time limit) than its QOS allows one job, so it cannot start; ask for less',
  QOSGrpBillingMinutes: 'Its QOS has too few billing-minutes (its partition\'s TRESBillingWeights times what jobs hold) left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  QOSGrpBillingRunMinutes: 'Its QOS\'s running jobs may still use so many billing-minutes until their time limits that this job would overrun its budget; it starts as they end',
  QOSMaxBillingMinutesPerJob: 'It asks for more billing-minutes (its billing times its time limit) than its QOS allows one job, so it cannot start; ask for less',
  AssocGrpCPUMinutesLimit: 'Its account (or one above it) has too few CPU-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  AssocGrpMemMinutes: 'Its account (or one above it) has too few memory-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  AssocGrpNodeMinutes: 'Its account (or one above it) has too few node-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  AssocGrpGRESMinutes: 'Its account (or one above it) has too few GPU-minutes left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  AssocGrpCPURunMinutesLimit: 'Its account\'s running jobs may still use so many CPU-minutes until their time limits that this job would overrun its budget; it starts as they end',
  AssocGrpMemRunMinutes: 'Its account\'s running jobs may still use so many memory-minutes until their time limits that this job would overrun its budget; it starts as they end',
  AssocGrpNodeRunMinutes: 'Its account\'s running jobs may still use so many node-minutes until their time limits that this job would overrun its budget; it starts as they end',
  AssocGrpGRESRunMinutes: 'Its account\'s running jobs may still use so many GPU-minutes until their time limits that this job would overrun its budget; it starts as they end',
  AssocMaxCpuMinutesPerJobLimit: 'It asks for more CPU-minutes (its size times its time limit) than its account allows one job, so it cannot start; ask for less',
  AssocMaxMemMinutesPerJob: 'It asks for more memory-minutes (its size times its time limit) than its account allows one job, so it cannot start; ask for less',
  AssocMaxNodeMinutesPerJob: 'It asks for more node-minutes (its size times its time limit) than its account allows one job, so it cannot start; ask for less',
  AssocMaxGRESMinutesPerJob: 'It asks for more GPU-minutes (its size times its time limit) than its account allows one job, so it cannot start; ask for less',
  AssocGrpBillingMinutes: 'Its account (or one above it) has too few billing-minutes (its partition\'s TRESBillingWeights times what jobs hold) left in its budget for this job\'s time limit; it starts when the budget is reset or raised, or with a shorter time limit',
  AssocGrpBillingRunMinutes: 'Its account\'s running jobs may still use so many billing-minutes until their time limits that this job would overrun its budget; it starts as they end',
  AssocMaxBillingMinutesPerJob: 'It asks for more billing-minutes (its billing times its time limit) than its account allows one job, so it cannot start; ask for less',
  QOSGrpWallLimit: 'Its QOS\'s jobs have run, or may still run, so much wall-clock time that this job\'s time limit would overrun the QOS\'s GrpWall; it starts when the usage decays or is reset, or the limit is raised',
  AssocGrpWallLimit: 'The jobs of its account (or one above it) have run, or may still run, so much wall-clock time that this job\'s time limit would overrun its GrpWall; it starts when the usage decays or is reset, or the limit is raised',
  WaitingForReclaim: 'Its account is under its guaranteed share, and jobs of other accounts that borrowed it are being stopped to give it back (each once it has run its minimum time); it starts as they end',
  QuotaBorrowLimit: 'Its account already borrows as much of other accounts\' idle guarantee as its borrowing limit allows; it starts when some of the account\'s jobs end',
  QuotaNothingToBorrow: 'Its account has used its guarantee and the shared pool, and no other account in its cohort has idle guarantee to lend; it starts when some is freed',
};

/** Whether the dashboard has words for this reason (a newer controller may send one it does not know). */
export function isKnownReason(reason: string): reason is PendingReason {
  return Object.hasOwn(REASON_CLAUSES, reason);
}

/** Reasons under which the job is ranked in the queue and waits its turn (the priority table applies). */
const RANKED: ReadonlySet<PendingReason> = new Set<PendingReason>(['None', 'Priority', 'Resources', 'BeginTime',
  'TopologyWait', 'Reservation', 'ReqNodeNotAvail', 'ReqNodeNotAvail, Reserved for maintenance']);

export interface PendingExplanation {
  /** One sentence: why it waits and, where the reason allows one, when it is expected to start. */
  sentence: string;
  /** The expected start shown in the sentence, if any. */
  at?: string;
  /** Whether it waits its turn in the priority queue (so its place there means something). */
  ranked: boolean;
}

/**
 * Why a pending job waits, in one sentence, from its actual reason and the expected start the
 * scheduler computed. A held, dependent or limited job is never told when "the scheduler ranks
 * it": the reason says what it waits for, and no time is shown beside a reason that rules one out.
 */
export function whyPending(reason: string | null | undefined, expectedStartTime: string | null | undefined,
  { now = Date.now(), dependency, eligibleTime, formatTime = (iso: string) => new Date(iso).toLocaleString() }:
  { now?: number; dependency?: string | null; eligibleTime?: string | null; formatTime?: (iso: string) => string } = {}):
  PendingExplanation {
  const code = reason || 'None';
  let clause = isKnownReason(code) ? REASON_CLAUSES[code] : `It waits for a reason the dashboard has no words for (${code})`;
  if (code === 'Dependency' && dependency) clause = `It waits for the jobs it depends on (${dependency}) before it can start`;
  if (code === 'BeginTime' && eligibleTime) clause = `It may not start before its begin time, ${formatTime(eligibleTime)}`;
  const start = explainStart(code, expectedStartTime, now);
  const ranked = isKnownReason(code) && RANKED.has(code);
  if (start.kind === 'expected') {
    const when = start.overdue
      ? `it was expected to start by ${formatTime(start.at)} and should start at the next scheduling pass`
      : `it is expected to start ${relative(start.at, now)} (at ${formatTime(start.at)}), if the jobs ahead of it run to their time limits`;
    return { sentence: `${clause}; ${when}.`, at: start.at, ranked };
  }
  if (ranked) {
    const unplaced = code === 'Reservation'
      ? 'it can start once the reservation begins'
      : 'the scheduler has not found a time it can start yet (it plans every pending job after each full pass)';
    return { sentence: `${clause}; ${unplaced}.`, ranked };
  }
  return { sentence: `${clause}.`, ranked };
}

/** How often the queue's priorities are re-read while a ranked pending job is not in them yet. */
export const UNRANKED_MS = 5000;

/**
 * The refetch interval of the queue's priorities on a ranked pending job's page while the event
 * stream is open: none once the list has the job (any job's event refreshes it), every
 * {@link UNRANKED_MS} until then, since no event says when the next full pass has ranked it.
 */
export function untilRanked(list: PriorityList | undefined, id: string): number | false {
  return list && !list.jobs.some((e) => String(e.jobId) === id) ? UNRANKED_MS : false;
}

/**
 * A dependency as Slurm writes it (afterok:12:13_2,afterany:14+10?singleton), cut into text and
 * the job ids it names, so each id can link to its job's page.
 */
export function dependencyParts(dependency: string): { text: string; job?: string }[] {
  // Job ids follow a ':' (type:id:id...), each optionally an array task (id_task) or with +minutes after it.
  return dependency.split(/(?<=:)(\d+(?:_\d+)?)/).filter((t) => t !== '')
    .map((text, i, all) => (/^\d+(_\d+)?$/.test(text) && all[i - 1]?.endsWith(':') ? { text, job: text } : { text }));
}
