import type { Association, FieldError, JobSubmission, JobTrial } from '../api/types';
import { parseSlurmTime } from './format';
import { isKnownReason, REASON_CLAUSES } from './pending';
import { directiveLineOf } from './sbatch';

/**
 * The submit form's fields and how its mistakes are found and placed: the form checks only what the
 * server cannot (its own text fields that become numbers, and the #! line sbatch requires, which the
 * JSON API does not), the server names every other mistake of the same submission at once, and both
 * lists are merged so one round shows them all, each under its field or on its script line.
 */
export type Form = Record<'name' | 'partition' | 'account' | 'qos' | 'nodes' | 'tasks' | 'cpusPerTask' | 'memoryMb' | 'gpus'
  | 'gpusPerNode' | 'gpuType' | 'time' | 'constraints' | 'dependency' | 'array' | 'simulatedRunSeconds' | 'simulatedExitCode', string>
  & { hold: boolean; exclusive: boolean; script: string };

export const DEFAULT_SCRIPT = `#!/bin/bash
#SBATCH --time=00:30:00

srun hostname
`;

export const EMPTY_FORM: Form = {
  name: '', partition: '', account: '', qos: '', nodes: '', tasks: '', cpusPerTask: '', memoryMb: '', gpus: '', gpusPerNode: '',
  gpuType: '', time: '', constraints: '', dependency: '', array: '', simulatedRunSeconds: '', simulatedExitCode: '',
  hold: false, exclusive: false, script: DEFAULT_SCRIPT,
};

const NUMBERS = ['nodes', 'tasks', 'cpusPerTask', 'memoryMb', 'gpus', 'gpusPerNode', 'simulatedRunSeconds', 'simulatedExitCode'] as const;
const TEXTS = ['name', 'partition', 'account', 'qos', 'gpuType', 'constraints', 'dependency', 'array'] as const;

/** Where a mistake is shown: under a form field (a key of Form), on a script line, or apart when neither fits. */
export type Place = { field: keyof Form } | { line: number } | { other: string };
export interface Mistake { place: Place; message: string }

/** sbatch's refusal of a script whose first line is not #!, which the JSON API accepts (only the sbatch CLI checks). */
export const NO_SHEBANG = 'This does not look like a batch script: the first line must start with #! followed by the path '
  + 'to an interpreter, e.g. #!/bin/bash (sbatch refuses it)';

/**
 * The JSON body (only what the form sets, so the script's #SBATCH directives fill the rest) and the
 * mistakes only the form can see. A field it cannot read is left out of the body, so the server
 * still checks everything else.
 */
export function toSubmission(form: Form): { body: JobSubmission; mistakes: Mistake[] } {
  const body: Record<string, unknown> = { script: form.script };
  const mistakes: Mistake[] = [];
  for (const k of TEXTS) if (form[k].trim()) body[k] = form[k].trim();
  for (const k of NUMBERS) {
    const v = form[k].trim();
    if (!v) continue;
    if (!/^-?\d+$/.test(v)) mistakes.push({ place: { field: k }, message: 'Enter a whole number.' });
    else body[k] = Number(v);
  }
  if (form.time.trim()) {
    const s = parseSlurmTime(form.time);
    if (s === null) mistakes.push({ place: { field: 'time' }, message: 'Use a Slurm time: minutes, hh:mm:ss or days-hh:mm:ss.' });
    else body.timeLimitSeconds = s;
  }
  if (!form.script.startsWith('#!')) mistakes.push({ place: { line: 1 }, message: NO_SHEBANG });
  if (form.hold) body.hold = true;
  if (form.exclusive) body.exclusive = true;
  return { body: body as JobSubmission, mistakes };
}

/** The form field a server error names, where the form has one (the JSON's names differ for a few). */
const FIELD_OF: Record<string, keyof Form> = { timeLimitSeconds: 'time', maxNodes: 'nodes' };
/** Fields whose mistakes show beside the script or the check boxes rather than under an input of their own. */
const NO_INPUT = new Set<keyof Form>(['script', 'hold', 'exclusive']);

function isFormKey(k: string): k is keyof Form & string {
  return Object.hasOwn(EMPTY_FORM, k);
}

function isSet(form: Form, key: keyof Form): boolean {
  const v = form[key];
  return typeof v === 'boolean' ? v : v.trim() !== '';
}

/**
 * Where each of the server's errors belongs. `script:N` is line N. A field the form fills is shown
 * under it; one the form leaves empty came from the script's directive, so it goes on that line
 * (the server places most such errors itself; this catches the rest). What the form has no input
 * for is shown apart, naming the field.
 */
