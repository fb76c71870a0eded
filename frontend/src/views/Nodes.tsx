import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ClusterNode } from '../api/types';
import { useAuth } from '../lib/auth';
import { formatMemory, formatTime } from '../lib/format';
import { nodeMarks, reasonBy } from '../lib/mywork';
import { href, navigate } from '../lib/router';
import { compressHostlist, expandHostlist } from '../lib/hostlist';
import { nodesDone, nodesToResume, undoStore } from '../lib/undo';
import { ConfirmDialog } from './admin/Confirm';
import { ErrorBox, Loading, StateBadge } from './common';
import { NodeCell } from './Overview';
import { UndoStatus } from './Undo';

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
      <UndoStatus />
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
      {operator && <BulkNodeActions listed={items.map((n) => n.name)} />}
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
      if (state === 'DRAIN') {
        const name = node.name;
        undoStore.offer(nodesDone('Drained', [name], name), async () => {
          await api.updateNode(name, 'RESUME');
          await refreshNodes(queryClient, [name]);
        }, `Resumed ${name} again.`);
      }
      await refreshNodes(queryClient, [node.name]);
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

type QueryClient = ReturnType<typeof useQueryClient>;

async function refreshNodes(queryClient: QueryClient, names: string[]) {
  await queryClient.invalidateQueries({ queryKey: ['nodes'] });
  await Promise.all(names.map((name) => queryClient.invalidateQueries({ queryKey: ['node', name] })));
}

/**
 * Drain or resume many nodes at once (scontrol update NodeName=<hostlist>): a hostlist typed or the
 * nodes the filters list, asked first with how many and which; all or nothing on the server. A drain
 * offers Undo, which resumes the nodes it drained (not those drained before).
 */
function BulkNodeActions({ listed }: { listed: string[] }) {
  const queryClient = useQueryClient();
  const [hostlist, setHostlist] = useState('');
  const [reason, setReason] = useState('');
  const [asked, setAsked] = useState<{ state: 'DRAIN' | 'RESUME'; names: string[]; compressed: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [problem, setProblem] = useState('');

  function ask(state: 'DRAIN' | 'RESUME') {
    setError(null);
    let names: string[];
    try { names = [...new Set(expandHostlist(hostlist.trim()))]; } catch { names = []; }
    if (names.length === 0) { setProblem('Type a hostlist such as gpu[001-004], or use the listed nodes.'); return; }
    if (state === 'DRAIN' && !reason.trim()) { setProblem('Say why the nodes are drained: a reason is required.'); return; }
    setProblem('');
    setAsked({ state, names, compressed: compressHostlist(names) });
  }

  async function confirm() {
    const a = asked!;
    setAsked(null);
    try {
      const before = a.state === 'DRAIN' ? new Map((await api.allNodes()).items.map((n) => [n.name, n.state])) : new Map<string, string>();
      await api.updateNodes(a.compressed, a.state, a.state === 'DRAIN' ? reason.trim() : undefined);
      if (a.state === 'DRAIN') {
        const resume = nodesToResume(a.names, before);
        if (resume.length > 0) {
          const back = compressHostlist(resume);
          undoStore.offer(nodesDone('Drained', a.names, a.compressed), async () => {
            await api.updateNodes(back, 'RESUME');
            await refreshNodes(queryClient, resume);
          }, `Resumed ${resume.length === 1 ? back : `${resume.length} nodes (${back})`} again.`);
        }
        setReason('');
      } else {
        undoStore.dismiss(); // an older drain offer would now undo nothing it says
      }
      await refreshNodes(queryClient, a.names);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <form className="bulk-nodes card" aria-label="Drain or resume many nodes" data-testid="bulk-nodes" onSubmit={(e) => { e.preventDefault(); ask('DRAIN'); }}>
      <label>Nodes (hostlist)
        <input value={hostlist} onChange={(e) => setHostlist(e.target.value)} placeholder="gpu[001-004]" data-testid="bulk-hostlist" />
      </label>
      <button type="button" disabled={listed.length === 0} data-testid="bulk-use-listed"
        onClick={() => setHostlist(compressHostlist(listed))}>Use the {listed.length} listed</button>
      <label>Reason (to drain)
        <input value={reason} onChange={(e) => setReason(e.target.value)} placeholder="bad DIMM, ticket 123" data-testid="bulk-reason" />
      </label>
      <button type="submit" aria-haspopup="dialog" data-testid="bulk-drain">Drain…</button>
      <button type="button" aria-haspopup="dialog" data-testid="bulk-resume" onClick={() => ask('RESUME')}>Resume…</button>
      {problem && <p className="field-error" role="alert" data-testid="bulk-problem">{problem}</p>}
      <ErrorBox error={error} testId="bulk-error" />
      {asked && (
        <ConfirmDialog
          title={`${asked.state === 'DRAIN' ? 'Drain' : 'Resume'} ${asked.names.length} node${asked.names.length === 1 ? '' : 's'}?`}
          message={asked.state === 'DRAIN'
            ? <>Drain <code data-testid="bulk-confirm-nodes">{asked.compressed}</code> ({reason.trim()}): running jobs finish, no new job starts there. You can undo it for 10 seconds.</>
            : <>Resume <code data-testid="bulk-confirm-nodes">{asked.compressed}</code>: they take jobs again.</>}
          confirmLabel={asked.state === 'DRAIN' ? `Drain ${asked.names.length}` : `Resume ${asked.names.length}`}
          danger={asked.state === 'DRAIN'} testId="bulk" onCancel={() => setAsked(null)} onConfirm={confirm} />
      )}
    </form>
  );
}
