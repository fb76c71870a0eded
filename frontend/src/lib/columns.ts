import type { Job } from '../api/types';
import { compareJobIds } from './accounting';

/** The jobs table's optional columns; ID, state and the selection box always show. */
export const JOB_COLUMNS = [
  { key: 'name', label: 'Name', sort: (j: Job) => j.name ?? '' },
  { key: 'user', label: 'User', sort: (j: Job) => j.user },
  { key: 'account', label: 'Account', sort: (j: Job) => j.account ?? '' },
  { key: 'partition', label: 'Partition', sort: (j: Job) => j.partition ?? '' },
  { key: 'qos', label: 'QOS', sort: (j: Job) => j.qos ?? '' },
  { key: 'priority', label: 'Priority', sort: (j: Job) => j.priority ?? -Infinity },
  { key: 'resources', label: 'Resources', sort: (j: Job) => (j.gpus ?? 0) * 1e6 + (j.nodes ?? 0) * 1e3 + (j.tasks ?? 0) },
  { key: 'timeLimit', label: 'Time limit', sort: (j: Job) => j.timeLimitSeconds ?? Infinity },
  { key: 'submitted', label: 'Submitted', sort: (j: Job) => j.submitTime ?? '' },
  { key: 'started', label: 'Started', sort: (j: Job) => j.startTime ?? '' },
  { key: 'ended', label: 'Ended', sort: (j: Job) => j.endTime ?? '' },
  { key: 'where', label: 'Nodes / reason', sort: (j: Job) => (j.state === 'PENDING' ? j.reason ?? '' : j.allocatedNodes ?? '') },
] as const;
export type JobColumn = (typeof JOB_COLUMNS)[number]['key'];
export const DEFAULT_COLUMNS: JobColumn[] = ['name', 'user', 'partition', 'resources', 'timeLimit', 'submitted', 'where'];
const KEY = 'gantry.jobs.columns';

/** The columns chosen on this browser (localStorage: a preference, not a secret), else the default. */
export function loadColumns(storage: Pick<Storage, 'getItem'> = localStorage): JobColumn[] {
  try {
    const saved = JSON.parse(storage.getItem(KEY) ?? 'null');
    if (Array.isArray(saved)) {
      const known = new Set<string>(JOB_COLUMNS.map((c) => c.key));
      return JOB_COLUMNS.map((c) => c.key).filter((k) => saved.includes(k) && known.has(k));
    }
  } catch { /* a damaged preference falls back to the default */ }
  return DEFAULT_COLUMNS;
}

export function saveColumns(columns: JobColumn[], storage: Pick<Storage, 'setItem'> = localStorage): void {
  storage.setItem(KEY, JSON.stringify(columns));
}

export type SortKey = JobColumn | 'id' | 'state';
export function isSortKey(key: string | null): key is SortKey {
  return key === 'id' || key === 'state' || JOB_COLUMNS.some((c) => c.key === key);
}

/**
 * The page's jobs sorted by a column (the API pages in job-id order and has no sort parameter,
 * so this orders the page shown). Ties keep job-id order; a stable copy, the input is untouched.
 */
export function sortJobs(jobs: Job[], key: SortKey, descending: boolean): Job[] {
  const value = key === 'id' ? null : key === 'state' ? (j: Job) => j.state : JOB_COLUMNS.find((c) => c.key === key)!.sort;
  const id = (j: Job) => j.id ?? (j.arrayTaskId != null && j.arrayJobId != null ? `${j.arrayJobId}_${j.arrayTaskId}` : String(j.jobId));
  const sign = descending ? -1 : 1;
  return [...jobs].sort((a, b) => {
    if (value) {
      const x = value(a), y = value(b);
      const c = x === y ? 0 : typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      if (c) return sign * c;
      return compareJobIds(id(a), id(b));
    }
    return sign * compareJobIds(id(a), id(b));
  });
}
