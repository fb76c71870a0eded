// What the admin forms send: text fields turned into the API's request bodies, each bad value named
// by its field (as the server's problem+json names them), and only what changed on an edit.
import { ApiError } from '../../api/client';
import type { components } from '../../api/schema';
import type { Account, Reservation, ReservationRequest } from '../../api/types';
import { formatDuration, parseSlurmTime } from '../../lib/format';

export type QosView = components['schemas']['Qos'];
export type QosRequest = components['schemas']['QosRequest'];
/** An account as GET /accounts answers, with its GPU guarantee and borrow and lend limits. */
export type AccountView = Account & { guaranteedTres?: string | null; maxBorrowTres?: string | null; maxLendTres?: string | null };
export type AuditEvent = components['schemas']['AuditEvent'];
export type PartitionView = components['schemas']['Partition'];
export type PartitionUpdate = components['schemas']['PartitionUpdate'];
export type ReservationView = Reservation;
export type ReservationBody = ReservationRequest;

/** Server errors of a failed write, by form field (the API's `errors[].field`); the rest in words. */
export function fieldErrors(error: unknown, fields: string[]): { byField: Record<string, string>; rest: unknown } {
  if (!(error instanceof ApiError) || !error.problem.errors?.length) return { byField: {}, rest: error };
  const byField: Record<string, string> = {};
  const other: string[] = [];
  for (const e of error.problem.errors) {
    const field = e.field?.replace(/\[\d+\]$/, '');
    if (field && fields.includes(field)) byField[field] = byField[field] ? `${byField[field]}; ${e.message}` : e.message;
    else other.push(`${e.field}: ${e.message}`);
  }
  return { byField, rest: other.length ? new ApiError(error.status, { ...error.problem, detail: other.join('; ') }) : null };
}

/** A number field's value for the API: '' leaves it (undefined), or clears a limit (-1) when `clear`. */
export function whole(text: string, clear: boolean): number | undefined | 'bad' {
  const t = text.trim();
  if (!t) return clear ? -1 : undefined;
  return /^-?\d+$/.test(t) ? Number(t) : 'bad';
}

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

// --- QOS ------------------------------------------------------------------------------------------

/** The QOS limits given as TRES text; "" clears each. */
export const QOS_TRES = ['maxTresPerUser', 'maxTresPerJob', 'maxTresPerAccount', 'minTresPerJob', 'grpTres',
  'grpTresMins', 'grpTresRunMins', 'maxTresMinsPerJob'] as const;
/** The QOS limits given as whole numbers (grpWallSeconds: Slurm's GrpWall in seconds); -1 clears each. */
export const QOS_COUNTS = ['maxJobsPerUser', 'maxSubmitJobsPerUser', 'maxJobsPerAccount', 'graceSeconds', 'preemptExemptSeconds',
  'grpWallSeconds'] as const;
/** The QOS flags (sacctmgr Flags=), each sent as true or false when it changed. */
export const QOS_FLAGS = ['gpuIdleExempt', 'noDecay', 'overPartQos'] as const;

