import { useMemo, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import type { Account, Association, Reservation } from '../api/types';
import { formatDuration, formatTime, parseSlurmTime } from '../lib/format';
import { useAuth } from '../lib/auth';
import { AccountTree, type Scope } from '../lib/coordination';
import { href } from '../lib/router';
import { reservationTimeline, tickLabel } from '../lib/timeline';
import { ConfirmButton, ErrorBox, Field, Loading, StateBadge } from './common';
import { useNow } from './Jobs';

export const ADMIN_VIEWS = [
  { key: 'reservations', label: 'Reservations' },
  { key: 'partitions', label: 'Partitions' },
  { key: 'qos', label: 'QOS' },
  { key: 'users', label: 'Users' },
  { key: 'accounts', label: 'Accounts' },
] as const;
type AdminView = (typeof ADMIN_VIEWS)[number]['key'];

/**
 * The administration views (#/admin/reservations, ...): what scontrol and sacctmgr manage. A user who
 * is no OPERATOR but coordinates accounts sees only the accounts view, limited to their sub-trees.
 */
export function Admin({ view }: { view?: string }) {
  const { me, operator } = useAuth();
  const scope: Scope = { admin: !!me?.roles.includes('ADMIN'), me: me?.username ?? '', coordinatorOf: me?.coordinatorOf ?? [], seesAll: operator };
  const views = operator ? ADMIN_VIEWS : ADMIN_VIEWS.filter((v) => v.key === 'accounts');
  const fallback = operator ? 'reservations' : 'accounts';
  const current: AdminView = views.some((v) => v.key === view) ? (view as AdminView) : fallback;
  if (!me) return <Loading what="your roles" />;
  return (
    <section aria-labelledby="admin-title" data-testid="view-admin" data-admin-view={current}>
      <h1 id="admin-title">Administration</h1>
      <nav className="tabs" aria-label="Administration">
        {views.map((v) => (
          <a key={v.key} href={href(`/admin/${v.key}`)} aria-current={v.key === current ? 'page' : undefined} data-testid={`admin-tab-${v.key}`}>{v.label}</a>
        ))}
      </nav>
      {current === 'reservations' && <Reservations />}
      {current === 'partitions' && <Partitions />}
      {current === 'qos' && <QosList />}
      {current === 'users' && <Users />}
      {current === 'accounts' && <Accounts scope={scope} />}
    </section>
  );
}

function Reservations() {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'reservations'], queryFn: api.reservations });
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState({ name: '', start: '', duration: '60', nodes: '', users: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'reservations'] });

  async function create(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      await api.createReservation({
        name: form.name || undefined,
        startTime: form.start ? new Date(form.start).toISOString() : new Date().toISOString(),
        durationSeconds: parseSlurmTime(form.duration) ?? undefined,
        nodes: form.nodes || undefined,
        users: form.users ? form.users.split(',').map((u) => u.trim()).filter(Boolean) : undefined,
      });
      setForm((f) => ({ ...f, name: '' }));
      void refresh();
    } catch (err) { setError(err); }
  }

  return (
    <>
      <form className="card form-grid" onSubmit={create} aria-label="New reservation" data-testid="reservation-form">
        <h2>New reservation</h2>
        <label>Name<input value={form.name} onChange={set('name')} data-testid="reservation-name" /></label>
        <label>Start (empty: now)<input type="datetime-local" value={form.start} onChange={set('start')} data-testid="reservation-start" /></label>
        <label>Duration (minutes or [d-]hh:mm:ss)<input value={form.duration} onChange={set('duration')} data-testid="reservation-duration" /></label>
        <label>Nodes (hostlist)<input value={form.nodes} onChange={set('nodes')} placeholder="gpu[001-002]" data-testid="reservation-nodes" /></label>
        <label>Users (comma list)<input value={form.users} onChange={set('users')} data-testid="reservation-users" /></label>
        <div><button type="submit" className="primary" data-testid="reservation-create">Create</button></div>
        <ErrorBox error={error} testId="reservation-error" />
      </form>
      <ErrorBox error={list.error} />
      {list.isLoading && <Loading what="reservations" />}
      {list.data && <ReservationTimeline reservations={list.data} />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="reservations">
          <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Nodes</th><th scope="col" className="wide">Start</th>
            <th scope="col" className="wide">End</th><th scope="col" className="wide">Users / accounts</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(list.data ?? []).map((r) => (
              <tr key={r.name} data-testid="reservation-row" data-name={r.name}>
                <th scope="row">{r.name}</th>
                <td>{r.state ? <StateBadge state={r.state} /> : '—'}</td>
                <td className="ellipsis">{r.nodes ?? r.nodeCount ?? '—'}</td>
                <td className="wide">{formatTime(r.startTime)}</td>
                <td className="wide">{formatTime(r.endTime)}</td>
                <td className="wide">{[...(r.users ?? []), ...(r.accounts ?? []).map((a) => `account ${a}`)].join(', ') || '—'}</td>
                <td><ConfirmButton label="Delete" danger testId={`reservation-delete-${r.name}`}
                  onConfirm={async () => { try { await api.deleteReservation(r.name); } catch (err) { setError(err); } void refresh(); }} /></td>
              </tr>
            ))}
            {list.data?.length === 0 && <tr><td colSpan={7} className="muted">No reservations.</td></tr>}
          </tbody>
        </table>
      </div>
    </>
  );
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

