/**
 * Words for what the landing page and the node views show beside a state: an array's tasks by
 * state, and the marks a node carries (its reservation, a coming maintenance, failing jobs, who
 * drained it). Plain functions of the API's answers, so they are tested without a browser.
 */

export type StateCount = { state: string; tasks: number };

/** Slurm's order of job states for a line of counts: what runs first, what ended badly last. */
const ORDER = ['RUNNING', 'COMPLETING', 'SUSPENDED', 'PENDING', 'COMPLETED', 'CANCELLED', 'PREEMPTED', 'DEADLINE', 'TIMEOUT',
  'OUT_OF_MEMORY', 'NODE_FAIL', 'FAILED'];

/** "3 running · 5 pending · 2 failed": an array's tasks by state, in ORDER, states with none left out. */
export function stateCounts(states: StateCount[] | undefined): string {
  return [...(states ?? [])].filter((s) => s.tasks > 0)
    .sort((a, b) => rank(a.state) - rank(b.state))
    .map((s) => `${s.tasks} ${s.state.toLowerCase().replace(/_/g, ' ')}`).join(' · ');
}

function rank(state: string): number {
  const i = ORDER.indexOf(state);
  return i < 0 ? ORDER.length : i;
}

export type NodeFailures = { failed: number; ended: number; windowMinutes: number; failing: boolean };

export type MarkedNode = {
  reservation?: string | null;
  maintenanceReservation?: string | null;
  maintenanceStart?: string | null;
  recentFailures?: NodeFailures | null;
};

export type NodeMark = { kind: 'reserved' | 'maintenance' | 'failing'; text: string };

/** "failing: 75 of 100 jobs in 10 min" */
export function failingText(f: NodeFailures): string {
  return `failing: ${f.failed} of ${f.ended} job${f.ended === 1 ? '' : 's'} in ${f.windowMinutes} min`;
}

/**
 * What to say of a node beside its state: the reservation it is in (an IDLE node there takes no
 * ordinary job), a maintenance that starts within a day (with its start, in `formatTime`), and
 * whether it fails the jobs it gets. Failures only mark a node the server calls failing.
 */
export function nodeMarks(node: MarkedNode, formatTime: (iso: string) => string): NodeMark[] {
  const marks: NodeMark[] = [];
  if (node.reservation) marks.push({ kind: 'reserved', text: `reserved: ${node.reservation}` });
  if (node.maintenanceReservation && node.maintenanceStart) {
    marks.push({ kind: 'maintenance', text: `maintenance ${node.maintenanceReservation} from ${formatTime(node.maintenanceStart)}` });
  }
  if (node.recentFailures?.failing) marks.push({ kind: 'failing', text: failingText(node.recentFailures) });
  return marks;
}

/** "by alice, 5 Dec 2026 10:00": who set a node's reason and when, as scontrol's [alice@time]. */
export function reasonBy(user: string | null | undefined, time: string | null | undefined, formatTime: (iso: string) => string): string {
  if (!user && !time) return '';
  return [user ? `by ${user}` : '', time ? formatTime(time) : ''].filter(Boolean).join(', ');
}

/** "12.5": GPU-hours with one decimal below 100, whole above. */
export function gpuHours(h: number | null | undefined): string {
  if (h === null || h === undefined || Number.isNaN(h)) return '—';
  return h >= 100 ? Math.round(h).toLocaleString('en') : (Math.round(h * 10) / 10).toString();
}
