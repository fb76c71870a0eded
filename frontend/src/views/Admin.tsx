import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Account, Association } from '../api/types';
import { formatDuration, formatTime, parseSlurmTime } from '../lib/format';
import { href } from '../lib/router';
import { ConfirmButton, ErrorBox, Loading, StateBadge } from './common';

export const ADMIN_VIEWS = [
  { key: 'reservations', label: 'Reservations' },
  { key: 'partitions', label: 'Partitions' },
  { key: 'qos', label: 'QOS' },
  { key: 'users', label: 'Users' },
  { key: 'accounts', label: 'Accounts' },
] as const;
type AdminView = (typeof ADMIN_VIEWS)[number]['key'];

/** The administration views (#/admin/reservations, ...): what scontrol and sacctmgr manage. */
export function Admin({ view }: { view?: string }) {
  const current: AdminView = ADMIN_VIEWS.some((v) => v.key === view) ? (view as AdminView) : 'reservations';
  return (
    <section aria-labelledby="admin-title" data-testid="view-admin" data-admin-view={current}>
      <h1 id="admin-title">Administration</h1>
      <nav className="tabs" aria-label="Administration">
        {ADMIN_VIEWS.map((v) => (
          <a key={v.key} href={href(`/admin/${v.key}`)} aria-current={v.key === current ? 'page' : undefined} data-testid={`admin-tab-${v.key}`}>{v.label}</a>
        ))}
      </nav>
      {current === 'reservations' && <Reservations />}
      {current === 'partitions' && <Partitions />}
      {current === 'qos' && <QosList />}
      {current === 'users' && <Users />}
      {current === 'accounts' && <Accounts />}
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
      <div className="table-wrap">
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

function Partitions() {
  const list = useQuery({ queryKey: ['admin', 'partitions'], queryFn: api.partitions });
  return (
    <>
      <ErrorBox error={list.error} />
      {list.isLoading && <Loading what="partitions" />}
      <div className="table-wrap">
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
      <div className="table-wrap">
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

function Users() {
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
      <div className="table-wrap">
        <table className="table compact" data-testid="users">
          <thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col" className="wide">Default account</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((u) => (
              <tr key={u.username} data-testid="user-row" data-name={u.username} data-enabled={String(u.enabled !== false)}>
                <th scope="row" className="ellipsis">{u.username}</th>
                <td><select aria-label={`Role of ${u.username}`} value={ROLES.find((r) => u.roles.includes(r)) ?? 'USER'} data-testid={`user-role-${u.username}`}
                  onChange={(e) => void act(() => api.updateUser(u.username, { roles: [e.target.value] }))}>
                  {ROLES.map((r) => <option key={r}>{r}</option>)}</select></td>
                <td><button type="button" data-testid={`user-enable-${u.username}`} className={u.enabled === false ? '' : 'danger'}
                  onClick={() => void act(() => api.updateUser(u.username, { enabled: u.enabled === false }))}>
                  {u.enabled === false ? 'Enable' : 'Disable'}</button></td>
                <td className="wide">{u.defaultAccount ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Accounts as a tree (sacctmgr show assoc tree): each account, its users' associations beneath it, with shares and limits. */
function Accounts() {
  const accounts = useQuery({ queryKey: ['admin', 'accounts'], queryFn: api.accounts });
  const associations = useQuery({ queryKey: ['admin', 'associations'], queryFn: api.associations });
  const rows = accountTree(accounts.data?.items ?? [], associations.data?.items ?? []);
  return (
    <>
      <ErrorBox error={accounts.error ?? associations.error} />
      {(accounts.isLoading || associations.isLoading) && <Loading what="accounts" />}
      <div className="table-wrap">
        <table className="table compact" data-testid="accounts">
          <thead><tr><th scope="col">Account / user</th><th scope="col">Shares</th><th scope="col" className="wide">Max jobs</th>
            <th scope="col" className="wide">Group TRES</th><th scope="col" className="wide">QOS</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} data-testid={r.user ? 'assoc-row' : 'account-row'} data-name={r.user ?? r.account}>
                <th scope="row" style={{ paddingLeft: `${0.4 + r.depth * 1.1}rem` }}>{r.user ?? <strong>{r.account}</strong>}</th>
                <td>{r.shares ?? '—'}</td><td className="wide">{r.maxJobs ?? '—'}</td>
                <td className="wide">{r.grpTres || '—'}</td><td className="wide">{r.qos?.join(', ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
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
      out.push({ key: a.name, account: a.name, depth, shares: own?.shares ?? a.shares, maxJobs: own?.maxJobs, grpTres: own?.grpTres, qos: own?.qos });
      for (const s of associations.filter((x) => x.account === a.name && x.user).sort((x, y) => x.user!.localeCompare(y.user!))) {
        out.push({ key: `${a.name}/${s.user}`, account: a.name, user: s.user, depth: depth + 1, shares: s.shares, maxJobs: s.maxJobs, grpTres: s.grpTres, qos: s.qos });
      }
      walk(a.name, depth + 1);
    }
  };
  walk('', 0);
  return out;
}
