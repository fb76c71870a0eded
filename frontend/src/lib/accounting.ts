import type { AccountQuota, AccountingRecord, FairShareLine, JobPriority } from '../api/types';

const DAY = 86400_000;

/** Midnight UTC of the day holding `ms`: days are UTC so every viewer sees the same bars. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

export interface DailyUsage { days: string[]; accounts: string[]; hours: Record<string, number[]> }

/**
 * GPU-hours per account per UTC day over [start, end). A job's GPU-seconds are spread evenly
 * over its run (its GPU count times the part of the run inside each day), so a job that ran
 * across midnight counts on both days and nothing outside the window counts at all.
 */
export function gpuHoursPerAccountPerDay(rows: AccountingRecord[], start: number, end: number, now = Date.now()): DailyUsage {
  const first = dayStart(start);
  const dayCount = Math.max(1, Math.ceil((end - first) / DAY));
  const days = Array.from({ length: dayCount }, (_, i) => new Date(first + i * DAY).toISOString().slice(0, 10));
  const hours: Record<string, number[]> = {};
  for (const row of rows) {
    if (!row.gpuSeconds || !row.elapsedSeconds || !row.startTime) continue;
    const gpus = row.gpuSeconds / row.elapsedSeconds;
    const runStart = new Date(row.startTime).getTime();
    const runEnd = row.endTime ? new Date(row.endTime).getTime() : Math.min(now, runStart + row.elapsedSeconds * 1000);
    const from = Math.max(runStart, start), to = Math.min(runEnd, end);
    if (to <= from) continue;
    const account = row.account || '(none)';
    const series = (hours[account] ??= new Array(dayCount).fill(0));
    for (let d = dayStart(from); d < to; d += DAY) {
      const overlap = Math.min(to, d + DAY) - Math.max(from, d);
      const index = Math.round((d - first) / DAY);
      if (overlap > 0 && index >= 0 && index < dayCount) series[index] += (gpus * overlap) / 3600_000;
    }
  }
  const accounts = Object.keys(hours).sort((a, b) => sumOf(hours[b]) - sumOf(hours[a]) || a.localeCompare(b));
  return { days, accounts, hours };
}

function sumOf(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Elapsed over the time limit, in [0, 1]; null when the limit is unknown or unlimited. */
export function efficiency(row: Pick<AccountingRecord, 'elapsedSeconds' | 'timeLimitSeconds'>): number | null {
  if (!row.timeLimitSeconds || row.timeLimitSeconds <= 0) return null;
  return Math.min(1, Math.max(0, row.elapsedSeconds / row.timeLimitSeconds));
}

/**
 * The fair-share lines as a tree to indent: sshare sends parents before children, but in case
 * a server sends them flat, every account is placed under its parent and its users after it.
 */
export function fairShareTree(lines: FairShareLine[]): (FairShareLine & { level: number })[] {
  const children = new Map<string, FairShareLine[]>();
  const accounts = new Set(lines.filter((l) => !l.user).map((l) => l.account));
  const roots: FairShareLine[] = [];
  for (const line of lines) {
    const parent = line.user ? line.account : line.parent;
    if (parent && (accounts.has(parent)) && !(line.user == null && parent === line.account)) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent)!.push(line);
    } else {
      roots.push(line);
    }
  }
  const out: (FairShareLine & { level: number })[] = [];
  const visit = (line: FairShareLine, level: number) => {
    out.push({ ...line, level });
    if (line.user) return;
    const kids = children.get(line.account) ?? [];
    // users first, then sub-accounts, as sshare prints them
    for (const kid of [...kids.filter((k) => k.user), ...kids.filter((k) => !k.user)]) visit(kid, level + 1);
  };
  for (const root of roots) visit(root, 0);
  return out;
}

/**
 * The quota lines of one kind (`gres/gpu` unless given) as a tree, depth first, children by name:
 * each with its depth for indenting, as the fair-share table shows accounts.
 */
export function quotaTree(lines: AccountQuota[], tres = 'gres/gpu'): (AccountQuota & { level: number })[] {
  const mine = lines.filter((l) => l.tres === tres);
  const names = new Set(mine.map((l) => l.account));
  const children = new Map<string, AccountQuota[]>();
  const roots: AccountQuota[] = [];
  for (const line of mine) {
    if (line.parent && names.has(line.parent)) {
      if (!children.has(line.parent)) children.set(line.parent, []);
      children.get(line.parent)!.push(line);
    } else {
      roots.push(line);
    }
  }
  const out: (AccountQuota & { level: number })[] = [];
  const visit = (line: AccountQuota, level: number) => {
    out.push({ ...line, level });
    for (const kid of [...(children.get(line.account) ?? [])].sort((a, b) => a.account.localeCompare(b.account))) {
      visit(kid, level + 1);
    }
  };
  for (const root of roots.sort((a, b) => a.account.localeCompare(b.account))) visit(root, 0);
  return out;
}

export interface QueuePlace { position: number; of: number; ahead: JobPriority[] }

/**
 * Where a pending job stands: its index among the pending jobs of its partition, sorted as the
 * scheduler sorts them (priority, then job id). Null when the job is not ranked (yet).
 */
export function queuePosition(jobs: JobPriority[], jobId: string, partition?: string | null): QueuePlace | null {
  const mine = jobs.find((j) => String(j.jobId) === jobId);
  if (!mine) return null;
  const part = mine.partition ?? partition ?? null;
  const queue = jobs.filter((j) => (j.partition ?? null) === part)
    .sort((a, b) => b.priority - a.priority || compareJobIds(String(a.jobId), String(b.jobId)));
  const index = queue.findIndex((j) => String(j.jobId) === jobId);
  return { position: index + 1, of: queue.length, ahead: queue.slice(0, index) };
}

/** 42 < 42_3 < 42_10 < 43: numeric by job id, then by array task. */
export function compareJobIds(a: string, b: string): number {
  const [aj, at = '-1'] = a.split('_'), [bj, bt = '-1'] = b.split('_');
  return Number(aj) - Number(bj) || Number(at) - Number(bt);
}

/** The colours of the accounts' series: ECharts' own palette and a few more, all readable on white. */
export const ACCOUNT_PALETTE = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4',
  '#ea7ccc', '#2563eb', '#c2410c', '#0f766e'];

/**
 * An account's colour: a hash of its name into {@link ACCOUNT_PALETTE}, so an account keeps its colour
 * whatever order the accounts arrive in (they are sorted by usage, which changes between loads).
 */
export function accountColour(account: string): string {
  let hash = 2166136261; // FNV-1a
  for (let i = 0; i < account.length; i++) {
    hash ^= account.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return ACCOUNT_PALETTE[(hash >>> 0) % ACCOUNT_PALETTE.length];
}
