import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { formatDuration } from '../../lib/format';
import { ErrorBox, Field, Loading } from '../common';
import { ConfirmAction } from './Confirm';
import { fieldErrors, qosFieldOf, qosForm, qosRequest, QOS_COUNTS, QOS_FLAGS, QOS_TRES, type QosForm, type QosView } from './forms';
import { rereadAfterChange } from '../../lib/reread';

const LIMIT_LABELS: Record<(typeof QOS_TRES)[number] | (typeof QOS_COUNTS)[number], string> = {
  maxTresPerUser: 'Max TRES / user', maxTresPerJob: 'Max TRES / job', maxTresPerAccount: 'Max TRES / account',
  minTresPerJob: 'Min TRES / job', grpTres: 'Group TRES', grpTresMins: 'Group TRES-minutes (budget)',
  grpTresRunMins: 'Group running TRES-minutes', maxTresMinsPerJob: 'Max TRES-minutes / job',
  maxJobsPerUser: 'Max running jobs / user', maxSubmitJobsPerUser: 'Max submitted jobs / user',
  maxJobsPerAccount: 'Max running jobs / account', graceSeconds: 'Grace time (s)', preemptExemptSeconds: 'Preempt exempt time (s)',
  grpWallSeconds: 'Group wall time (s)',
};
const FLAG_LABELS: Record<(typeof QOS_FLAGS)[number], string> = {
  gpuIdleExempt: 'GPU idle exempt', noDecay: 'No decay', overPartQos: 'Over partition QOS',
};
const API_FIELDS = ['name', 'description', 'priority', 'usageFactor', 'maxWallSeconds', 'preempt', 'preemptMode', 'rawUsage',
  ...QOS_FLAGS, ...QOS_TRES, ...QOS_COUNTS];

/**
 * sacctmgr's QOS (show, add, modify, delete): every QOS with its priority and main limits, the rest
 * in a detail row; an ADMIN creates, edits (a refused value shown at its field) and deletes (asked first).
 */
