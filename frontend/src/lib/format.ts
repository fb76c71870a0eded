import type { JobState } from '../api/types';

export function isActive(state: JobState | string): boolean {
  return state === 'PENDING' || state === 'RUNNING' || state === 'COMPLETING' || state === 'SUSPENDED';
}

/** Seconds as Slurm writes a time limit: [days-]hh:mm:ss. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'UNLIMITED';
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const hms = [h, m, r].map((v) => String(v).padStart(2, '0')).join(':');
  return d ? `${d}-${hms}` : hms;
}

/** Parses Slurm's time forms: minutes, mm:ss, hh:mm:ss, d-hh, d-hh:mm, d-hh:mm:ss. */
export function parseSlurmTime(text: string): number | null {
  const t = text.trim();
  if (!t) return null;
  const dm = t.match(/^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$/);
  if (dm) return +dm[1] * 86400 + +dm[2] * 3600 + +(dm[3] ?? 0) * 60 + +(dm[4] ?? 0);
  const parts = t.split(':');
  if (!parts.every((p) => /^\d+$/.test(p))) return null;
  if (parts.length === 1) return +parts[0] * 60;
  if (parts.length === 2) return +parts[0] * 60 + +parts[1];
  if (parts.length === 3) return +parts[0] * 3600 + +parts[1] * 60 + +parts[2];
  return null;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const diff = (new Date(iso).getTime() - now) / 1000;
  const abs = Math.abs(diff);
  const text = abs < 60 ? `${Math.round(abs)} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : abs < 86400 ? `${(abs / 3600).toFixed(1)} h` : `${(abs / 86400).toFixed(1)} days`;
  return diff >= 0 ? `in ${text}` : `${text} ago`;
}

export function formatMemory(mb: number | null | undefined): string {
  if (mb === null || mb === undefined) return '—';
  return mb >= 1024 ? `${(mb / 1024).toFixed(mb % 1024 ? 1 : 0)} GB` : `${mb} MB`;
}

/** A measured size in bytes (a job's peak memory), in the largest binary unit that keeps it above 1. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

/** A measured CPU time in milliseconds as sacct's TotalCPU reads: [d-]hh:mm:ss, with milliseconds under an hour. */
export function formatCpuTime(millis: number | null | undefined): string {
  if (millis === null || millis === undefined) return '—';
  const ms = Math.max(0, Math.round(millis));
  const s = Math.floor(ms / 1000), sub = ms % 1000;
  if (s >= 3600 || !sub) return formatDuration(s);
  const m = Math.floor(s / 60), r = s % 60;
  return `${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}.${String(sub).padStart(3, '0')}`;
}
