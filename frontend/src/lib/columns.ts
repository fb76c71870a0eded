import type { Job } from '../api/types';

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
  { key: 'expectedStart', label: 'Expected start', sort: (j: Job) => j.expectedStartTime ?? '' },
  { key: 'elapsed', label: 'Elapsed', sort: (j: Job) => j.startTime ?? '' },
  { key: 'timeLeft', label: 'Time left', sort: (j: Job) => j.timeLimitSeconds ?? Infinity },
  { key: 'where', label: 'Nodes / reason', sort: (j: Job) => (j.state === 'PENDING' ? j.reason ?? '' : j.allocatedNodes ?? '') },
] as const;
export type JobColumn = (typeof JOB_COLUMNS)[number]['key'];
export const DEFAULT_COLUMNS: JobColumn[] = ['name', 'user', 'partition', 'resources', 'timeLimit', 'submitted', 'elapsed', 'timeLeft', 'where'];
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

/** What a header sorts by: ID, state, or a column the server can order. */
export type SortKey = JobColumn | 'id' | 'state';
export function isSortKey(key: string | null): key is SortKey {
  return key === 'id' || key === 'state' || JOB_COLUMNS.some((c) => c.key === key);
}

/**
 * The `sort` key of GET /api/v1/jobs for each header the server can order by (id, submit, start, expected,
 * end, priority, user, state). The list is sorted and paged there, so page 1 sorted newest-first
 * holds the newest jobs of all, not the newest of one page. Columns the server cannot order
 * (name, partition, ...) have no sort button.
 */
const SERVER_SORT: Partial<Record<SortKey, string>> = {
  id: 'id', state: 'state', user: 'user', priority: 'priority', submitted: 'submit', started: 'start',
  expectedStart: 'expected', ended: 'end',
};

export function isServerSortable(key: SortKey): boolean {
  return key in SERVER_SORT;
}

/**
 * The API's sort parameter for a header and direction; undefined for the server's default (the
 * queue order: pending by priority, then the others by id). Ties break by job id on the server.
 */
export function serverSort(key: SortKey | null, descending: boolean): string | undefined {
  if (!key || !(key in SERVER_SORT)) return undefined;
  return `${descending ? '-' : ''}${SERVER_SORT[key]}`;
}

/** Seconds a job has run: until now while it runs, until its end once ended; null before it starts. */
export function elapsedSeconds(job: Job, now = Date.now()): number | null {
  if (!job.startTime) return null;
  const end = job.endTime ? new Date(job.endTime).getTime() : now;
  return Math.max(0, (end - new Date(job.startTime).getTime()) / 1000);
}

/** Seconds a running job has left before its time limit (squeue's TIME_LEFT); null when not running or unlimited. */
export function timeLeftSeconds(job: Job, now = Date.now()): number | null {
  if ((job.state !== 'RUNNING' && job.state !== 'COMPLETING') || job.timeLimitSeconds == null) return null;
  const ran = elapsedSeconds(job, now);
  return ran == null ? null : Math.max(0, job.timeLimitSeconds - ran);
}
