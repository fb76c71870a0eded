import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ClusterNode } from '../api/types';
import { useAuth } from '../lib/auth';
import { formatMemory, formatTime } from '../lib/format';
import { nodeMarks, reasonBy } from '../lib/mywork';
import { href, navigate } from '../lib/router';
import { ErrorBox, Loading, StateBadge } from './common';
import { NodeCell } from './Overview';

const STATES = ['IDLE', 'MIXED', 'ALLOCATED', 'DRAINING', 'DRAINED', 'DOWN', 'UNKNOWN', 'POWERED_DOWN', 'POWERING_UP',
  'POWERING_DOWN'];

export function Nodes({ query }: { query: URLSearchParams }) {
  const { operator } = useAuth();
  const state = query.get('state') ?? '';
  const partition = query.get('partition') ?? '';
  const text = query.get('q') ?? '';
  const nodes = useQuery({
    queryKey: ['nodes', 'list', state, partition],
    queryFn: () => api.allNodes({ state: state || undefined, partition: partition || undefined }),
    placeholderData: (p) => p,
  });
  const partitions = useQuery({ queryKey: ['partitions'], queryFn: api.partitions, refetchInterval: 60000 });
  const needle = text.toLowerCase(); // GPU01 finds gpu01: node names and reasons are searched in any case
  const items = (nodes.data?.items ?? []).filter((n) => !needle || n.name.toLowerCase().includes(needle) || (n.reason ?? '').toLowerCase().includes(needle));

  function setQuery(changes: Record<string, string | undefined>) {
    navigate('/nodes', { state, partition, q: text, ...changes }, true);
  }

  return (
    <section aria-labelledby="nodes-title" data-testid="view-nodes">
      <h1 id="nodes-title">Nodes</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>State
          <select value={state} onChange={(e) => setQuery({ state: e.target.value || undefined })} data-testid="nodes-filter-state">
            <option value="">any</option>
            {STATES.map((s) => <option key={s} value={s}>{s.toLowerCase()}</option>)}
          </select>
        </label>
        <label>Partition
          <select value={partition} onChange={(e) => setQuery({ partition: e.target.value || undefined })} data-testid="nodes-filter-partition">
            <option value="">any</option>
            {(partitions.data?.items ?? []).map((p) => <option key={p.name} value={p.name}>{p.name}</option>)}
          </select>
        </label>
        <label>Name or reason
          <input type="search" value={text} onChange={(e) => setQuery({ q: e.target.value || undefined })} data-testid="nodes-filter-text" />
        </label>
      </form>
      <ErrorBox error={nodes.error} />
      {nodes.isLoading && <Loading what="nodes" />}
      <div className="cells strip" aria-label="Map of the listed nodes">{items.map((n) => <NodeCell key={n.name} node={n} dense={items.length > 200} />)}</div>
      <div className="table-wrap" tabIndex={0}>
        <table className="table" data-testid="nodes-table">
          <thead>
            <tr>
              <th scope="col">Node</th><th scope="col">State</th><th scope="col">GPUs used</th><th scope="col" className="wide">CPUs used</th>
              <th scope="col" className="wide">Memory used</th><th scope="col" className="wide">Partitions</th><th scope="col" className="wide">Switch / block</th>
              <th scope="col">Reason</th>{operator && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((n) => <NodeRow key={n.name} node={n} operator={operator} />)}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function NodeRow({ node, operator }: { node: ClusterNode; operator: boolean }) {
  return (
    <tr data-testid="node-row" data-node={node.name} data-state={node.state}>
      <td><a href={href(`/nodes/${node.name}`)}>{node.name}</a></td>
      <td className="state-cell"><StateBadge state={node.state} testId={`node-state-${node.name}`} /><NodeMarkList node={node} /></td>
      <td>{node.gpus ? `${node.allocGpus}/${node.gpus}` : '—'}</td>
      <td className="wide">{node.allocCpus}/{node.cpus}</td>
      <td className="wide">{formatMemory(node.allocMemoryMb)} / {formatMemory(node.memoryMb)}</td>
      <td className="wide">{(node.partitions ?? []).join(', ')}</td>
      <td className="wide">{node.switchName ?? '—'} / {node.block ?? '—'}</td>
      <td className="ellipsis"><span data-testid={`node-reason-${node.name}`}>{node.reason ?? ''}</span>
        {node.reason && (node.reasonUser || node.reasonTime)
          ? <span className="reason" data-testid={`node-reason-by-${node.name}`}>{reasonBy(node.reasonUser, node.reasonTime, formatTime)}</span> : null}</td>
      {operator && <td><NodeActions node={node} /></td>}
    </tr>
  );
}

/** A node's marks beside its state: the reservation it is in, a maintenance coming, failing jobs. */
export function NodeMarkList({ node }: { node: ClusterNode }) {
  const marks = nodeMarks(node, formatTime);
  if (marks.length === 0) return null;
  return (
    <ul className="node-marks" data-testid={`node-marks-${node.name}`}>
      {marks.map((m) => <li key={m.kind} className={`mark mark-${m.kind}`} data-testid={`node-mark-${m.kind}`}>{m.text}</li>)}
    </ul>
  );
}

/** Drain (with the reason Slurm requires) or resume a node: shown to OPERATOR and ADMIN only. */
export function NodeActions({ node }: { node: ClusterNode }) {
  const queryClient = useQueryClient();
  const [draining, setDraining] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const drained = ['DRAINED', 'DRAINING', 'DOWN'].includes(node.state);

  async function update(state: 'DRAIN' | 'RESUME') {
    setBusy(true);
    setError(null);
    try {
      await api.updateNode(node.name, state, state === 'DRAIN' ? reason : undefined);
      setDraining(false);
      setReason('');
      await queryClient.invalidateQueries({ queryKey: ['nodes'] });
      await queryClient.invalidateQueries({ queryKey: ['node', node.name] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="node-actions">
      {drained
        ? <button type="button" disabled={busy} data-testid={`node-resume-${node.name}`} onClick={() => update('RESUME')}>Resume</button>
        : !draining && <button type="button" data-testid={`node-drain-${node.name}`} onClick={() => setDraining(true)}>Drain…</button>}
      {draining && !drained && (
        <form className="inline" onSubmit={(e) => { e.preventDefault(); void update('DRAIN'); }}>
          <label className="sr-only" htmlFor={`reason-${node.name}`}>Reason to drain {node.name}</label>
          <input id={`reason-${node.name}`} required autoFocus placeholder="Reason" value={reason}
            onChange={(e) => setReason(e.target.value)} data-testid={`node-drain-reason-${node.name}`} />
          <button type="submit" className="primary" disabled={busy || !reason.trim()} data-testid={`node-drain-submit-${node.name}`}>Drain</button>
          <button type="button" onClick={() => setDraining(false)}>Keep</button>
        </form>
      )}
      <ErrorBox error={error} testId={`node-action-error-${node.name}`} />
    </div>
  );
}
