import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import type { JobTrial } from '../api/types';
import { useAuth } from '../lib/auth';
import { relative } from '../lib/format';
import { navigate } from '../lib/router';
import { readDirectives, sbatchCommand } from '../lib/sbatch';
import {
  choicesOf, EMPTY_FORM, mergeMistakes, NO_MISTAKES, placeServerErrors, toSubmission, trialSummary,
  type Form, type Mistake, type Placed,
} from '../lib/submitForm';
import { ErrorBox, Field } from './common';

export function Submit() {
  const queryClient = useQueryClient();
  const { me } = useAuth();
  const partitions = useQuery({ queryKey: ['partitions'], queryFn: api.partitions, refetchInterval: 60000 });
  const associations = useQuery({ queryKey: ['associations', 'of', me?.username], queryFn: () => api.associationsOf(me!.username),
    enabled: !!me });
  const allQos = useQuery({ queryKey: ['qos'], queryFn: api.qos, staleTime: 60000 });
  const [form, setForm] = useState<Form>(EMPTY_FORM);
  const [placed, setPlaced] = useState<Placed>(NO_MISTAKES);
  const [other, setOther] = useState<unknown>(null);
  const [busy, setBusy] = useState<'submit' | 'test' | null>(null);
  const [trial, setTrial] = useState<JobTrial | null>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const advanced = useRef<HTMLDetailsElement>(null);

  const directives = useMemo(() => readDirectives(form.script), [form.script]);
  const command = sbatchCommand({
    name: form.name, partition: form.partition, account: form.account, qos: form.qos, nodes: form.nodes, tasks: form.tasks,
    cpusPerTask: form.cpusPerTask, memoryMb: form.memoryMb, gpus: form.gpus, gpusPerNode: form.gpusPerNode, time: form.time,
    constraints: form.constraints, dependency: form.dependency, array: form.array, hold: form.hold, exclusive: form.exclusive,
  });
  // The pickers list the caller's own associations (an admin too: a job is charged to its submitter's).
  const choices = associations.data && me
    ? choicesOf(associations.data.items, me.username, form.account, me.defaultAccount, (allQos.data?.items ?? []).map((q) => q.name))
    : null;

  // A QOS picked for another account, which this one does not allow, is dropped rather than sent unseen.
  const allowedQos = choices && allQos.data ? choices.qos.join(',') : null;
  useEffect(() => {
    if (allowedQos !== null) setForm((f) => (f.qos && !allowedQos.split(',').includes(f.qos) ? { ...f, qos: '' } : f));
  }, [allowedQos]);

  // An estimate is of the form as it was: a change takes it away.
  const set = (k: keyof Form) => (e: { target: { value: string; checked?: boolean; type?: string } }) => {
    setTrial(null);
    setForm((f) => ({ ...f, [k]: e.target.type === 'checkbox' ? !!e.target.checked : e.target.value }));
  };

  /**
   * One round: the form's own mistakes and every one the server finds, shown together. With a
   * mistake of the form's own, the body goes to /jobs/test, which checks it as submit does and stores
   * nothing, so the server's mistakes still show in this round and nothing is submitted.
   */
  async function run(kind: 'submit' | 'test') {
    const { body, mistakes: local } = toSubmission(form);
    setPlaced(mergeMistakes(local));
    setOther(null);
    setTrial(null);
    setBusy(kind);
    let server: Mistake[] = [];
    try {
      if (kind === 'submit' && !local.length) {
        const answer = await api.submit(body);
        void queryClient.invalidateQueries({ queryKey: ['jobs'] });
        navigate(`/jobs/${answer.jobId}`, answer.warnings?.length ? { warnings: answer.warnings.join(' | ') } : {});
        return;
      }
      const estimate = await api.testJob(body);
      if (!local.length) setTrial(estimate);
    } catch (err) {
      if (err instanceof ApiError && err.problem.errors?.length) server = placeServerErrors(err.problem.errors, form);
      else setOther(err);
    } finally {
      setBusy(null);
    }
    setPlaced(mergeMistakes(local, server));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    void run('submit');
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
  const errors: Partial<Record<keyof Form, string>> = Object.fromEntries(
    Object.entries(placed.fields).map(([k, list]) => [k, list.join(' ')]));
  const errorLines = new Map(placed.lines.map((l) => [l.line, l.messages.join('; ')]));
  const scriptInvalid = placed.lines.length > 0 || !!errors.script;
  const input = (k: keyof Form, props: Record<string, unknown> = {}) => (
    <input id={k} name={k} value={form[k] as string} onChange={set(k)} data-testid={`submit-${k}`} aria-invalid={!!errors[k]} {...props} />
  );
  const advancedWrong = ADVANCED.some((k) => errors[k]);
  // A mistake inside Advanced opens it, so no mistake of the round is hidden.
  useEffect(() => { if (advancedWrong && advanced.current) advanced.current.open = true; }, [advancedWrong, placed]);
  const summary = trial && trialSummary(trial, { relativeTime: relative });

  return (
    <section aria-labelledby="submit-title" data-testid="view-submit">
      <h1 id="submit-title">Submit a job</h1>
      <form onSubmit={submit} className="submit" noValidate data-testid="submit-form">
        <div className="form-grid">
          <Field label="Name" htmlFor="name" error={errors.name}>{input('name', { placeholder: 'from the script' })}</Field>
          <Field label="Partition" htmlFor="partition" error={errors.partition}>
            <select id="partition" value={form.partition} onChange={set('partition')} data-testid="submit-partition" aria-invalid={!!errors.partition}>
              <option value="">default</option>
              {(partitions.data?.items ?? []).map((p) => <option key={p.name} value={p.name}>{p.name}{p.isDefault ? ' (default)' : ''}</option>)}
            </select>
          </Field>
          <Field label="Account" htmlFor="account" error={errors.account}>
            {choices ? (
              <select id="account" value={form.account} onChange={set('account')} data-testid="submit-account" aria-invalid={!!errors.account}>
                <option value="">{choices.defaultAccount ? `default (${choices.defaultAccount})` : 'default'}</option>
                {choices.accounts.map((a) => <option key={a} value={a}>{a}{a === choices.defaultAccount ? ' (default)' : ''}</option>)}
              </select>
            ) : input('account', { placeholder: 'your default' })}
          </Field>
          <Field label="QOS" htmlFor="qos" error={errors.qos}>
            {choices ? (
              <select id="qos" value={form.qos} onChange={set('qos')} data-testid="submit-qos" aria-invalid={!!errors.qos}>
                <option value="">{choices.defaultQos ? `default (${choices.defaultQos})` : 'default'}</option>
                {choices.qos.map((q) => <option key={q} value={q}>{q}{q === choices.defaultQos ? ' (default)' : ''}</option>)}
              </select>
            ) : input('qos', { placeholder: 'normal' })}
          </Field>
          <Field label="Nodes" htmlFor="nodes" error={errors.nodes}>{input('nodes', { inputMode: 'numeric' })}</Field>
          <Field label="Tasks" htmlFor="tasks" error={errors.tasks}>{input('tasks', { inputMode: 'numeric' })}</Field>
          <Field label="CPUs per task" htmlFor="cpusPerTask" error={errors.cpusPerTask}>{input('cpusPerTask', { inputMode: 'numeric' })}</Field>
          <Field label="Memory (MB)" htmlFor="memoryMb" error={errors.memoryMb}>{input('memoryMb', { inputMode: 'numeric' })}</Field>
          <Field label="GPUs" htmlFor="gpus" error={errors.gpus}>{input('gpus', { inputMode: 'numeric' })}</Field>
          <Field label="GPU type" htmlFor="gpuType" error={errors.gpuType}>{input('gpuType', { placeholder: 'any' })}</Field>
          <Field label="Time limit" htmlFor="time" error={errors.time} hint="e.g. 30, 2:00:00, 1-00:00:00">{input('time', { placeholder: 'partition default' })}</Field>
          <Field label="Constraints" htmlFor="constraints" error={errors.constraints}>{input('constraints')}</Field>
        </div>
        <details data-testid="submit-advanced" ref={advanced}>
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

        <div className={`field${scriptInvalid ? ' has-error' : ''}`}>
          <label htmlFor="script">Script</label>
          <div className="editor">
            <div className="gutter" ref={gutter} aria-hidden="true">
              {Array.from({ length: lineCount }, (_, i) => (
                <div key={i} className={errorLines.has(i + 1) ? 'bad' : ''} data-testid={errorLines.has(i + 1) ? `script-line-error-${i + 1}` : undefined}
                  title={errorLines.get(i + 1)}>{i + 1}</div>
              ))}
            </div>
            <textarea id="script" ref={textarea} value={form.script} onChange={set('script')} spellCheck={false} rows={Math.max(10, lineCount + 1)}
              data-testid="submit-script" aria-invalid={scriptInvalid} aria-describedby="script-errors"
              onScroll={(e) => { if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop; }} />
          </div>
          <div id="script-errors" role="alert">
            {(errors.script || placed.lines.length > 0) && (
              <ul className="script-errors">
                {errors.script && <li data-testid="error-script">Script: {errors.script}</li>}
                {placed.lines.map((e) => (
                  <li key={e.line} data-testid="script-error" data-line={e.line}>
                    <button type="button" className="link" onClick={() => goToLine(e.line)}>Line {e.line}</button>: {e.messages.join('; ')}
                  </li>
                ))}
              </ul>
            )}
          </div>
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

        {placed.other.length > 0 && (
          <div className="error" role="alert" data-testid="submit-error">
            {placed.other.length === 1 ? placed.other[0] : <ul>{placed.other.map((o) => <li key={o}>{o}</li>)}</ul>}
          </div>
        )}
        <ErrorBox error={other} testId="submit-error" />
        {summary && (
          <div className="callout" role="status" data-testid="submit-trial">
            <h2 className="callout-title">When it would start</h2>
            {summary.when && <p data-testid="submit-trial-start" data-at={summary.at}>{summary.when}</p>}
            {summary.where && <p data-testid="submit-trial-nodes">{summary.where}</p>}
            {summary.why && <p data-testid="submit-trial-reason">{summary.why}</p>}
            {trial?.warnings?.map((w) => <p key={w} className="muted">{w}</p>)}
            <p className="muted">Nothing was submitted.</p>
          </div>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy !== null} data-testid="submit-button">{busy === 'submit' ? 'Submitting…' : 'Submit'}</button>
          {' '}
          <button type="button" disabled={busy !== null} data-testid="submit-test" onClick={() => void run('test')}>
            {busy === 'test' ? 'Estimating…' : 'When would it start?'}</button>
        </div>
      </form>
    </section>
  );
}

/** The fields inside Advanced. */
const ADVANCED: (keyof Form)[] = ['gpusPerNode', 'dependency', 'array', 'simulatedRunSeconds', 'simulatedExitCode'];
