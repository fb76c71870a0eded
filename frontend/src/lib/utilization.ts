import type { IdleCauses, UtilizationReport } from '../api/types';
import type { GpuSummary } from './cluster';
import type { DailyUsage } from './accounting';

export interface GpuSample { t: number; allocated: number; idle: number; drained: number; down: number }

const HOUR = 3600_000;

/**
 * Adds a GPU count seen now to the tab's history (what the overview draws when the controller
 * has no utilization report): at most one sample per `gapMs`, none older than `keepMs`.
 */
export function addSample(samples: GpuSample[], summary: GpuSummary, now: number, gapMs = 30_000, keepMs = 24 * HOUR): GpuSample[] {
  const kept = samples.filter((s) => now - s.t <= keepMs);
  const last = kept[kept.length - 1];
  const sample = { t: now, allocated: summary.allocated, idle: summary.idle, drained: summary.drained, down: summary.down };
  if (last && now - last.t < gapMs) return [...kept.slice(0, -1), { ...sample, t: last.t }];
  return [...kept, sample];
}

const SAMPLES_KEY = 'gantry.overview.gpuSamples';
export function loadSamples(storage: Pick<Storage, 'getItem'> = sessionStorage): GpuSample[] {
  try {
    const saved = JSON.parse(storage.getItem(SAMPLES_KEY) ?? '[]');
    return Array.isArray(saved) ? saved : [];
  } catch { return []; }
}
export function saveSamples(samples: GpuSample[], storage: Pick<Storage, 'setItem'> = sessionStorage): void {
  storage.setItem(SAMPLES_KEY, JSON.stringify(samples));
}

/** GPUs by state over time; `drained` holds reserved GPUs when read from the report (which counts drained as down). */
export interface GpuSeries { times: number[]; allocated: number[]; idle: number[]; drained: number[]; down: number[] }

/**
 * The cluster's hourly GPU-hours as GPUs in each state, to read in the unit of the stat cards
 * above: each state's share of the bucket's sampled total, times the cluster's GPUs now. Shares
 * rather than hours over the bucket's length, since the controller samples only while it runs
 * (the hour it started in, or the hour under way, holds fewer hours). Hours it never sampled
 * (total 0) are left out, not drawn as zero.
 */
export function clusterGpuSeries(report: UtilizationReport, gpus: number): GpuSeries {
  const out: GpuSeries = { times: [], allocated: [], idle: [], drained: [], down: [] };
  const buckets = [...report.buckets].sort((a, b) => a.start.localeCompare(b.start));
  for (const b of buckets) {
    const g = b.gpuHours;
    if (!g || !(g.total > 0)) continue;
    const share = (hours: number | undefined) => round(((hours ?? 0) / g.total) * gpus);
    out.times.push(new Date(b.start).getTime());
    out.allocated.push(share(g.allocated));
    out.idle.push(share(g.idle));
    out.drained.push(share(g.reserved));
    out.down.push(share(g.down));
  }
  return out;
}

export function samplesSeries(samples: GpuSample[]): GpuSeries {
  return {
    times: samples.map((s) => s.t), allocated: samples.map((s) => s.allocated), idle: samples.map((s) => s.idle),
    drained: samples.map((s) => s.drained), down: samples.map((s) => s.down),
  };
}

/** Allocated GPU-hours per account per day from a report grouped by account. */
export function accountDailyUsage(report: UtilizationReport, window?: string[]): DailyUsage {
  const days = window ?? [...new Set(report.buckets.map((b) => b.start.slice(0, 10)))].sort();
  const hours: Record<string, number[]> = {};
  for (const b of report.buckets) {
    const group = b.group ?? '(cluster)';
    const series = (hours[group] ??= new Array(days.length).fill(0));
    const day = days.indexOf(b.start.slice(0, 10));
    if (day >= 0) series[day] += b.gpuHours.allocated;
  }
  const total = (a: string) => hours[a].reduce((x, y) => x + y, 0);
  const accounts = Object.keys(hours).filter((a) => total(a) > 0).sort((a, b) => total(b) - total(a) || a.localeCompare(b));
  return { days, accounts, hours };
}

/** The idle causes in the report's precedence order (down wins over draining, and so on), as the overview names them. */
export const IDLE_CAUSES: { key: keyof IdleCauses; label: string; help: string; color: string }[] = [
  { key: 'down', label: 'down', help: 'on nodes down or not responding', color: '#b91c1c' },
  { key: 'draining', label: 'draining', help: 'on nodes draining or drained', color: '#d97706' },
  { key: 'poweredDown', label: 'powered down', help: 'on nodes power saving has powered down', color: '#475569' },
  { key: 'reserved', label: 'reserved', help: 'held by an advance reservation or for a pending job\'s reservation', color: '#6d28d9' },
  { key: 'limits', label: 'limits', help: 'pending jobs that would use them wait only for a QOS or association limit', color: '#db2777' },
  { key: 'topology', label: 'topology', help: 'pending jobs would use them but for their --switches or block request', color: '#0891b2' },
  { key: 'fragmented', label: 'fragmented', help: 'pending jobs need more per node, or more together, than is free', color: '#64748b' },
  { key: 'noDemand', label: 'no demand', help: 'nothing pending could use them', color: '#3aa56a' },
];

export interface IdleCauseTotal { key: keyof IdleCauses; label: string; help: string; color: string; hours: number; share: number }

/**
 * GPU-hours per idle cause over the report's cluster buckets, in precedence order, with each
 * cause's share of all non-allocated GPU-hours; null when no bucket gives causes (an older
 * controller), and shares of 0 when nothing was idle.
 */
export function idleCauseTotals(report: UtilizationReport): IdleCauseTotal[] | null {
  const withCauses = report.buckets.filter((b) => b.idleCauses);
  if (withCauses.length === 0) return null;
  const seconds = IDLE_CAUSES.map((c) => withCauses.reduce((sum, b) => sum + (b.idleCauses![c.key] ?? 0), 0));
  const all = seconds.reduce((a, b) => a + b, 0);
  return IDLE_CAUSES.map((c, i) => ({ ...c, hours: round(seconds[i] / 3600), share: all > 0 ? seconds[i] / all : 0 }));
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
