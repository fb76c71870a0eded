import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { useAuth } from '../lib/auth';
import { formatMemory, formatTime } from '../lib/format';
import { failingText, reasonBy } from '../lib/mywork';
import { href } from '../lib/router';
import { ErrorBox, Loading, StateBadge } from './common';
import { jobKey } from './Jobs';
import { NodeActions, NodeMarkList } from './Nodes';
import { UndoStatus } from './Undo';

export function NodeDetail({ name }: { name: string }) {
  const { operator } = useAuth();
  const node = useQuery({ queryKey: ['node', name], queryFn: () => api.node(name) });
  const running = useQuery({ queryKey: ['jobs', 'running-all'], queryFn: () => api.jobs({ state: 'RUNNING,COMPLETING', size: 1000 }) });
  if (node.isLoading) return <Loading what={name} />;
  if (node.error) return <ErrorBox error={node.error} />;
  const n = node.data!;
  const jobsHere = (running.data?.items ?? []).filter((j) => j.allocation?.some((a) => a.node === name));
  const gpuOwner = new Map<number, string>();
  for (const j of jobsHere) for (const a of j.allocation ?? []) if (a.node === name) for (const g of a.gpuIndices ?? []) gpuOwner.set(g, jobKey(j));

  return (
    <section aria-labelledby="node-title" data-testid="view-node">
      <div className="heading">
        <h1 id="node-title">{n.name}</h1>
        <StateBadge state={n.state} testId="node-detail-state" />
      </div>
      <NodeMarkList node={n} />
      <UndoStatus />
      {operator && <NodeActions node={n} />}
      <div className="grid2">
        <div className="card">
          <dl className="facts">
            <dt>Reason</dt><dd data-testid="node-detail-reason">{n.reason ?? '—'}
              {n.reason && (n.reasonUser || n.reasonTime) ? <> <span className="muted" data-testid="node-detail-reason-by">({reasonBy(n.reasonUser, n.reasonTime, formatTime)})</span></> : null}</dd>
            <dt>Reservation</dt><dd data-testid="node-detail-reservation">{n.reservation ?? '—'}</dd>
            <dt>Maintenance</dt><dd data-testid="node-detail-maintenance">{n.maintenanceReservation && n.maintenanceStart
              ? `${n.maintenanceReservation} from ${formatTime(n.maintenanceStart)}` : '—'}</dd>
            <dt>Recent jobs</dt><dd data-testid="node-detail-failures">{n.recentFailures
              ? `${failingText(n.recentFailures).replace(/^failing: /, '')} failed${n.recentFailures.failing ? ' — failing' : ''}` : '—'}</dd>
            <dt>CPUs</dt><dd>{n.allocCpus}/{n.cpus}</dd>
            <dt>Memory</dt><dd>{formatMemory(n.allocMemoryMb)} / {formatMemory(n.memoryMb)}</dd>
            <dt>GPUs</dt><dd>{n.allocGpus}/{n.gpus} {n.gpuType ?? ''}</dd>
            <dt>Features</dt><dd>{(n.features ?? []).join(', ') || '—'}</dd>
            <dt>Partitions</dt><dd>{(n.partitions ?? []).join(', ')}</dd>
            <dt>Switch</dt><dd>{n.switchName ?? '—'}</dd>
            <dt>Block</dt><dd>{n.block ?? '—'}</dd>
          </dl>
        </div>
        <div className="card">
          <h2>GPUs</h2>
          <div className="gpus" data-testid="node-gpus">
            {Array.from({ length: n.gpus }, (_, i) => (
              <div key={i} className={`gpu ${gpuOwner.has(i) ? 'busy' : ''}`} data-testid="node-gpu" title={gpuOwner.has(i) ? `GPU ${i}: job ${gpuOwner.get(i)}` : `GPU ${i}: free`}>
                <span>{i}</span>{gpuOwner.has(i) && <a href={href(`/jobs/${gpuOwner.get(i)}`)}>{gpuOwner.get(i)}</a>}
              </div>
            ))}
            {n.gpus === 0 && <p className="muted">No GPUs.</p>}
          </div>
          <h2>Running jobs</h2>
          <ul data-testid="node-jobs">
            {jobsHere.map((j) => <li key={jobKey(j)}><a href={href(`/jobs/${jobKey(j)}`)}>{jobKey(j)}</a> {j.name} ({j.user})</li>)}
            {jobsHere.length === 0 && <li className="muted">None.</li>}
          </ul>
        </div>
      </div>
    </section>
  );
}
