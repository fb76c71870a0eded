import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { formatTime } from '../../lib/format';
import { ErrorBox, Loading } from '../common';
import { auditChanges, fieldErrors, type AuditEvent } from './forms';

const ENTITIES = ['user', 'account', 'association', 'qos', 'coordinators', 'reservation', 'node', 'partition', 'job', 'join_token'];
const SIZE = 25;

/**
 * The audit trail (sacctmgr list transactions, ADMIN): who changed what and when, newest first, a
 * page at a time, narrowed to one actor, kind of thing or name; each change says which fields it altered.
 */
export function Audit() {
  const [filter, setFilter] = useState({ actor: '', entity: '', key: '' });
  const [applied, setApplied] = useState(filter);
  const [page, setPage] = useState(0);
  const list = useQuery({
    queryKey: ['admin', 'audit', applied, page],
    queryFn: () => api.audit({ actor: applied.actor.trim() || undefined, entity: applied.entity || undefined, key: applied.key.trim() || undefined, page, size: SIZE }),
    placeholderData: keepPreviousData,
  });
  const { byField, rest } = fieldErrors(list.error, ['actor', 'entity', 'key']);
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / SIZE));

  return (
    <>
      <form className="card form-grid" aria-label="Filter the audit trail" data-testid="audit-filter" role="search"
        onSubmit={(e) => { e.preventDefault(); setPage(0); setApplied(filter); }}>
        <label htmlFor="audit-actor">Actor<input id="audit-actor" value={filter.actor} onChange={(e) => setFilter({ ...filter, actor: e.target.value })} data-testid="audit-actor" autoComplete="off" /></label>
        <label htmlFor="audit-entity">Kind<select id="audit-entity" value={filter.entity} onChange={(e) => setFilter({ ...filter, entity: e.target.value })} data-testid="audit-entity">
          <option value="">any</option>{ENTITIES.map((x) => <option key={x}>{x}</option>)}</select></label>
        <label htmlFor="audit-key">Name or id<input id="audit-key" value={filter.key} onChange={(e) => setFilter({ ...filter, key: e.target.value })} data-testid="audit-key" autoComplete="off" /></label>
        <div><button type="submit" className="primary" data-testid="audit-apply">Show</button></div>
        {Object.entries(byField).map(([k, m]) => <small key={k} className="field-error" role="alert">{k}: {m}</small>)}
      </form>
      <ErrorBox error={rest} />
      {list.isLoading && <Loading what="the audit trail" />}
      <div className="pager" aria-live="polite">
        <button type="button" disabled={page === 0} onClick={() => setPage((p) => p - 1)} data-testid="audit-newer">Newer</button>
        <span data-testid="audit-page">Page {page + 1} of {pages} ({total.toLocaleString()} changes)</span>
        <button type="button" disabled={page + 1 >= pages} onClick={() => setPage((p) => p + 1)} data-testid="audit-older">Older</button>
      </div>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Audit trail">
        <table className="table compact" data-testid="audit" aria-busy={list.isFetching}>
          <thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col" className="wide">Who</th>
            <th scope="col" className="wide">What changed</th></tr></thead>
          <tbody>
            {(list.data?.items ?? []).map((e: AuditEvent) => {
              const changes = auditChanges(e.before, e.after);
              return (
                <tr key={e.id} data-testid="audit-row" data-action={e.action} data-entity={e.entityType} data-key={e.entityKey}>
                  <td>{formatTime(e.at)}</td>
                  <th scope="row"><strong>{e.action}</strong> {e.entityType} <span className="mono">{e.entityKey}</span>
                    <span className="audit-who muted"> by {e.actor}</span></th>
                  <td className="wide">{e.actor} <span className="muted">({e.actorRole}{e.clientAddress ? `, ${e.clientAddress}` : ''})</span></td>
                  <td className="wide">{changes.length
                    ? <ul className="audit-changes" data-testid="audit-changes">{changes.slice(0, 8).map((c) => <li key={c}>{c}</li>)}{changes.length > 8 && <li>and {changes.length - 8} more</li>}</ul>
                    : <span className="muted">{e.action === 'create' ? 'created' : e.action === 'delete' ? 'deleted' : '—'}</span>}</td>
                </tr>
              );
            })}
            {list.data?.items.length === 0 && <tr><td colSpan={4} className="muted">No changes match.</td></tr>}
          </tbody>
        </table>
      </div>
    </>
  );
}
