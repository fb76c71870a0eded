import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { useAuth } from '../lib/auth';
import type { Scope } from '../lib/coordination';
import { href } from '../lib/router';
import { ErrorBox, Loading } from './common';
import { Accounts } from './admin/Accounts';
import { Audit } from './admin/Audit';
import { ConfirmAction, ConfirmDialog } from './admin/Confirm';
import { Partitions } from './admin/Partitions';
import { QosList } from './admin/Qos';
import { Reservations } from './admin/Reservations';
import { rereadAfterChange } from '../lib/reread';

export { accountTree } from './admin/Accounts';

export const ADMIN_VIEWS = [
  { key: 'reservations', label: 'Reservations' },
  { key: 'partitions', label: 'Partitions' },
  { key: 'qos', label: 'QOS' },
  { key: 'users', label: 'Users' },
  { key: 'accounts', label: 'Accounts' },
  { key: 'audit', label: 'Audit' },
] as const;
type AdminView = (typeof ADMIN_VIEWS)[number]['key'];

/**
 * The administration views (#/admin/reservations, ...): what scontrol and sacctmgr manage. An ADMIN
 * changes QOS, partitions' states and reservations and reads the audit trail; an OPERATOR sees them;
 * a user who is no OPERATOR but coordinates accounts sees only the accounts view, limited to their
 * sub-trees. Every destructive change asks first (admin/Confirm), and a value the server refuses is
 * shown at its field.
 */
export function Admin({ view }: { view?: string }) {
  const { me, operator } = useAuth();
  const admin = !!me?.roles.includes('ADMIN');
  const scope: Scope = { admin, me: me?.username ?? '', coordinatorOf: me?.coordinatorOf ?? [], seesAll: operator };
  const views = operator ? ADMIN_VIEWS.filter((v) => v.key !== 'audit' || admin) : ADMIN_VIEWS.filter((v) => v.key === 'accounts');
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
      {current === 'reservations' && <Reservations admin={admin} />}
      {current === 'partitions' && <Partitions admin={admin} />}
      {current === 'qos' && <QosList admin={admin} />}
      {current === 'users' && <Users />}
      {current === 'accounts' && <Accounts scope={scope} />}
      {current === 'audit' && <Audit />}
    </section>
  );
}

const ROLES = ['USER', 'OPERATOR', 'ADMIN'];

/**
 * A user's role, changed only once confirmed: choosing another role asks first in the confirmation
 * dialog (and says so when the admin is about to take their own rights away).
 */
function RoleChange({ user, role, self, onConfirm }: { user: string; role: string; self: boolean; onConfirm: (role: string) => Promise<unknown> }) {
  const [asked, setAsked] = useState<string | null>(null);
  return (
    <>
      <select aria-label={`Role of ${user}`} value={role} data-testid={`user-role-${user}`}
        onChange={(e) => { if (e.target.value !== role) setAsked(e.target.value); }}>
        {ROLES.map((r) => <option key={r}>{r}</option>)}
      </select>
      {asked && (
        <ConfirmDialog title={self ? `Make yourself ${asked}?` : `Make ${user} ${asked}?`} danger={self}
          message={self ? `You lose what ${role} may do.` : `${user} may then do what ${asked} may, and no longer only what ${role} may.`}
          confirmLabel="Yes, change" cancelLabel={`Keep ${role}`} testId={`user-role-${user}`}
          onCancel={() => setAsked(null)} onConfirm={async () => { const chosen = asked; setAsked(null); await onConfirm(chosen); }} />
      )}
    </>
  );
}

function Users() {
  const { me } = useAuth();
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'users'], queryFn: api.users });
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState({ username: '', password: '', role: 'USER', defaultAccount: 'root' });
  const refresh = () => rereadAfterChange(queryClient, { queryKey: ['admin', 'users'] });
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
                  : <ConfirmAction label="Disable" ariaLabel={`Disable ${u.username}`} confirmLabel={`Yes, disable ${u.username}`} testId={`user-enable-${u.username}`}
                    title={`Disable ${u.username}?`} message={`${u.username} can no longer sign in, and their tokens stop working.`}
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
