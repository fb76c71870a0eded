import { useMemo, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Reservation } from '../../api/types';
import { formatTime } from '../../lib/format';
import { reservationTimeline, tickLabel } from '../../lib/timeline';
import { ErrorBox, Field, Loading, StateBadge } from '../common';
import { useNow } from '../Jobs';
import { ConfirmAction } from './Confirm';
import { fieldErrors, RESERVATION_FLAGS, reservationForm, reservationRequest, type ReservationForm } from './forms';
import { rereadAfterChange } from '../../lib/reread';

const FIELDS = ['name', 'startTime', 'endTime', 'durationSeconds', 'nodes', 'nodeCount', 'partition', 'users', 'accounts', 'flags'];
/** The form field each of the API's reservation fields is typed in. */
const formField = (apiField: string) => ({ startTime: 'start', endTime: 'duration', durationSeconds: 'duration' } as Record<string, string>)[apiField] ?? apiField;
const FLAG_WORDS: Record<string, string> = { MAINT: 'maintenance', IGNORE_JOBS: 'ignore running jobs' };
const EMPTY: ReservationForm = { name: '', start: '', duration: '60', nodes: '', nodeCount: '', partition: '', users: '', accounts: '', flags: [] };

/** scontrol's reservations: a timeline, the list with flags, and for an ADMIN create, edit and delete (asked first). */
export function Reservations({ admin }: { admin: boolean }) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'reservations'], queryFn: api.reservations });
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const refresh = () => rereadAfterChange(queryClient, { queryKey: ['admin', 'reservations'] });

  return (
    <>
      {admin && <ReservationEditor onDone={refresh} />}
      <ErrorBox error={list.error} />
      {list.isLoading && <Loading what="reservations" />}
      {list.data && <ReservationTimeline reservations={list.data} />}
      <ErrorBox error={error} testId="reservation-list-error" />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Reservations">
        <table className="table compact" data-testid="reservations">
          <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Nodes</th><th scope="col">Flags</th>
            <th scope="col" className="wide">Start</th><th scope="col" className="wide">End</th>
            <th scope="col" className="wide">Users / accounts</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(list.data ?? []).flatMap((r) => {
              const open = editing === r.name;
              const row = (
                <tr key={r.name} data-testid="reservation-row" data-name={r.name}>
                  <th scope="row">{r.name}</th>
                  <td>{r.state ? <StateBadge state={r.state} /> : '—'}</td>
                  <td className="ellipsis">{r.nodes ?? r.nodeCount ?? '—'}{r.partition ? <span className="muted"> ({r.partition})</span> : null}</td>
                  <td data-testid="reservation-flags">{r.flags?.length ? r.flags.map((f) => <span key={f} className="flag" title={FLAG_WORDS[f]}>{f}</span>) : '—'}</td>
                  <td className="wide">{formatTime(r.startTime)}</td>
                  <td className="wide" data-testid="reservation-end">{formatTime(r.endTime)}</td>
                  <td className="wide">{[...(r.users ?? []), ...(r.accounts ?? []).map((a) => `account ${a}`)].join(', ') || '—'}</td>
                  <td>{admin && <div className="actions">
                    <button type="button" aria-expanded={open} data-testid={`reservation-edit-${r.name}`} aria-label={`Edit reservation ${r.name}`}
                      onClick={() => setEditing(open ? null : r.name)}>{open ? 'Close' : 'Edit'}</button>
                    <ConfirmAction label="Delete" ariaLabel={`Delete reservation ${r.name}`} testId={`reservation-delete-${r.name}`}
                      title={`Delete reservation ${r.name}?`} confirmLabel={`Delete ${r.name}`}
                      message={`Its nodes are free for every job again${r.flags?.includes('MAINT') ? ', and the maintenance window is gone' : ''}. Jobs that asked for it can no longer start.`}
                      onConfirm={async () => { setError(null); try { await api.deleteReservation(r.name); } catch (err) { setError(err); } await refresh(); }} />
                  </div>}</td>
                </tr>
              );
              if (!open) return [row];
              return [row, (
                <tr key={`${r.name}-edit`} className="edit-row"><td colSpan={8}>
                  <ReservationEditor reservation={r} onDone={async () => { setEditing(null); await refresh(); }} />
                </td></tr>
              )];
            })}
            {list.data?.length === 0 && <tr><td colSpan={8} className="muted">No reservations.</td></tr>}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A new reservation (no `reservation`), or what to change of one: only what changed is sent. */