export function QosList({ admin }: { admin: boolean }) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'qos'], queryFn: api.qos });
  const [open, setOpen] = useState<{ name: string; edit: boolean } | null>(null);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const refresh = () => rereadAfterChange(queryClient, { queryKey: ['admin', 'qos'] });
  const items = (list.data?.items ?? []) as QosView[];

  return (
    <>
      {admin && (creating
        ? <div className="card"><QosEditor onDone={async () => { setCreating(false); await refresh(); }} onCancel={() => setCreating(false)} /></div>
        : <div className="actions"><button type="button" className="primary" data-testid="qos-new" onClick={() => setCreating(true)}>New QOS</button></div>)}
      <ErrorBox error={list.error} />
      <ErrorBox error={error} testId="qos-error" />
      {list.isLoading && <Loading what="QOS" />}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="QOS">
        <table className="table compact" data-testid="qos">
          <thead><tr><th scope="col">QOS</th><th scope="col">Priority</th><th scope="col">Max wall</th>
            <th scope="col" className="wide">Max jobs / user</th><th scope="col" className="wide">Max TRES / job</th>
            <th scope="col" className="wide">Group TRES</th><th scope="col" className="wide">Usage factor</th>
            <th scope="col" className="wide">Preempts</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {items.flatMap((q) => {
              const name = q.name ?? '';
              const shown = open?.name === name;
              const row = (
                <tr key={name} data-testid="qos-row" data-name={name}>
                  <th scope="row">{name}</th><td data-testid="qos-priority">{q.priority ?? 0}</td><td>{formatDuration(q.maxWallSeconds)}</td>
                  <td className="wide" data-testid="qos-max-jobs">{q.maxJobsPerUser ?? '—'}</td><td className="wide">{q.maxTresPerJob || '—'}</td>
                  <td className="wide">{q.grpTres || '—'}</td><td className="wide">{q.usageFactor ?? 1}</td>
                  <td className="wide">{q.preempt?.join(', ') || '—'}</td>
                  <td><div className="actions">
                    <button type="button" aria-expanded={shown && !open?.edit} data-testid={`qos-details-${name}`} aria-label={`Details of QOS ${name}`}
                      onClick={() => setOpen(shown && !open?.edit ? null : { name, edit: false })}>Details</button>
                    {admin && <button type="button" aria-expanded={shown && open?.edit} data-testid={`qos-edit-${name}`} aria-label={`Edit QOS ${name}`}
                      onClick={() => setOpen(shown && open?.edit ? null : { name, edit: true })}>Edit</button>}
                    {admin && <ConfirmAction label="Delete" ariaLabel={`Delete QOS ${name}`} testId={`qos-delete-${name}`} title={`Delete QOS ${name}?`}
                      message="Jobs can no longer ask for it. A QOS that an association, another QOS or a pending or running job uses cannot be deleted."
                      confirmLabel={`Delete ${name}`}
                      onConfirm={async () => { setError(null); try { await api.deleteQos(name); } catch (err) { setError(err); } await refresh(); }} />}
                  </div></td>
                </tr>
              );
              if (!shown) return [row];
              return [row, (
                <tr key={`${name}-more`} className="edit-row"><td colSpan={9}>
                  {open?.edit
                    ? <QosEditor qos={q} onDone={async () => { setOpen(null); await refresh(); }} onCancel={() => setOpen(null)} />
                    : <QosDetails qos={q} />}
                </td></tr>
              )];
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function QosDetails({ qos: q }: { qos: QosView }) {
  const v = (x: unknown) => (x === null || x === undefined || x === '' ? '—' : String(x));
  const wall = (s: number | null | undefined) => (s == null ? '—' : `${s} s (${formatDuration(s)})`);
  const rows: [string, string][] = [
    ['Description', v(q.description)], ['Priority', v(q.priority ?? 0)], ['Usage factor', v(q.usageFactor ?? 1)],
    ['Max wall', formatDuration(q.maxWallSeconds)], ['Preempts', q.preempt?.join(', ') || '—'],
    ['Preempt mode', q.preemptMode ?? 'cluster default'],
    ...QOS_FLAGS.map((k) => [FLAG_LABELS[k], q[k] ? 'yes' : 'no'] as [string, string]),
    ...[...QOS_TRES, ...QOS_COUNTS].map((k) => [LIMIT_LABELS[k], v(q[k])] as [string, string]),
    ['Budget used', v(q.grpTresMinsUsed)], ['Budget left', v(q.grpTresMinsLeft)],
    ['Group wall used', wall(q.grpWallSecondsUsed)], ['Group wall left', wall(q.grpWallSecondsLeft)],
  ];
  return (
    <dl className="detail-list" data-testid={`qos-detail-${q.name}`} aria-label={`QOS ${q.name}`}>
      {rows.map(([k, val]) => <div key={k}><dt>{k}</dt><dd>{val}</dd></div>)}
    </dl>
  );
}

/** A new QOS (no `qos`) or the QOS's fields to change; only what changed is sent. */
function QosEditor({ qos, onDone, onCancel }: { qos?: QosView; onDone: () => Promise<unknown>; onCancel: () => void }) {
  const before = qos ? qosForm(qos) : undefined;
  const [form, setForm] = useState<QosForm>(() => qosForm(qos));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  const prefix = qos ? `qos-${qos.name}` : 'qos-new';
  const id = (k: string) => `${prefix}-${k}`;
  const set = (k: keyof QosForm) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const tick = (k: (typeof QOS_FLAGS)[number] | 'resetUsage') => (e: { target: { checked: boolean } }) => setForm((f) => ({ ...f, [k]: e.target.checked }));

  async function save(e: FormEvent) {
    e.preventDefault();
    setErrors({}); setOther(null);
    const { body, errors: local } = qosRequest(form, before);
    if (Object.keys(local).length) { setErrors(Object.fromEntries(Object.entries(local).map(([k, m]) => [qosFieldOf(k), m]))); return; }
    try {
      if (qos) { if (Object.keys(body).length) await api.updateQos(qos.name!, body); }
      else await api.createQos(body);
      await onDone();
    } catch (err) {
      const { byField, rest } = fieldErrors(err, API_FIELDS);
      setErrors(Object.fromEntries(Object.entries(byField).map(([k, m]) => [qosFieldOf(k), m])));
      setOther(rest);
    }
  }

  const input = (k: keyof QosForm, label: string, hint?: string) => (
    <Field key={k} label={label} htmlFor={id(k)} error={errors[k]} hint={hint}>
      <input id={id(k)} value={form[k] as string} onChange={set(k)} data-testid={`qos-field-${k}`} aria-invalid={!!errors[k]} autoComplete="off" />
    </Field>
  );
  return (
    <form className="form-grid edit-form" onSubmit={save} noValidate aria-label={qos ? `Edit QOS ${qos.name}` : 'New QOS'}
      data-testid={qos ? `qos-editor-${qos.name}` : 'qos-form'}>
      <h2>{qos ? `QOS ${qos.name}` : 'New QOS'}</h2>
      {!qos && input('name', 'Name')}
      {input('description', 'Description')}
      {input('priority', 'Priority')}
      {input('usageFactor', 'Usage factor', 'empty: 1')}
      {input('maxWall', 'Max wall', 'minutes or [d-]hh:mm:ss; empty: none')}
      {input('preempt', 'Preempts (QOS list)', 'e.g. scavenger,low')}
      <Field label="Preempt mode" htmlFor={id('preemptMode')} error={errors.preemptMode}>
        <select id={id('preemptMode')} value={form.preemptMode} onChange={set('preemptMode')} data-testid="qos-field-preemptMode">
          <option value="">cluster default</option>
          {['REQUEUE', 'CANCEL', 'SUSPEND'].map((m) => <option key={m}>{m}</option>)}
        </select>
      </Field>
      {[...QOS_TRES, ...QOS_COUNTS].map((k) => input(k, LIMIT_LABELS[k], QOS_TRES.includes(k as never) ? 'e.g. cpu=64,gres/gpu=8; empty: none' : 'empty: none'))}
      <fieldset className="checks">
        <legend>Flags</legend>
        {QOS_FLAGS.map((k) => (
          <label key={k}><input type="checkbox" checked={form[k]} onChange={tick(k)} data-testid={`qos-field-${k}`} aria-invalid={!!errors[k]} /> {FLAG_LABELS[k]}</label>
        ))}
        {qos && <label><input type="checkbox" checked={form.resetUsage} onChange={tick('resetUsage')} data-testid="qos-field-resetUsage" /> Reset budget usage</label>}
        {[...QOS_FLAGS, 'rawUsage' as const].filter((k) => errors[k]).map((k) => (
          <small key={k} className="field-error" data-testid={`error-${id(k)}`} role="alert">{k === 'rawUsage' ? 'Reset budget usage' : FLAG_LABELS[k]}: {errors[k]}</small>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" data-testid="qos-save">{qos ? 'Save' : 'Create'}</button>
        <button type="button" onClick={onCancel} data-testid="qos-cancel">Cancel</button>
      </div>
      <ErrorBox error={other} testId="qos-form-error" />
    </form>
  );
}