export interface QosForm {
  name: string; description: string; priority: string; usageFactor: string; maxWall: string; preempt: string;
  preemptMode: string; gpuIdleExempt: boolean; noDecay: boolean; overPartQos: boolean; resetUsage: boolean;
  maxTresPerUser: string; maxTresPerJob: string; maxTresPerAccount: string; minTresPerJob: string; grpTres: string;
  grpTresMins: string; grpTresRunMins: string; maxTresMinsPerJob: string;
  maxJobsPerUser: string; maxSubmitJobsPerUser: string; maxJobsPerAccount: string; graceSeconds: string; preemptExemptSeconds: string;
  grpWallSeconds: string;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** The form for a QOS as the API shows it; an empty one (a new QOS) without. */
export function qosForm(q?: QosView): QosForm {
  return {
    name: q?.name ?? '', description: text(q?.description), priority: text(q?.priority ?? (q ? 0 : '')),
    usageFactor: text(q?.usageFactor ?? (q ? 1 : '')), maxWall: q?.maxWallSeconds != null ? formatDuration(q.maxWallSeconds) : '',
    preempt: (q?.preempt ?? []).join(','), preemptMode: q?.preemptMode ?? '', gpuIdleExempt: !!q?.gpuIdleExempt,
    noDecay: !!q?.noDecay, overPartQos: !!q?.overPartQos, resetUsage: false,
    maxTresPerUser: text(q?.maxTresPerUser), maxTresPerJob: text(q?.maxTresPerJob), maxTresPerAccount: text(q?.maxTresPerAccount),
    minTresPerJob: text(q?.minTresPerJob), grpTres: text(q?.grpTres), grpTresMins: text(q?.grpTresMins),
    grpTresRunMins: text(q?.grpTresRunMins), maxTresMinsPerJob: text(q?.maxTresMinsPerJob),
    maxJobsPerUser: text(q?.maxJobsPerUser), maxSubmitJobsPerUser: text(q?.maxSubmitJobsPerUser),
    maxJobsPerAccount: text(q?.maxJobsPerAccount), graceSeconds: text(q?.graceSeconds), preemptExemptSeconds: text(q?.preemptExemptSeconds),
    grpWallSeconds: text(q?.grpWallSeconds),
  };
}

/**
 * The body of POST /qos (no `before`) or PATCH /qos/{name} (only what differs from `before`, a
 * cleared limit sent as -1 or ""), or the fields the browser already knows are wrong. Error keys are
 * the API's field names, so the server's errors land at the same fields.
 */
export function qosRequest(form: QosForm, before?: QosForm): { body: QosRequest; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const body: QosRequest = {};
  const changed = (k: keyof QosForm) => !before || form[k] !== before[k];
  const given = (k: keyof QosForm) => (before ? changed(k) : typeof form[k] === 'string' ? (form[k] as string).trim() !== '' : !!form[k]);
  if (!before) {
    if (!form.name.trim()) errors.name = 'Give the QOS a name.';
    else body.name = form.name.trim();
  }
  if (given('description')) body.description = form.description.trim();
  if (given('priority')) {
    const p = form.priority.trim() === '' ? 0 : whole(form.priority, false);
    if (p === 'bad' || p === undefined) errors.priority = 'Enter a whole number (0 or more).';
    else body.priority = p;
  }
  if (given('usageFactor')) {
    const t = form.usageFactor.trim();
    if (t === '') body.usageFactor = 1;
    else if (!/^\d+(\.\d+)?$/.test(t)) errors.usageFactor = 'Enter a number such as 1 or 0.5.';
    else body.usageFactor = Number(t);
  }
  if (given('maxWall')) {
    if (form.maxWall.trim() === '') body.maxWallSeconds = -1;
    else {
      const s = parseSlurmTime(form.maxWall);
      if (s === null || s <= 0) errors.maxWallSeconds = 'Enter minutes or [days-]hh:mm:ss (empty: no limit).';
      else body.maxWallSeconds = s;
    }
  }
  if (given('preempt')) body.preempt = list(form.preempt);
  if (given('preemptMode')) body.preemptMode = (form.preemptMode || 'CLUSTER') as QosRequest['preemptMode'];
  for (const k of QOS_FLAGS) if (given(k)) body[k] = form[k];
  if (before && form.resetUsage) body.rawUsage = 0;
  for (const k of QOS_TRES) if (given(k)) body[k] = form[k].trim();
  for (const k of QOS_COUNTS) {
    if (!given(k)) continue;
    const v = whole(form[k], true);
    if (v === 'bad' || (v !== undefined && v < -1)) errors[k] = 'Enter a whole number (empty: no limit).';
    else body[k] = v;
  }
  return { body, errors };
}

/** The form field each of the API's QOS fields is typed in (the same name but for the wall time). */
export const qosFieldOf = (apiField: string) => (apiField === 'maxWallSeconds' ? 'maxWall' : apiField);

// --- Reservations ---------------------------------------------------------------------------------

export const RESERVATION_FLAGS = ['MAINT', 'IGNORE_JOBS'] as const;

export interface ReservationForm {
  name: string; start: string; duration: string; nodes: string; nodeCount: string; partition: string;
  users: string; accounts: string; flags: string[];
}

/** The edit form of a reservation: its window as start and duration, who may use it, its flags. */
export function reservationForm(r: ReservationView): ReservationForm {
  const seconds = r.durationSeconds ?? (r.startTime && r.endTime ? (Date.parse(r.endTime) - Date.parse(r.startTime)) / 1000 : null);
  return {
    name: r.name ?? '', start: '', duration: seconds != null ? formatDuration(seconds) : '', nodes: r.nodes ?? '', nodeCount: '',
    partition: r.partition ?? '', users: (r.users ?? []).join(', '), accounts: (r.accounts ?? []).join(', '), flags: [...(r.flags ?? [])],
  };
}

/**
 * The body of POST /reservations (no `before`), or of PATCH /reservations/{name} with what differs
 * from `before`. `start` is a datetime-local value (empty: now on a create, unchanged on an edit).
 */
export function reservationRequest(form: ReservationForm, before?: ReservationForm, now = new Date()):
  { body: ReservationBody; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const body: ReservationBody = {};
  const changed = (k: keyof ReservationForm) => !before || JSON.stringify(form[k]) !== JSON.stringify(before[k]);
  if (!before && form.name.trim()) body.name = form.name.trim();
  if (form.start) {
    const at = new Date(form.start);
    if (Number.isNaN(at.getTime())) errors.startTime = 'Enter a date and time.';
    else body.startTime = at.toISOString();
  } else if (!before) body.startTime = now.toISOString();
  if (changed('duration') || (before && form.start)) {
    const s = parseSlurmTime(form.duration);
    if (s === null || s <= 0) errors.durationSeconds = 'Enter minutes or [days-]hh:mm:ss.';
    else body.durationSeconds = s;
  }
  const count = form.nodeCount.trim();
  if (count) {
    if (!/^\d+$/.test(count) || Number(count) < 1) errors.nodeCount = 'Enter a number of nodes (1 or more).';
    else if (form.nodes.trim() && (!before || changed('nodes'))) errors.nodes = 'Give a node list or a node count, not both.';
    else { body.nodeCount = Number(count); body.partition = form.partition || undefined; }
  } else if (changed('nodes') && form.nodes.trim()) body.nodes = form.nodes.trim();
  if (changed('partition') && form.partition && body.partition === undefined) body.partition = form.partition;
  if (changed('users')) body.users = list(form.users);
  if (changed('accounts')) body.accounts = list(form.accounts);
  if (changed('flags')) body.flags = [...form.flags];
  return { body, errors };
}

// --- Accounts' guarantees -------------------------------------------------------------------------

export const GUARANTEE_FIELDS = ['guaranteedTres', 'maxBorrowTres', 'maxLendTres'] as const;
export type GuaranteeField = (typeof GUARANTEE_FIELDS)[number];

/** The guarantee fields of PATCH /accounts/{name} that differ from the account's (a cleared one sent as ""). */
export function guaranteeChange(form: Record<GuaranteeField, string>, account: AccountView): Partial<Record<GuaranteeField, string>> {
  const change: Partial<Record<GuaranteeField, string>> = {};
  for (const k of GUARANTEE_FIELDS) if (form[k].trim() !== (account[k] ?? '')) change[k] = form[k].trim();
  return change;
}

// --- Partitions -----------------------------------------------------------------------------------

export const PARTITION_STATES = ['UP', 'DOWN', 'DRAIN', 'INACTIVE'] as const;

/** What setting a partition to `state` does, said before it is done; null for UP (nothing stops, no need to ask). */
export function partitionStateWarning(name: string, state: string): string | null {
  switch (state) {
    case 'DOWN': return `Partition ${name} goes DOWN: its pending jobs stay queued but no new job starts in it until it is UP again.`;
    case 'DRAIN': return `Partition ${name} is drained: no new job starts in it; running jobs finish.`;
    case 'INACTIVE': return `Partition ${name} becomes INACTIVE: no job starts in it until it is UP again.`;
    default: return null;
  }
}

/**
 * The body of PATCH /partitions/{name} that gives the partition `choice` as its QOS ("" for none, sent
 * as "" to clear it): empty when nothing changes, or a `qos` error when `choice` is not one of `known`.
 */
export function partitionQosRequest(choice: string, partition: PartitionView, known: string[]):
  { body: PartitionUpdate; errors: Record<string, string> } {
  const qos = choice.trim();
  if (qos === (partition.qos ?? '')) return { body: {}, errors: {} };
  if (qos && !known.includes(qos)) return { body: {}, errors: { qos: `No QOS is named ${qos}; choose one of ${known.join(', ')} or none.` } };
  return { body: { qos }, errors: {} };
}

// --- Audit ----------------------------------------------------------------------------------------

/** The top-level fields an audited change altered, as "field: before → after"; a create or delete names none. */
export function auditChanges(before: unknown, after: unknown): string[] {
  if (!isObject(before) || !isObject(after)) return [];
  const show = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : Array.isArray(v) ? v.join(',') || '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null))
    .map((k) => `${k}: ${show(before[k])} → ${show(after[k])}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
