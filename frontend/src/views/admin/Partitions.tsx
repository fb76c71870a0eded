import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { formatDuration, formatMemory } from '../../lib/format';
import { ErrorBox, Loading, StateBadge } from '../common';
import { undoStore } from '../../lib/undo';
import { UndoStatus } from '../Undo';
import { ConfirmDialog } from './Confirm';
import { fieldErrors, PARTITION_STATES, partitionQosRequest, partitionStateWarning, type PartitionUpdate, type PartitionView } from './forms';
import { rereadAfterChange } from '../../lib/reread';

/**
 * The partitions with every field the API has (scontrol show partition), and for an ADMIN their state
 * (scontrol update PartitionName= State=): UP at once, DOWN, DRAIN and INACTIVE only once confirmed;
 * and their partition QOS (QOS=), chosen from the QOS there are, a refused one said beside its choice.
 * TRESBillingWeights come from the cluster file, so they are only shown.
 */
export function Partitions({ admin }: { admin: boolean }) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['admin', 'partitions'], queryFn: api.partitions });
  const [asked, setAsked] = useState<{ name: string; state: string; before: string } | null>(null);
  const qosList = useQuery({ queryKey: ['admin', 'qos'], queryFn: api.qos, enabled: admin });
  const [error, setError] = useState<unknown>(null);
  const [qosErrors, setQosErrors] = useState<Record<string, string>>({});
  const items = (list.data?.items ?? []) as PartitionView[];
  const qosNames = (qosList.data?.items ?? []).map((q) => q.name).sort();
  const refresh = () => rereadAfterChange(queryClient, { queryKey: ['admin', 'partitions'] });

  async function setState(name: string, state: string, before?: string) {
    setError(null);
    try {
      await api.updatePartition(name, { state: state as PartitionUpdate['state'] });
      if (before && before !== state) {
        // Undo sets the state it had: the API's only inverse of a partition state change.
        undoStore.offer(`Set partition ${name} ${state}.`, async () => {
          await api.updatePartition(name, { state: before as PartitionUpdate['state'] });
          await refresh();
        }, `Set partition ${name} ${before} again.`);
      }
    } catch (err) { setError(err); }
    await refresh();
  }

  async function setQos(p: PartitionView, choice: string) {
    const name = p.name ?? '';
    const before = p.qos ?? '';
    setError(null);
    setQosErrors(({ [name]: _, ...rest }) => rest);
    const { body, errors } = partitionQosRequest(choice, p, qosNames);
    if (errors.qos) { setQosErrors((e) => ({ ...e, [name]: errors.qos })); return; }
    if (!Object.keys(body).length) return;
    try {
      await api.updatePartition(name, body);
      const undo: PartitionUpdate = { qos: before };
      undoStore.offer(`Set the QOS of partition ${name} to ${body.qos || 'none'}.`, async () => {
        await api.updatePartition(name, undo);
        await refresh();
      }, `Set the QOS of partition ${name} to ${before || 'none'} again.`);
    } catch (err) {
      const { byField, rest } = fieldErrors(err, ['qos']);
      if (byField.qos) setQosErrors((e) => ({ ...e, [name]: byField.qos }));
      setError(rest);
    }
    await refresh();
  }

  const memory = (p: PartitionView) => p.defaultMemPerCpuMb != null ? `${formatMemory(p.defaultMemPerCpuMb)} / CPU`
    : p.defaultMemPerNodeMb != null ? `${formatMemory(p.defaultMemPerNodeMb)} / node` : 'whole node';
  const gpuIdle = (p: PartitionView) => p.gpuIdle
    ? `${p.gpuIdle.action ?? 'WARN'} below ${p.gpuIdle.thresholdPercent ?? '—'}% for ${formatDuration(p.gpuIdle.timeoutSeconds)}, grace ${formatDuration(p.gpuIdle.graceSeconds)}`
    : '—';

  return (
    <>
      <UndoStatus />
      <ErrorBox error={list.error} />
      <ErrorBox error={error} testId="partition-error" />
      {list.isLoading && <Loading what="partitions" />}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Partitions">
        <table className="table compact" data-testid="partitions">
          <thead><tr><th scope="col">Partition</th><th scope="col">State</th><th scope="col">QOS</th><th scope="col">Nodes</th><th scope="col">GPUs</th>
            <th scope="col" className="wide">CPUs</th><th scope="col" className="wide">Default time</th><th scope="col" className="wide">Max time</th>
            <th scope="col" className="wide">Priority tier</th><th scope="col" className="wide">Preempt mode</th>
            <th scope="col" className="wide">Default memory</th><th scope="col" className="wide">GPU idle policy</th>
            <th scope="col" className="wide">Billing weights</th><th scope="col" className="wide">Node list</th></tr></thead>
          <tbody>
            {items.map((p) => {
              const name = p.name ?? '';
              const qosError = qosErrors[name];
              return (
                <tr key={name} data-testid="partition-row" data-name={name} data-state={p.state}>
                  <th scope="row">{name}{p.isDefault ? ' (default)' : ''}</th>
                  <td>
                    {p.state ? <StateBadge state={p.state} /> : '—'}
                    {admin && (
                      <select aria-label={`Set the state of partition ${name}`} value={p.state ?? 'UP'} data-testid={`partition-state-${name}`}
                        onChange={(e) => {
                          const state = e.target.value;
                          if (state === p.state) return;
                          if (partitionStateWarning(name, state)) setAsked({ name, state, before: p.state ?? 'UP' });
                          else void setState(name, state, p.state ?? 'UP');
                        }}>
                        {PARTITION_STATES.map((s) => <option key={s}>{s}</option>)}
                      </select>
                    )}
                  </td>
                  <td className={qosError ? 'has-error' : undefined}>
                    <span data-testid="partition-qos">{p.qos || '—'}</span>
                    {admin && (
                      <select aria-label={`Set the QOS of partition ${name}`} value={p.qos ?? ''} data-testid={`partition-qos-${name}`}
                        aria-invalid={!!qosError} aria-describedby={qosError ? `error-partition-qos-${name}` : undefined}
                        onChange={(e) => void setQos(p, e.target.value)}>
                        <option value="">none</option>
                        {[...new Set([...qosNames, ...(p.qos ? [p.qos] : [])])].map((q) => <option key={q} value={q}>{q}</option>)}
                      </select>
                    )}
                    {qosError && <small className="field-error" id={`error-partition-qos-${name}`} data-testid={`error-partition-qos-${name}`} role="alert">{qosError}</small>}
                  </td>
                  <td>{p.totalNodes}</td><td>{p.totalGpus}</td>
                  <td className="wide">{p.totalCpus ?? '—'}</td>
                  <td className="wide">{formatDuration(p.defaultTimeSeconds)}</td>
                  <td className="wide">{formatDuration(p.maxTimeSeconds)}</td>
                  <td className="wide">{p.priorityTier ?? 0}</td>
                  <td className="wide">{p.preemptMode ?? 'OFF'}</td>
                  <td className="wide">{memory(p)}</td>
                  <td className="wide">{gpuIdle(p)}</td>
                  <td className="wide" data-testid="partition-billing">{p.tresBillingWeights || '—'}</td>
                  <td className="wide">{p.nodes}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {asked && (
        <ConfirmDialog title={`Set partition ${asked.name} ${asked.state}?`} message={partitionStateWarning(asked.name, asked.state)}
          confirmLabel={`Set ${asked.state}`} danger testId={`partition-state-${asked.name}`}
          onCancel={() => setAsked(null)} onConfirm={async () => { const a = asked; setAsked(null); await setState(a.name, a.state, a.before); }} />
      )}
    </>
  );
}