function Partitions() {
  const list = useQuery({ queryKey: ['admin', 'partitions'], queryFn: api.partitions });
  return (
    <>
      <ErrorBox error={list.error} />
      {list.isLoading && <Loading what="partitions" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="partitions">
          <thead><tr><th scope="col">Partition</th><th scope="col">State</th><th scope="col">Nodes</th><th scope="col">GPUs</th>
            <th scope="col" className="wide">CPUs</th><th scope="col" className="wide">Max time</th><th scope="col" className="wide">Node list</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((p) => (
              <tr key={p.name} data-testid="partition-row" data-name={p.name}>
                <th scope="row">{p.name}{p.isDefault ? ' (default)' : ''}</th>
                <td>{p.state ? <StateBadge state={p.state} /> : '—'}</td>
                <td>{p.totalNodes}</td><td>{p.totalGpus}</td>
                <td className="wide">{p.totalCpus ?? '—'}</td>
                <td className="wide">{formatDuration(p.maxTimeSeconds)}</td>
                <td className="wide">{p.nodes}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function QosList() {
  const list = useQuery({ queryKey: ['admin', 'qos'], queryFn: api.qos });
  return (
    <>
      <ErrorBox error={list.error} />
      {list.isLoading && <Loading what="QOS" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="qos">
          <thead><tr><th scope="col">QOS</th><th scope="col">Priority</th><th scope="col">Max wall</th>
            <th scope="col" className="wide">Max jobs / user</th><th scope="col" className="wide">Max TRES / job</th><th scope="col" className="wide">Usage factor</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((q) => (
              <tr key={q.name} data-testid="qos-row" data-name={q.name}>
                <th scope="row">{q.name}</th><td>{q.priority ?? 0}</td><td>{formatDuration(q.maxWallSeconds)}</td>
                <td className="wide">{q.maxJobsPerUser ?? '—'}</td><td className="wide">{q.maxTresPerJob || '—'}</td><td className="wide">{q.usageFactor ?? 1}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

const ROLES = ['USER', 'OPERATOR', 'ADMIN'];

/**
 * A user's role, changed only once confirmed: choosing another role asks first (and says so when the
 * admin is about to take their own rights away).
 */
function RoleChange({ user, role, self, onConfirm }: { user: string; role: string; self: boolean; onConfirm: (role: string) => Promise<unknown> }) {
  const [asked, setAsked] = useState<string | null>(null);
  if (asked) {
    return (
      <span className="confirm" role="group" aria-label={`Change the role of ${user}`}>
        <span>{self ? `Make yourself ${asked}? You lose what ${role} may do.` : `Make ${user} ${asked}?`}</span>{' '}
        <button type="button" className={self ? 'danger' : 'primary'} data-testid={`user-role-${user}-confirm`} autoFocus
          onClick={async () => { const chosen = asked; setAsked(null); await onConfirm(chosen); }}>Yes, change</button>
        <button type="button" data-testid={`user-role-${user}-abort`} onClick={() => setAsked(null)}>Keep {role}</button>
      </span>
    );
  }
  return (
    <select aria-label={`Role of ${user}`} value={role} data-testid={`user-role-${user}`}
      onChange={(e) => { if (e.target.value !== role) setAsked(e.target.value); }}>
      {ROLES.map((r) => <option key={r}>{r}</option>)}
    </select>
  );
}

function Users() {
  const { me } = useAuth();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'users'], queryFn: api.users });
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState({ username: '', password: '', role: 'USER', defaultAccount: 'root' });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'users'] });
  const act = async (f: () => Promise<unknown>) => { setError(null); try { await f(); } catch (err) { setError(err); } void refresh(); };

  return (
    <>
      <form className="card form-grid" aria-label="New user" data-testid="user-form"
        onSubmit={(e) => { e.preventDefault(); void act(() => api.createUser({ ...form, roles: [form.role] }).then(() => setForm((f) => ({ ...f, username: '', password: '' })))); }}>
        <h2>New user</h2>
        <label>Username<input value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} data-testid="user-username" autoComplete="off" /></label>
        <label>Password<input type="password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} data-testid="user-password" autoComplete="new-password" /></label>
        <label>Role<select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })} data-testid="user-role">
          {ROLES.map((r) => <option key={r}>{r}</option>)}</select></label>
        <label>Default account<input value={form.defaultAccount} onChange={(e) => setForm({ ...form, defaultAccount: e.target.value })} data-testid="user-account" /></label>
        <div><button type="submit" className="primary" data-testid="user-create">Create</button></div>
      </form>
      <ErrorBox error={error} testId="user-error" />
      <ErrorBox error={list.error} />
      {list.isLoading && <Loading what="users" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="users">
          <thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col" className="wide">Default account</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((u) => (
              <tr key={u.username} data-testid="user-row" data-name={u.username} data-enabled={String(u.enabled !== false)}>
                <th scope="row" className="ellipsis">{u.username}</th>
                <td><RoleChange user={u.username} role={ROLES.find((r) => u.roles.includes(r)) ?? 'USER'} self={u.username === me?.username}
                  onConfirm={(role) => act(() => api.updateUser(u.username, { roles: [role] }))} /></td>
                <td>{u.enabled === false
                  ? <button type="button" data-testid={`user-enable-${u.username}`} onClick={() => void act(() => api.updateUser(u.username, { enabled: true }))}>Enable</button>
                  : <ConfirmButton label="Disable" confirmLabel={`Yes, disable ${u.username}`} danger testId={`user-enable-${u.username}`}
                    disabled={u.username === me?.username} onConfirm={() => act(() => api.updateUser(u.username, { enabled: false }))} />}</td>
                <td className="wide">{u.defaultAccount ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Server errors of a failed write, by form field (the API's `errors[].field`); the rest in words. */
function fieldErrors(error: unknown, fields: string[]): { byField: Record<string, string>; rest: unknown } {
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
function whole(text: string, clear: boolean): number | undefined | 'bad' {
  const t = text.trim();
  if (!t) return clear ? -1 : undefined;
  return /^-?\d+$/.test(t) ? Number(t) : 'bad';
}

/**
 * Accounts as a tree (sacctmgr show assoc tree): each account, its users' associations beneath it,
 * with shares and limits; who may change what is the API's rule (lib/coordination): an ADMIN all of
 * it, a coordinator their account's sub-tree. Edits go to PATCH /accounts and /associations, and a
 * refused value is shown at its field.
 */
function Accounts({ scope }: { scope: Scope }) {
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: ['admin', 'accounts'], queryFn: api.accounts });
  const associations = useQuery({ queryKey: ['admin', 'associations'], queryFn: api.associations });
  const [editing, setEditing] = useState<string | null>(null);
  const all = accounts.data?.items ?? [];
  const tree = useMemo(() => new AccountTree(all), [all]);
  const visible = new Set(tree.visible(scope));
  const rows = accountTree(all.filter((a) => visible.has(a.name)), (associations.data?.items ?? []).filter((a) => visible.has(a.account)));
  const refresh = () => Promise.all([
    queryClient.invalidateQueries({ queryKey: ['admin', 'accounts'] }),
    queryClient.invalidateQueries({ queryKey: ['admin', 'associations'] }),
  ]);
  const manageable = [...visible].filter((a) => tree.mayManageIn(scope, a)).sort();
  return (
    <>
      {!scope.admin && scope.coordinatorOf.length > 0 && (
        <p className="callout" data-testid="coordinator-scope">You coordinate {scope.coordinatorOf.join(', ')}: you manage the accounts below
          {scope.coordinatorOf.length === 1 ? ' it' : ' them'} and the users in {scope.coordinatorOf.length === 1 ? 'it' : 'them'} (not your own
          association; the shares and limits of {scope.coordinatorOf.length === 1 ? 'your account itself are' : 'the accounts themselves are'} an ADMIN's).</p>
      )}
      {manageable.length > 0 && <NewAccountAndUser parents={manageable} onDone={refresh} />}
      <ErrorBox error={accounts.error ?? associations.error} />
      {(accounts.isLoading || associations.isLoading) && <Loading what="accounts" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="accounts">
          <thead><tr><th scope="col">Account / user</th><th scope="col">Shares</th><th scope="col" className="wide">Max jobs</th>
            <th scope="col" className="wide">Group TRES</th><th scope="col" className="wide">QOS</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {rows.flatMap((r) => {
              const mayEdit = r.user ? tree.mayChangeAssociation(scope, r.account, r.user) : tree.mayChangeAccount(scope, r.account);
              const open = editing === r.key;
              const row = (
                <tr key={r.key} data-testid={r.user ? 'assoc-row' : 'account-row'} data-name={r.user ?? r.account} data-account={r.account}>
                  <th scope="row" style={{ paddingLeft: `${0.4 + r.depth * 1.1}rem` }}>{r.user ?? <strong>{r.account}</strong>}</th>
                  <td data-testid="row-shares">{r.shares ?? '—'}</td><td className="wide" data-testid="row-max-jobs">{r.maxJobs ?? '—'}</td>
                  <td className="wide" data-testid="row-grp-tres">{r.grpTres || '—'}</td><td className="wide">{r.qos?.join(', ') || '—'}</td>
                  <td>{mayEdit && (
                    <button type="button" aria-expanded={open} data-testid={`edit-${r.key}`} onClick={() => setEditing(open ? null : r.key)}
                      aria-label={`Edit ${r.user ? `${r.user} in ${r.account}` : `account ${r.account}`}`}>{open ? 'Close' : 'Edit'}</button>
                  )}</td>
                </tr>
              );
              if (!open) return [row];
              const account = all.find((a) => a.name === r.account);
              const association = (associations.data?.items ?? []).find((a) => a.account === r.account && (a.user ?? null) === (r.user ?? null));
              return [row, (
                <tr key={`${r.key}-edit`} className="edit-row"><td colSpan={6}>
                  {r.user
                    ? <AssociationEditor association={association} onDone={() => { setEditing(null); void refresh(); }} />
                    : <AccountEditor account={account} association={association} parents={[...visible].filter((a) => !tree.within(a, r.account) && tree.mayManageIn(scope, a)).sort()}
                      onDone={() => { setEditing(null); void refresh(); }} />}
                </td></tr>
              )];
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** An account's shares, parent and description, and its own association's limits. */
function AccountEditor({ account, association, parents, onDone }: {
  account?: Account; association?: Association; parents: string[]; onDone: () => void;
}) {
  const [form, setForm] = useState({
    parent: account?.parent ?? '', shares: String(account?.shares ?? ''), description: account?.description ?? '',
    maxJobs: association?.maxJobs != null ? String(association.maxJobs) : '', grpTres: association?.grpTres ?? '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  if (!account) return null;
  const name = account.name;
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function save(e: FormEvent) {
    e.preventDefault();
    setErrors({}); setOther(null);
    const shares = whole(form.shares, false);
    const maxJobs = whole(form.maxJobs, true);
    const local: Record<string, string> = {};
    if (shares === 'bad') local.shares = 'Enter a whole number.';
    if (maxJobs === 'bad') local.maxJobs = 'Enter a whole number (empty: no limit).';
    if (Object.keys(local).length) { setErrors(local); return; }
    const change: { parent?: string; shares?: number; description?: string } = {};
    if (form.parent && form.parent !== (account!.parent ?? '')) change.parent = form.parent;
    if (shares !== undefined && shares !== account!.shares) change.shares = shares as number;
    if (form.description !== (account!.description ?? '')) change.description = form.description;
    const found: Record<string, string> = {};
    try {
      if (Object.keys(change).length) await api.updateAccount(name, change);
    } catch (err) {
      const { byField, rest } = fieldErrors(err, ['parent', 'shares', 'description']);
      Object.assign(found, byField);
      if (rest) { setErrors(found); setOther(rest); return; }
    }
    if (association && (maxJobs !== (association.maxJobs ?? -1) || form.grpTres.trim() !== (association.grpTres ?? ''))) {
      try {
        await api.updateAssociation(association.id, { maxJobs: maxJobs as number, grpTres: form.grpTres.trim() });
      } catch (err) {
        const { byField, rest } = fieldErrors(err, ['maxJobs', 'grpTres']);
        Object.assign(found, byField);
        if (rest) setOther(rest);
      }
    }
    if (Object.keys(found).length) { setErrors(found); return; }
    onDone();
  }

  const id = (k: string) => `acct-${name}-${k}`;
  return (
    <form className="form-grid edit-form" onSubmit={save} aria-label={`Edit account ${name}`} data-testid={`account-editor-${name}`} noValidate>
      <Field label="Parent" htmlFor={id('parent')} error={errors.parent}>
        <select id={id('parent')} value={form.parent} onChange={set('parent')} data-testid="edit-parent" disabled={!account.parent}>
          {!account.parent && <option value="">(the top)</option>}
          {[...new Set([account.parent ?? '', ...parents])].filter(Boolean).map((p) => <option key={p} value={p}>{p}</option>)}
        </select>
      </Field>
      <Field label="Shares" htmlFor={id('shares')} error={errors.shares}>
        <input id={id('shares')} value={form.shares} onChange={set('shares')} inputMode="numeric" data-testid="edit-shares" aria-invalid={!!errors.shares} />
      </Field>
      <Field label="Description" htmlFor={id('description')} error={errors.description}>
        <input id={id('description')} value={form.description} onChange={set('description')} data-testid="edit-description" />
      </Field>
      {association && <>
        <Field label="Max jobs (empty: none)" htmlFor={id('maxJobs')} error={errors.maxJobs}>
          <input id={id('maxJobs')} value={form.maxJobs} onChange={set('maxJobs')} inputMode="numeric" data-testid="edit-max-jobs" aria-invalid={!!errors.maxJobs} />
        </Field>
        <Field label="Group TRES" htmlFor={id('grpTres')} error={errors.grpTres} hint="e.g. cpu=64,gres/gpu=8">
          <input id={id('grpTres')} value={form.grpTres} onChange={set('grpTres')} data-testid="edit-grp-tres" aria-invalid={!!errors.grpTres} />
        </Field>
      </>}
      <div className="actions">
        <button type="submit" className="primary" data-testid="edit-save">Save</button>
        <ConfirmButton label="Delete account" danger testId={`delete-account-${name}`}
          onConfirm={async () => { try { await api.deleteAccount(name); onDone(); } catch (err) { setOther(err); } }} />
      </div>
      <ErrorBox error={other} testId="edit-error" />
    </form>
  );
}

/** A user's association: shares and limits. */
function AssociationEditor({ association, onDone }: { association?: Association; onDone: () => void }) {
  const [form, setForm] = useState({
    shares: String(association?.shares ?? ''), maxJobs: association?.maxJobs != null ? String(association.maxJobs) : '',
    maxSubmitJobs: association?.maxSubmitJobs != null ? String(association.maxSubmitJobs) : '', grpTres: association?.grpTres ?? '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  if (!association) return null;
  const a = association;
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function save(e: FormEvent) {
    e.preventDefault();
    setErrors({}); setOther(null);
    const values = { shares: whole(form.shares, false), maxJobs: whole(form.maxJobs, true), maxSubmitJobs: whole(form.maxSubmitJobs, true) };
    const local = Object.fromEntries(Object.entries(values).filter(([, v]) => v === 'bad').map(([k]) => [k, 'Enter a whole number.']));
    if (Object.keys(local).length) { setErrors(local); return; }
    try {
      await api.updateAssociation(a.id, {
        shares: values.shares as number | undefined, maxJobs: values.maxJobs as number, maxSubmitJobs: values.maxSubmitJobs as number,
        grpTres: form.grpTres.trim(),
      });
      onDone();
    } catch (err) {
      const { byField, rest } = fieldErrors(err, ['shares', 'maxJobs', 'maxSubmitJobs', 'grpTres']);
      setErrors(byField);
      setOther(rest);
    }
  }

  const id = (k: string) => `assoc-${a.id}-${k}`;
  return (
    <form className="form-grid edit-form" onSubmit={save} aria-label={`Edit ${a.user} in ${a.account}`} data-testid={`association-editor-${a.account}-${a.user}`} noValidate>
      <Field label="Shares" htmlFor={id('shares')} error={errors.shares}>
        <input id={id('shares')} value={form.shares} onChange={set('shares')} inputMode="numeric" data-testid="edit-shares" aria-invalid={!!errors.shares} />
      </Field>
      <Field label="Max jobs (empty: none)" htmlFor={id('maxJobs')} error={errors.maxJobs}>
        <input id={id('maxJobs')} value={form.maxJobs} onChange={set('maxJobs')} inputMode="numeric" data-testid="edit-max-jobs" aria-invalid={!!errors.maxJobs} />
      </Field>
      <Field label="Max submitted (empty: none)" htmlFor={id('maxSubmitJobs')} error={errors.maxSubmitJobs}>
        <input id={id('maxSubmitJobs')} value={form.maxSubmitJobs} onChange={set('maxSubmitJobs')} inputMode="numeric" data-testid="edit-max-submit" aria-invalid={!!errors.maxSubmitJobs} />
      </Field>
      <Field label="Group TRES" htmlFor={id('grpTres')} error={errors.grpTres} hint="e.g. cpu=64,gres/gpu=8">
        <input id={id('grpTres')} value={form.grpTres} onChange={set('grpTres')} data-testid="edit-grp-tres" aria-invalid={!!errors.grpTres} />
      </Field>
      <div className="actions">
        <button type="submit" className="primary" data-testid="edit-save">Save</button>
        <ConfirmButton label="Remove from account" danger testId={`delete-association-${a.id}`}
          onConfirm={async () => { try { await api.deleteAssociation(a.id); onDone(); } catch (err) { setOther(err); } }} />
      </div>
      <ErrorBox error={other} testId="edit-error" />
    </form>
  );
}

/** sacctmgr add account / add user: a sub-account under, or a user in, an account the caller manages. */
function NewAccountAndUser({ parents, onDone }: { parents: string[]; onDone: () => Promise<unknown> }) {
  const [account, setAccount] = useState({ name: '', parent: parents[0] ?? '', shares: '' });
  const [member, setMember] = useState({ user: '', account: parents[0] ?? '', shares: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  const run = async (what: () => Promise<unknown>, fields: Record<string, string>) => {
    setErrors({}); setOther(null);
    try { await what(); await onDone(); return true; } catch (err) {
      const { byField, rest } = fieldErrors(err, Object.keys(fields));
      setErrors(Object.fromEntries(Object.entries(byField).map(([k, v]) => [fields[k], v])));
      setOther(rest);
      return false;
    }
  };
  const shares = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);
  return (
    <div className="card">
      <form className="form-grid" aria-label="New account" data-testid="account-form" noValidate
        onSubmit={async (e) => { e.preventDefault(); if (await run(() => api.createAccount({ name: account.name.trim(), parent: account.parent, shares: shares(account.shares) }), { name: 'new-account-name', parent: 'new-account-parent', shares: 'new-account-shares' })) setAccount((a) => ({ ...a, name: '' })); }}>
        <h2>New account</h2>
        <Field label="Name" htmlFor="new-account-name" error={errors['new-account-name']}>
          <input id="new-account-name" value={account.name} onChange={(e) => setAccount({ ...account, name: e.target.value })} data-testid="account-name" autoComplete="off" />
        </Field>
        <Field label="Under" htmlFor="new-account-parent" error={errors['new-account-parent']}>
          <select id="new-account-parent" value={account.parent} onChange={(e) => setAccount({ ...account, parent: e.target.value })} data-testid="account-parent">
            {parents.map((p) => <option key={p}>{p}</option>)}</select>
        </Field>
        <Field label="Shares" htmlFor="new-account-shares" error={errors['new-account-shares']}>
          <input id="new-account-shares" value={account.shares} onChange={(e) => setAccount({ ...account, shares: e.target.value })} inputMode="numeric" placeholder="1" data-testid="account-shares" />
        </Field>
        <div><button type="submit" className="primary" data-testid="account-create">Create</button></div>
      </form>
      <form className="form-grid" aria-label="Add a user to an account" data-testid="member-form" noValidate
        onSubmit={async (e) => { e.preventDefault(); if (await run(() => api.createAssociation({ account: member.account, user: member.user.trim(), shares: shares(member.shares) }), { user: 'new-member-user', account: 'new-member-account', shares: 'new-member-shares' })) setMember((m) => ({ ...m, user: '' })); }}>
        <h2>Add a user</h2>
        <Field label="User" htmlFor="new-member-user" error={errors['new-member-user']}>
          <input id="new-member-user" value={member.user} onChange={(e) => setMember({ ...member, user: e.target.value })} data-testid="member-user" autoComplete="off" />
        </Field>
        <Field label="To account" htmlFor="new-member-account" error={errors['new-member-account']}>
          <select id="new-member-account" value={member.account} onChange={(e) => setMember({ ...member, account: e.target.value })} data-testid="member-account">
            {parents.map((p) => <option key={p}>{p}</option>)}</select>
        </Field>
        <Field label="Shares" htmlFor="new-member-shares" error={errors['new-member-shares']}>
          <input id="new-member-shares" value={member.shares} onChange={(e) => setMember({ ...member, shares: e.target.value })} inputMode="numeric" placeholder="1" data-testid="member-shares" />
        </Field>
        <div><button type="submit" className="primary" data-testid="member-create">Add</button></div>
      </form>
      <ErrorBox error={other} testId="account-form-error" />
    </div>
  );
}

interface TreeRow { key: string; account: string; user?: string | null; depth: number; shares?: number | null; maxJobs?: number | null; grpTres?: string | null; qos?: string[] | null }

/** Accounts depth-first from the roots, each followed by its user associations, then its sub-accounts (sorted by name). */
export function accountTree(accounts: Account[], associations: Association[]): TreeRow[] {
  const names = new Set(accounts.map((a) => a.name));
  const children = new Map<string, Account[]>();
  for (const a of accounts) {
    const parent = a.parent && names.has(a.parent) ? a.parent : '';
    children.set(parent, [...(children.get(parent) ?? []), a]);
  }
  const out: TreeRow[] = [];
  const walk = (parent: string, depth: number) => {
    for (const a of (children.get(parent) ?? []).sort((x, y) => x.name.localeCompare(y.name))) {
      const own = associations.find((s) => s.account === a.name && !s.user);
      out.push({ key: a.name, account: a.name, depth, shares: a.shares ?? own?.shares, maxJobs: own?.maxJobs, grpTres: own?.grpTres, qos: own?.qos });
      for (const s of associations.filter((x) => x.account === a.name && x.user).sort((x, y) => x.user!.localeCompare(y.user!))) {
        out.push({ key: `${a.name}/${s.user}`, account: a.name, user: s.user, depth: depth + 1, shares: s.shares, maxJobs: s.maxJobs, grpTres: s.grpTres, qos: s.qos });
      }
      walk(a.name, depth + 1);
    }
  };
  walk('', 0);
  return out;
}
