import type { PendingReason } from '../api/types';

/**
 * What the why-pending panel says about when a pending job starts. The scheduler gives every
 * pending job it could place an expected start (as squeue --start), a job of an advance reservation
 * the time it can start in it; jobs held, waiting on a dependency or a limit, or unable to run as
 * the cluster is get none. The text follows the job's
 * reason first, so a stale time (the reason changed since the last estimate pass) is never shown
 * beside a reason that contradicts it.
 */
export type StartExplanation =
  | { kind: 'expected'; at: string; notBeforeBegin: boolean; overdue: boolean }
  | { kind: 'none'; why: string };

// Sets of the generated PendingReason: a misspelt or removed reason here does not compile.
const HELD: ReadonlySet<string> = new Set<PendingReason>(['JobHeldUser', 'JobHeldAdmin']);
const DEPENDENCY: ReadonlySet<string> = new Set<PendingReason>(['Dependency', 'DependencyNeverSatisfied']);
/** Reasons that keep a job from ever running as things are: no time can be promised. */
const NEVER: ReadonlySet<string> = new Set<PendingReason>([
  'PartitionConfig', 'PartitionTimeLimit', 'PartitionNodeLimit', 'PartitionDown', 'BadConstraints', 'InvalidQOS',
  'QOSMaxWallDurationPerJobLimit', 'QOSMaxGRESPerJob', 'QOSMaxCpuPerJobLimit', 'QOSMaxNodePerJobLimit',
  'AssocMaxWallDurationPerJobLimit', 'AssocMaxGRESPerJob', 'AssocMaxCpuPerJobLimit', 'AssocMaxMemPerJob',
  'AssocMaxNodePerJobLimit', 'AssocMaxGRESPerNode', 'AssocMaxCpuPerNode', 'AssocMaxMemPerNode',
]);
/** Limits of an account's guarantee and borrowing (the quota reasons), beside Slurm's QOS and association ones. */
const QUOTA_LIMITS: ReadonlySet<string> = new Set<PendingReason>(['QuotaBorrowLimit', 'QuotaNothingToBorrow']);

function isLimit(reason: string): boolean {
  return (reason.startsWith('QOS') || reason.startsWith('Assoc') || reason === 'JobArrayTaskLimit'
    || QUOTA_LIMITS.has(reason)) && !NEVER.has(reason);
}

export function explainStart(reason: string | null | undefined, expectedStartTime: string | null | undefined,
  now = Date.now()): StartExplanation {
  const r = reason ?? '';
  if (HELD.has(r)) return { kind: 'none', why: 'it will not start while held; release it to get a start time.' };
  if (r === 'DependencyNeverSatisfied') return { kind: 'none', why: 'its dependency can never be satisfied, so it will never start.' };
  if (DEPENDENCY.has(r)) return { kind: 'none', why: 'it starts only once its dependency is satisfied; no time can be given before then.' };
  if (NEVER.has(r)) return { kind: 'none', why: 'it cannot run as the cluster and its limits are now (see the reason).' };
  if (isLimit(r)) return { kind: 'none', why: 'a limit keeps it waiting until other jobs of the same user, account or QOS end.' };
  if (r === 'Reservation' && !expectedStartTime) return { kind: 'none', why: 'it waits for its advance reservation to begin.' };
  if (!expectedStartTime) {
    return { kind: 'none', why: 'the scheduler has not placed it yet (it plans every pending job after each full pass, as time allows).' };
  }
  return {
    kind: 'expected', at: expectedStartTime, notBeforeBegin: r === 'BeginTime',
    overdue: new Date(expectedStartTime).getTime() <= now,
  };
}
