import type { Job } from '../api/types';

/** Task ids as Slurm writes an array's range: [0, 1, 2, 3, 7, 9, 10] -> "0-3,7,9-10". */
export function taskRanges(ids: number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const first = sorted[i];
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) i++;
    parts.push(first === sorted[i] ? String(first) : `${first}-${sorted[i]}`);
  }
  return parts.join(',');
}

/** How many tasks are in each state, in the order of the states' first appearance in JOB_STATE_ORDER. */
export function countByState(jobs: Pick<Job, 'state'>[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const j of jobs) counts.set(j.state, (counts.get(j.state) ?? 0) + 1);
  return ORDER.filter((s) => counts.has(s)).map((s) => [s, counts.get(s)!] as [string, number])
    .concat([...counts].filter(([s]) => !ORDER.includes(s)));
}
const ORDER = ['RUNNING', 'COMPLETING', 'SUSPENDED', 'PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY'];

/**
 * An array's label: its id with the task range in brackets, as squeue prints it, then its tasks by
 * state, e.g. "18_[0-99] · 46 pending · 54 completed". Never "18_[46]", which reads as task 46.
 */
export function arrayLabel(arrayId: string | number, tasks: Pick<Job, 'state' | 'arrayTaskId'>[]): string {
  const range = taskRanges(tasks.map((t) => t.arrayTaskId).filter((t): t is number => t != null));
  const states = countByState(tasks).map(([s, n]) => `${n} ${s.toLowerCase().replace('_', ' ')}`);
  return [`${arrayId}_[${range}]`, ...states].join(' · ');
}
