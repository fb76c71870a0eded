import { useMemo, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Association } from '../../api/types';
import { AccountTree, type Scope } from '../../lib/coordination';
import { ErrorBox, Field, Loading } from '../common';
import { ConfirmAction } from './Confirm';
import { fieldErrors, GUARANTEE_FIELDS, guaranteeChange, whole, type AccountView as Account, type GuaranteeField } from './forms';

/**
 * Accounts as a tree (sacctmgr show assoc tree): each account, its users' associations beneath it,
 * with shares and limits; who may change what is the API's rule (lib/coordination): an ADMIN all of
 * it, a coordinator their account's sub-tree. Edits go to PATCH /accounts and /associations, and a
 * refused value is shown at its field.
 */
export function Accounts({ scope }: { scope: Scope }) {
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: ['admin', 'accounts'], queryFn: api.accounts });
  const associations = useQuery({ queryKey: ['admin', 'associations'], queryFn: api.associations });
  const [editing, setEditing] = useState<string | null>(null);
  const all = (accounts.data?.items ?? []) as Account[];
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
            <th scope="col" className="wide">Group TRES</th><th scope="col" className="wide">Guarantee</th>
            <th scope="col" className="wide">Borrow / lend at most</th><th scope="col" className="wide">QOS</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {rows.flatMap((r) => {
              const mayEdit = r.user ? tree.mayChangeAssociation(scope, r.account, r.user) : tree.mayChangeAccount(scope, r.account);
              const open = editing === r.key;
              const row = (
                <tr key={r.key} data-testid={r.user ? 'assoc-row' : 'account-row'} data-name={r.user ?? r.account} data-account={r.account}>
                  <th scope="row" style={{ paddingLeft: `${0.4 + r.depth * 1.1}rem` }}>{r.user ?? <strong>{r.account}</strong>}</th>
                  <td data-testid="row-shares">{r.shares ?? '—'}</td><td className="wide" data-testid="row-max-jobs">{r.maxJobs ?? '—'}</td>
                  <td className="wide" data-testid="row-grp-tres">{r.grpTres || '—'}</td>
                  <td className="wide" data-testid="row-guarantee">{r.user ? '' : r.guaranteedTres || '—'}</td>
                  <td className="wide" data-testid="row-borrow-lend">{r.user ? '' : `${r.maxBorrowTres || 'any'} / ${r.maxLendTres || 'any'}`}</td>
                  <td className="wide">{r.qos?.join(', ') || '—'}</td>
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
                <tr key={`${r.key}-edit`} className="edit-row"><td colSpan={8}>
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

/**
 * An account's shares, parent and description, its GPU guarantee and how much of its siblings' idle
 * guarantee it may borrow and of its own it may lend, and its own association's limits.
 */
function AccountEditor({ account, association, parents, onDone }: {
  account?: Account; association?: Association; parents: string[]; onDone: () => void;
}) {
  const [form, setForm] = useState({
    parent: account?.parent ?? '', shares: String(account?.shares ?? ''), description: account?.description ?? '',
    maxJobs: association?.maxJobs != null ? String(association.maxJobs) : '', grpTres: association?.grpTres ?? '',
    guaranteedTres: account?.guaranteedTres ?? '', maxBorrowTres: account?.maxBorrowTres ?? '', maxLendTres: account?.maxLendTres ?? '',
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
    const change: { parent?: string; shares?: number; description?: string } & Partial<Record<GuaranteeField, string>> = guaranteeChange(form, account!);
    if (form.parent && form.parent !== (account!.parent ?? '')) change.parent = form.parent;
    if (shares !== undefined && shares !== account!.shares) change.shares = shares as number;
    if (form.description !== (account!.description ?? '')) change.description = form.description;
    const found: Record<string, string> = {};
    try {
      if (Object.keys(change).length) await api.updateAccount(name, change);
    } catch (err) {
      const { byField, rest } = fieldErrors(err, ['parent', 'shares', 'description', ...GUARANTEE_FIELDS]);
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
      <Field label="Guaranteed GPUs" htmlFor={id('guaranteedTres')} error={errors.guaranteedTres} hint="e.g. gres/gpu=16; empty: none">
        <input id={id('guaranteedTres')} value={form.guaranteedTres} onChange={set('guaranteedTres')} data-testid="edit-guaranteed-tres" aria-invalid={!!errors.guaranteedTres} />
      </Field>
      <Field label="Borrow at most" htmlFor={id('maxBorrowTres')} error={errors.maxBorrowTres} hint="e.g. gres/gpu=8; empty: no limit">
        <input id={id('maxBorrowTres')} value={form.maxBorrowTres} onChange={set('maxBorrowTres')} data-testid="edit-max-borrow-tres" aria-invalid={!!errors.maxBorrowTres} />
      </Field>
      <Field label="Lend at most" htmlFor={id('maxLendTres')} error={errors.maxLendTres} hint="e.g. gres/gpu=8; empty: no limit">
        <input id={id('maxLendTres')} value={form.maxLendTres} onChange={set('maxLendTres')} data-testid="edit-max-lend-tres" aria-invalid={!!errors.maxLendTres} />
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
        <ConfirmAction label="Delete account" testId={`delete-account-${name}`} title={`Delete account ${name}?`} confirmLabel={`Delete ${name}`}
          message="Its users' associations with it go too; an account with sub-accounts or active jobs cannot be deleted."
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
        <ConfirmAction label="Remove from account" testId={`delete-association-${a.id}`} title={`Remove ${a.user} from ${a.account}?`}
          confirmLabel="Remove" message={`${a.user}'s jobs can no longer run under account ${a.account}.`}
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

interface TreeRow {
  key: string; account: string; user?: string | null; depth: number; shares?: number | null; maxJobs?: number | null; grpTres?: string | null;
  qos?: string[] | null; guaranteedTres?: string | null; maxBorrowTres?: string | null; maxLendTres?: string | null;
}

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
      out.push({ key: a.name, account: a.name, depth, shares: a.shares ?? own?.shares, maxJobs: own?.maxJobs, grpTres: own?.grpTres, qos: own?.qos,
        guaranteedTres: a.guaranteedTres, maxBorrowTres: a.maxBorrowTres, maxLendTres: a.maxLendTres });
      for (const s of associations.filter((x) => x.account === a.name && x.user).sort((x, y) => x.user!.localeCompare(y.user!))) {
        out.push({ key: `${a.name}/${s.user}`, account: a.name, user: s.user, depth: depth + 1, shares: s.shares, maxJobs: s.maxJobs, grpTres: s.grpTres, qos: s.qos });
      }
      walk(a.name, depth + 1);
    }
  };
  walk('', 0);
  return out;
}
