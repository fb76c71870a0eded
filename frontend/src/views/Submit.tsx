import { useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import type { FieldError, JobSubmission } from '../api/types';
import { parseSlurmTime } from '../lib/format';
import { navigate } from '../lib/router';
import { readDirectives, sbatchCommand } from '../lib/sbatch';
import { ErrorBox, Field } from './common';

const DEFAULT_SCRIPT = `#!/bin/bash
#SBATCH --time=00:30:00

srun hostname
`;

type Form = Record<'name' | 'partition' | 'account' | 'qos' | 'nodes' | 'tasks' | 'cpusPerTask' | 'memoryMb' | 'gpus'
  | 'gpusPerNode' | 'gpuType' | 'time' | 'constraints' | 'dependency' | 'array' | 'simulatedRunSeconds' | 'simulatedExitCode', string>
  & { hold: boolean; exclusive: boolean; script: string };

const EMPTY: Form = {
  name: '', partition: '', account: '', qos: '', nodes: '', tasks: '', cpusPerTask: '', memoryMb: '', gpus: '', gpusPerNode: '',
  gpuType: '', time: '', constraints: '', dependency: '', array: '', simulatedRunSeconds: '', simulatedExitCode: '',
  hold: false, exclusive: false, script: DEFAULT_SCRIPT,
};

const NUMBERS = ['nodes', 'tasks', 'cpusPerTask', 'memoryMb', 'gpus', 'gpusPerNode', 'simulatedRunSeconds', 'simulatedExitCode'] as const;
const TEXTS = ['name', 'partition', 'account', 'qos', 'gpuType', 'constraints', 'dependency', 'array'] as const;

/** The JSON body: only what the form sets, so the script's #SBATCH directives fill the rest. */
export function toSubmission(form: Form): { body: JobSubmission; errors: Record<string, string> } {
  const body: Record<string, unknown> = { script: form.script };
  const errors: Record<string, string> = {};
  for (const k of TEXTS) if (form[k].trim()) body[k] = form[k].trim();
  for (const k of NUMBERS) {
    const v = form[k].trim();
    if (!v) continue;
    if (!/^-?\d+$/.test(v)) errors[k] = 'Enter a whole number.';
    else body[k] = Number(v);
  }
  if (form.time.trim()) {
    const s = parseSlurmTime(form.time);
    if (s === null) errors.time = 'Use a Slurm time: minutes, hh:mm:ss or days-hh:mm:ss.';
    else body.timeLimitSeconds = s;
  }
  if (form.hold) body.hold = true;
  if (form.exclusive) body.exclusive = true;
  return { body: body as JobSubmission, errors };
}

function fieldOf(apiField: string): string {
  return apiField === 'timeLimitSeconds' ? 'time' : apiField;
}

export function Submit() {
  const queryClient = useQueryClient();
  const partitions = useQuery({ queryKey: ['partitions'], queryFn: api.partitions, refetchInterval: 60000 });
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [scriptErrors, setScriptErrors] = useState<{ line: number; message: string }[]>([]);
  const [other, setOther] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);

  const directives = useMemo(() => readDirectives(form.script), [form.script]);
  const command = sbatchCommand({
    name: form.name, partition: form.partition, account: form.account, qos: form.qos, nodes: form.nodes, tasks: form.tasks,
    cpusPerTask: form.cpusPerTask, memoryMb: form.memoryMb, gpus: form.gpus, gpusPerNode: form.gpusPerNode, time: form.time,
    constraints: form.constraints, dependency: form.dependency, array: form.array, hold: form.hold, exclusive: form.exclusive,
  });

  const set = (k: keyof Form) => (e: { target: { value: string; checked?: boolean; type?: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.type === 'checkbox' ? !!e.target.checked : e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const { body, errors: local } = toSubmission(form);
    setErrors(local);
    setScriptErrors([]);
    setOther(null);
    if (Object.keys(local).length) return;
    setBusy(true);
    try {
      const answer = await api.submit(body);
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
      navigate(`/jobs/${answer.arrayTaskIds?.length ? answer.jobId : answer.jobId}`, answer.warnings?.length ? { warnings: answer.warnings.join(' | ') } : {});
    } catch (err) {
      if (err instanceof ApiError && err.problem.errors?.length) {
        const byField: Record<string, string> = {};
        const lines: { line: number; message: string }[] = [];
        const rest: FieldError[] = [];
        for (const fe of err.problem.errors) {
          const m = fe.field?.match(/^script:(\d+)$/);
          if (m) lines.push({ line: Number(m[1]), message: fe.message });
          else if (fe.field && fe.field in EMPTY) byField[fieldOf(fe.field)] = fe.message;
          else if (fe.field && fieldOf(fe.field) in EMPTY) byField[fieldOf(fe.field)] = fe.message;
          else rest.push(fe);
        }
        setErrors(byField);
        setScriptErrors(lines.sort((a, b) => a.line - b.line));
        if (rest.length) setOther(new ApiError(err.status, { ...err.problem, detail: rest.map((r) => `${r.field}: ${r.message}`).join('; ') }));
        else if (!lines.length && !Object.keys(byField).length) setOther(err);
      } else {
        setOther(err);
      }
    } finally {
      setBusy(false);
    }
  }

  function goToLine(line: number) {
    const t = textarea.current;
    if (!t) return;
    const lines = form.script.split('\n');
    const start = lines.slice(0, line - 1).reduce((a, l) => a + l.length + 1, 0);
    t.focus();
    t.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  }

  const lineCount = form.script.split('\n').length;
  const errorLines = new Map<number, string>();
  for (const e of scriptErrors) errorLines.set(e.line, errorLines.has(e.line) ? `${errorLines.get(e.line)}; ${e.message}` : e.message);
  const input = (k: keyof Form, props: Record<string, unknown> = {}) => (
    <input id={k} name={k} value={form[k] as string} onChange={set(k)} data-testid={`submit-${k}`} aria-invalid={!!errors[k]} {...props} />
  );

  return (
    <section aria-labelledby="submit-title" data-testid="view-submit">
      <h1 id="submit-title">Submit a job</h1>
      <form onSubmit={submit} className="submit" noValidate data-testid="submit-form">
        <div className="form-grid">
          <Field label="Name" htmlFor="name" error={errors.name}>{input('name', { placeholder: 'from the script' })}</Field>
          <Field label="Partition" htmlFor="partition" error={errors.partition}>
            <select id="partition" value={form.partition} onChange={set('partition')} data-testid="submit-partition">
              <option value="">default</option>
              {(partitions.data?.items ?? []).map((p) => <option key={p.name} value={p.name}>{p.name}{p.isDefault ? ' (default)' : ''}</option>)}
            </select>
          </Field>
          <Field label="Account" htmlFor="account" error={errors.account}>{input('account', { placeholder: 'your default' })}</Field>
          <Field label="QOS" htmlFor="qos" error={errors.qos}>{input('qos', { placeholder: 'normal' })}</Field>
          <Field label="Nodes" htmlFor="nodes" error={errors.nodes}>{input('nodes', { inputMode: 'numeric' })}</Field>
          <Field label="Tasks" htmlFor="tasks" error={errors.tasks}>{input('tasks', { inputMode: 'numeric' })}</Field>
          <Field label="CPUs per task" htmlFor="cpusPerTask" error={errors.cpusPerTask}>{input('cpusPerTask', { inputMode: 'numeric' })}</Field>
          <Field label="Memory (MB)" htmlFor="memoryMb" error={errors.memoryMb}>{input('memoryMb', { inputMode: 'numeric' })}</Field>
          <Field label="GPUs" htmlFor="gpus" error={errors.gpus}>{input('gpus', { inputMode: 'numeric' })}</Field>
          <Field label="GPU type" htmlFor="gpuType" error={errors.gpuType}>{input('gpuType', { placeholder: 'any' })}</Field>
          <Field label="Time limit" htmlFor="time" error={errors.time} hint="e.g. 30, 2:00:00, 1-00:00:00">{input('time', { placeholder: 'partition default' })}</Field>
          <Field label="Constraints" htmlFor="constraints" error={errors.constraints}>{input('constraints')}</Field>
        </div>
        <details data-testid="submit-advanced">
          <summary data-testid="submit-advanced-toggle">Advanced</summary>
          <div className="form-grid">
            <Field label="GPUs per node" htmlFor="gpusPerNode" error={errors.gpusPerNode}>{input('gpusPerNode', { inputMode: 'numeric' })}</Field>
            <Field label="Dependency" htmlFor="dependency" error={errors.dependency}>{input('dependency', { placeholder: 'afterok:123' })}</Field>
            <Field label="Array" htmlFor="array" error={errors.array}>{input('array', { placeholder: '0-99%10' })}</Field>
            <Field label="Simulated run (s)" htmlFor="simulatedRunSeconds" error={errors.simulatedRunSeconds} hint="How long it runs on a simulated node">
              {input('simulatedRunSeconds', { inputMode: 'numeric' })}</Field>
            <Field label="Simulated exit code" htmlFor="simulatedExitCode" error={errors.simulatedExitCode}>{input('simulatedExitCode', { inputMode: 'numeric' })}</Field>
            <div className="field checks">
              <label><input type="checkbox" checked={form.hold} onChange={set('hold')} data-testid="submit-hold" /> Submit held</label>
              <label><input type="checkbox" checked={form.exclusive} onChange={set('exclusive')} data-testid="submit-exclusive" /> Exclusive nodes</label>
            </div>
          </div>
        </details>

        <div className={`field${scriptErrors.length ? ' has-error' : ''}`}>
          <label htmlFor="script">Script</label>
          <div className="editor">
            <div className="gutter" ref={gutter} aria-hidden="true">
              {Array.from({ length: lineCount }, (_, i) => (
                <div key={i} className={errorLines.has(i + 1) ? 'bad' : ''} data-testid={errorLines.has(i + 1) ? `script-line-error-${i + 1}` : undefined}
                  title={errorLines.get(i + 1)}>{i + 1}</div>
              ))}
            </div>
            <textarea id="script" ref={textarea} value={form.script} onChange={set('script')} spellCheck={false} rows={Math.max(10, lineCount + 1)}
              data-testid="submit-script" aria-invalid={scriptErrors.length > 0} aria-describedby="script-errors"
              onScroll={(e) => { if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop; }} />
          </div>
          <ul id="script-errors" className="script-errors">
            {scriptErrors.map((e, i) => (
              <li key={i} role="alert" data-testid="script-error" data-line={e.line}>
                <button type="button" className="link" onClick={() => goToLine(e.line)}>Line {e.line}</button>: {e.message}
              </li>
            ))}
          </ul>
        </div>

        <div className="grid2">
          <div>
            <h2>#SBATCH options in the script</h2>
            {directives.length === 0 ? <p className="muted">None.</p> : (
              <ul className="mono" data-testid="submit-directives">
                {directives.map((d) => <li key={d.line}>line {d.line}: {d.option}{d.value !== null ? ` ${d.value}` : ''}</li>)}
              </ul>
            )}
          </div>
          <div>
            <h2>Equivalent command</h2>
            <pre className="mono wrap" data-testid="submit-command">{command}</pre>
            <p className="muted">Fields set here win over the script's directives, as sbatch's flags do.</p>
          </div>
        </div>

        <ErrorBox error={other} testId="submit-error" />
        <button type="submit" className="primary" disabled={busy} data-testid="submit-button">{busy ? 'Submitting…' : 'Submit'}</button>
      </form>
    </section>
  );
}
