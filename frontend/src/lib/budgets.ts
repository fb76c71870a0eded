import type { Budget } from '../api/types';

const UNITS: Record<string, string> = { 'gres/gpu': 'GPU-min', cpu: 'CPU-min', mem: 'MB-min', node: 'node-min' };

/** Whose budget it is, in words: an account, a user in an account, or a QOS. */
export function budgetOwner(b: Budget): string {
  if (b.owner === 'QOS') return `QOS ${b.qos}`;
  return b.user ? `${b.user} in ${b.account}` : `account ${b.account}`;
}

/** The unit of a budget's TRES-minutes: GPU-min, CPU-min, MB-min (memory) or node-min. */
export function budgetUnit(tres: string): string {
  return UNITS[tres] ?? `${tres}-min`;
}

/** The share of the budget used, 0 to 100 (a budget of 0 is all used). */
export function usedPercent(b: Budget): number {
  if (b.limitMinutes <= 0) return 100;
  return Math.min(100, Math.round((100 * b.usedMinutes) / b.limitMinutes));
}

/** A burn rate for a table cell: whole above 10 a day, one decimal below. */
export function formatRate(perDay: number): string {
  return perDay >= 10 ? Math.round(perDay).toLocaleString('en') : perDay.toFixed(1);
}

/**
 * When it runs out, in words: "ran out" when nothing is left, "not at this rate" when the server says it
 * does not (no use, or decay or a reset keeps it under its limit), else the day in UTC, as "Mar 14, 2026".
 */
export function runOutText(b: Budget): string {
  if (b.leftMinutes <= 0) return 'ran out';
  if (!b.runsOutAt) return 'not at this rate';
  const day = new Date(b.runsOutAt).toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
  return `runs out on ${day}`;
}