function ReservationEditor({ reservation, onDone }: { reservation?: Reservation; onDone: () => Promise<unknown> }) {
  const partitions = useQuery({ queryKey: ['admin', 'partitions'], queryFn: api.partitions });
  const before = useMemo(() => (reservation ? reservationForm(reservation) : undefined), [reservation]);
  const [form, setForm] = useState<ReservationForm>(() => before ?? EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  const set = (k: keyof ReservationForm) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const prefix = reservation ? `resv-${reservation.name}` : 'resv-new';
  const id = (k: string) => `${prefix}-${k}`;
  // The create form keeps its first test ids (reservation-name, ...); an edit form's are edit-resv-*.
  const tid = (k: string) => (reservation ? `edit-resv-${k}` : `reservation-${k}`);

  async function save(e: FormEvent) {
    e.preventDefault();
    setErrors({}); setOther(null);
    const { body, errors: local } = reservationRequest(form, before);
    if (Object.keys(local).length) { setErrors(Object.fromEntries(Object.entries(local).map(([k, m]) => [formField(k), m]))); return; }
    try {
      if (reservation) { if (Object.keys(body).length) await api.updateReservation(reservation.name, body); }
      else { await api.createReservation(body); setForm((f) => ({ ...f, name: '' })); }
      await onDone();
    } catch (err) {
      const { byField, rest } = fieldErrors(err, FIELDS);
      const mine: Record<string, string> = {};
      for (const [k, m] of Object.entries(byField)) mine[formField(k)] = mine[formField(k)] ? `${mine[formField(k)]}; ${m}` : m;
      setErrors(mine);
      setOther(rest);
    }
  }

  const input = (k: keyof ReservationForm, label: string, extra: Record<string, string> = {}, hint?: string) => (
    <Field label={label} htmlFor={id(k)} error={errors[k]} hint={hint}>
      <input id={id(k)} value={form[k] as string} onChange={set(k)} data-testid={tid(k)} aria-invalid={!!errors[k]} autoComplete="off" {...extra} />
    </Field>
  );
  const body = (
    <>
      <h2>{reservation ? `Change ${reservation.name}` : 'New reservation'}</h2>
      {!reservation && input('name', 'Name')}
      {input('start', reservation ? 'New start (empty: unchanged)' : 'Start (empty: now)', { type: 'datetime-local' })}
      {input('duration', 'Duration (minutes or [d-]hh:mm:ss)')}
      {input('nodes', 'Nodes (hostlist)', { placeholder: 'gpu[001-002]' })}
      {input('nodeCount', 'Or a node count', { inputMode: 'numeric' })}
      <Field label="Partition" htmlFor={id('partition')} error={errors.partition}>
        <select id={id('partition')} value={form.partition} onChange={set('partition')} data-testid={tid('partition')}>
          <option value="">(none)</option>
          {(partitions.data?.items ?? []).map((p) => <option key={p.name}>{p.name}</option>)}
        </select>
      </Field>
      {input('users', 'Users (comma list)')}
      {input('accounts', 'Accounts (comma list)')}
      <fieldset className="checks" data-testid={tid('flags')}>
        <legend>Flags</legend>
        {RESERVATION_FLAGS.map((f) => (
          <label key={f}><input type="checkbox" checked={form.flags.includes(f)} data-testid={`${tid('flag')}-${f}`}
            onChange={(e) => setForm((x) => ({ ...x, flags: e.target.checked ? [...x.flags, f] : x.flags.filter((y) => y !== f) }))} />
          {f} <span className="muted">({FLAG_WORDS[f]})</span></label>
        ))}
        {errors.flags && <small className="field-error" role="alert" data-testid={`error-${id('flags')}`}>{errors.flags}</small>}
      </fieldset>
      <div><button type="submit" className="primary" data-testid={tid(reservation ? 'save' : 'create')}>{reservation ? 'Save' : 'Create'}</button></div>
      <ErrorBox error={other} testId={reservation ? 'edit-resv-error' : 'reservation-error'} />
    </>
  );
  return reservation
    ? <form className="form-grid edit-form" onSubmit={save} noValidate aria-label={`Change reservation ${reservation.name}`} data-testid={`reservation-editor-${reservation.name}`}>{body}</form>
    : <form className="card form-grid" onSubmit={save} noValidate aria-label="New reservation" data-testid="reservation-form">{body}</form>;
}

/**
 * The reservations on a time axis: one row each, a bar from its start to its end (solid while it
 * holds its nodes), a line at now. Plain HTML and CSS, positioned in percent, so it fits a phone.
 */
function ReservationTimeline({ reservations }: { reservations: Reservation[] }) {
  const now = useNow(60_000);
  // Redrawn every minute, and with the time of the answer whenever the list changes (a reservation
  // made a moment ago starts after the last tick).
  const t = useMemo(() => reservationTimeline(reservations, Math.max(now, Date.now())), [reservations, now]);
  const span = t.to - t.from;
  return (
    <figure className="card timeline-card" data-testid="reservation-timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline <small className="muted">{formatTime(new Date(t.from).toISOString())} to {formatTime(new Date(t.to).toISOString())}</small></h2>
      <div className="rtl">
        <div className="rtl-axis" aria-hidden="true">
          {t.ticks.map((k) => <span key={k.at} className="rtl-tick" style={{ left: `${k.left}%` }}>{tickLabel(k.at, span)}</span>)}
        </div>
        <ul className="rtl-rows">
          {t.bars.map((b) => (
            <li key={b.name} className="rtl-row" data-testid="timeline-row" data-name={b.name}>
              <span className="rtl-label"><strong>{b.name}</strong> <span className="muted">{b.nodes}</span></span>
              <span className="rtl-track">
                <span className={`rtl-bar${b.active ? ' active' : ''}${b.cutStart ? ' cut-start' : ''}${b.cutEnd ? ' cut-end' : ''}`}
                  data-testid="timeline-bar" data-name={b.name} data-active={String(b.active)} role="img"
                  style={{ left: `${b.left}%`, width: `${b.width}%` }}
                  aria-label={`${b.name}: ${formatTime(new Date(b.start).toISOString())} to ${formatTime(new Date(b.end).toISOString())}${b.active ? ', holding its nodes now' : ''}`}
                  title={`${formatTime(new Date(b.start).toISOString())} – ${formatTime(new Date(b.end).toISOString())}`} />
              </span>
            </li>
          ))}
        </ul>
        <span className="rtl-now" data-testid="timeline-now" style={{ left: `${t.nowLeft}%` }} aria-hidden="true" />
      </div>
      <figcaption className="muted small">{t.bars.length === 0 ? 'No reservation in this window. ' : ''}The red line is now; a solid bar holds its nodes now, a light one is still to come; a dashed end goes on past the window.</figcaption>
      {t.later.length > 0 && <p className="muted" data-testid="timeline-later">Later: {t.later.map((r) => `${r.name} (${formatTime(r.startTime)})`).join(', ')}</p>}
    </figure>
  );
}
