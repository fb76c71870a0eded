import type { Reservation } from '../api/types';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Tick steps to choose from: the first that draws at most 8 ticks across the window. */
const STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];
/** However far ahead reservations go, the window shows at most this much (later ones are listed as later). */
const MAX_SPAN = 14 * DAY;

export interface TimelineBar {
  name: string; nodes: string; start: number; end: number;
  /** Position and width in percent of the window; a bar cut by the window's edge says so. */
  left: number; width: number; cutStart: boolean; cutEnd: boolean;
  /** Whether it holds its nodes now (started, not ended). */
  active: boolean;
}
export interface Timeline {
  from: number; to: number; now: number; nowLeft: number; ticks: { at: number; left: number }[];
  bars: TimelineBar[];
  /** Reservations that start after the window ends. */
  later: Reservation[];
}

/**
 * Reservations on a time axis, like `scontrol show res` drawn: the window starts an hour before now
 * (on the hour) and reaches the last reservation's end, at least a day and at most 14 days ahead.
 * Reservations that ended before the window are left out, those starting after it listed as later;
 * bars are sorted by start, then name.
 */
export function reservationTimeline(reservations: Reservation[], now: number): Timeline {
  const from = Math.floor((now - HOUR) / HOUR) * HOUR;
  const spans = reservations
    .map((r) => ({ r, start: time(r.startTime), end: endOf(r) }))
    .filter((s): s is { r: Reservation; start: number; end: number } => s.start !== null && s.end !== null && s.end > from);
  const lastEnd = Math.max(now + DAY, ...spans.map((s) => s.end));
  const to = Math.ceil(Math.min(lastEnd, from + MAX_SPAN) / HOUR) * HOUR;
  const pct = (t: number) => (100 * (Math.min(Math.max(t, from), to) - from)) / (to - from);
  const step = STEPS.find((s) => (to - from) / s <= 8) ?? STEPS[STEPS.length - 1];
  const ticks: { at: number; left: number }[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push({ at: t, left: pct(t) });
  const bars = spans.filter((s) => s.start < to)
    .sort((a, b) => a.start - b.start || a.r.name.localeCompare(b.r.name))
    .map(({ r, start, end }) => ({
      name: r.name, nodes: r.nodes ?? (r.nodeCount != null ? `${r.nodeCount} node${r.nodeCount === 1 ? '' : 's'}${r.partition ? ` of ${r.partition}` : ''}` : ''),
      start, end, left: pct(start), width: Math.max(0.5, pct(end) - pct(start)), cutStart: start < from, cutEnd: end > to,
      active: start <= now && now < end,
    }));
  const later = spans.filter((s) => s.start >= to).map((s) => s.r);
  return { from, to, now, nowLeft: pct(now), ticks, bars, later };
}

function time(text: string | null | undefined): number | null {
  if (!text) return null;
  const t = new Date(text).getTime();
  return Number.isNaN(t) ? null : t;
}

function endOf(r: Reservation): number | null {
  const end = time(r.endTime);
  if (end !== null) return end;
  const start = time(r.startTime);
  return start !== null && r.durationSeconds != null ? start + r.durationSeconds * 1000 : null;
}

/** A tick's label: the hour when the window is under two days, else the day (and the hour when it is not midnight). */
export function tickLabel(at: number, span: number): string {
  const d = new Date(at);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  if (span < 2 * DAY && !(d.getHours() === 0 && d.getMinutes() === 0)) return hm;
  const day = d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  return d.getHours() === 0 && d.getMinutes() === 0 ? day : `${day} ${hm}`;
}