export function placeServerErrors(errors: FieldError[], form: Form): Mistake[] {
  return errors.map((e) => {
    const m = e.field?.match(/^script:(\d+)$/);
    if (m) return { place: { line: Number(m[1]) }, message: e.message };
    const key = FIELD_OF[e.field] ?? e.field;
    if (!isFormKey(key)) return { place: { other: e.field || 'submission' }, message: e.message };
    if (key === 'script') return { place: { field: 'script' }, message: e.message };
    if (!isSet(form, key)) {
      const at = directiveLineOf(form.script, key);
      if (at) return { place: { line: at.line }, message: `${at.option}: ${e.message}` };
    }
    if (NO_INPUT.has(key)) return { place: { other: key }, message: e.message };
    return { place: { field: key }, message: e.message };
  });
}

export interface Placed {
  /** Messages under each form field (the script's own, not tied to a line, under 'script'). */
  fields: Partial<Record<keyof Form, string[]>>;
  /** Messages on each script line, by line number ascending. */
  lines: { line: number; messages: string[] }[];
  /** What has no field or line, as "field: message". */
  other: string[];
}

/** The form's own mistakes and the server's, together, each message once where it belongs. */
export function mergeMistakes(...lists: Mistake[][]): Placed {
  const fields: Partial<Record<keyof Form, string[]>> = {};
  const lines = new Map<number, string[]>();
  const other: string[] = [];
  const add = (list: string[], message: string) => { if (!list.includes(message)) list.push(message); };
  for (const { place, message } of lists.flat()) {
    if ('line' in place) {
      if (!lines.has(place.line)) lines.set(place.line, []);
      add(lines.get(place.line)!, message);
    } else if ('field' in place) {
      add(fields[place.field] ??= [], message);
    } else {
      add(other, `${place.other}: ${message}`);
    }
  }
  return { fields, lines: [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([line, messages]) => ({ line, messages })), other };
}

export const NO_MISTAKES: Placed = { fields: {}, lines: [], other: [] };

export interface TrialSummary {
  /** When it would start, in words; null when no time can be given. */
  when: string | null;
  at?: string;
  /** Where: the nodes and partition, with the CPUs it would hold. */
  where: string | null;
  /** Why no start can be given, in words (the dashboard's sentence for a pending reason it names). */
  why: string | null;
}

/** POST /jobs/test's answer in words, as squeue --start and the job page say it. */
export function trialSummary(trial: JobTrial, { now = Date.now(), formatTime = (iso: string) => new Date(iso).toLocaleString(),
  relativeTime }: { now?: number; formatTime?: (iso: string) => string; relativeTime: (iso: string, now: number) => string }): TrialSummary {
  let when: string | null = null;
  if (trial.startTime) {
    when = new Date(trial.startTime).getTime() <= now + 1000
      ? `It would start at once (${formatTime(trial.startTime)}).`
      : `It would start ${relativeTime(trial.startTime, now)} (at ${formatTime(trial.startTime)}), if the jobs ahead of it run to their time limits.`;
  }
  const where = trial.nodes
    ? `On ${trial.nodes}${trial.partition ? ` in partition ${trial.partition}` : ''}${trial.processors ? `, holding ${trial.processors} CPU${trial.processors === 1 ? '' : 's'}` : ''}.`
    : trial.partition ? `In partition ${trial.partition}.` : null;
  let why: string | null = null;
  if (!trial.startTime) {
    const reason = trial.reason ?? 'the scheduler cannot say yet';
    const code = reason.match(/\(([^()]+)\)\s*$/)?.[1];
    const clause = code && isKnownReason(code) ? ` ${REASON_CLAUSES[code]}.` : '';
    why = `No start time can be given: ${reason}.${clause}`;
  }
  return { when, at: trial.startTime ?? undefined, where, why };
}

/** The accounts and QOS the signed-in user may pick, from their own associations. */
export interface Choices {
  accounts: string[];
  /** The account a job naming none is charged to. */
  defaultAccount: string | null;
  /** The QOS the chosen account (or the default one) allows, and which of them applies when none is named. */
  qos: string[];
  defaultQos: string | null;
}

/**
 * The pickers' choices: the user's associations' accounts, and the QOS of the chosen account's
 * association (every QOS when it lists none, as the server allows; its default QOS always), as the
 * server's charge check reads them.
 */
export function choicesOf(associations: Association[], user: string, account: string, defaultAccount: string | null | undefined,
  allQos: string[]): Choices {
  const mine = associations.filter((a) => a.user === user).sort((a, b) => a.account.localeCompare(b.account));
  const accounts = mine.map((a) => a.account);
  const fallback = defaultAccount && accounts.includes(defaultAccount) ? defaultAccount : accounts[0] ?? null;
  const chosen = mine.find((a) => a.account === (account || fallback));
  if (!chosen) return { accounts, defaultAccount: fallback, qos: [], defaultQos: null };
  const defaultQos = chosen.defaultQos || 'normal';
  const listed = chosen.qos?.length ? chosen.qos : allQos;
  const qos = [...new Set([...listed, ...(chosen.defaultQos ? [chosen.defaultQos] : [])])].sort();
  return { accounts, defaultAccount: fallback, qos, defaultQos };
}
