import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ClusterNode } from '../api/types';
import { groupNodes, gpuSummary } from '../lib/cluster';
import { href } from '../lib/router';
import { ErrorBox, Loading, Stat } from './common';

export function Overview() {
  const nodes = useQuery({ queryKey: ['nodes', 'all'], queryFn: () => api.nodes() });
  const topology = useQuery({ queryKey: ['topology'], queryFn: api.topology, refetchInterval: 60000 });
  const diag = useQuery({ queryKey: ['diag'], queryFn: api.diag });
  const pending = useQuery({ queryKey: ['jobs', 'count', 'PENDING'], queryFn: () => api.jobs({ state: 'PENDING', size: 1 }) });
  const running = useQuery({ queryKey: ['jobs', 'count', 'RUNNING'], queryFn: () => api.jobs({ state: 'RUNNING', size: 1 }) });

  const list = nodes.data?.items ?? [];
  const gpus = gpuSummary(list);
  const groups = groupNodes(list, topology.data);
  const pendingCount = pending.data?.total ?? diag.data?.pending;
  const runningCount = running.data?.total ?? diag.data?.running;

  return (
    <section aria-labelledby="overview-title" data-testid="view-overview">
      <h1 id="overview-title">Cluster overview</h1>
      <ErrorBox error={nodes.error} />
      <div className="stats">
        <Stat label="GPUs allocated" value={gpus.allocated} testId="gpus-allocated" tone="alloc" />
        <Stat label="GPUs idle" value={gpus.idle} testId="gpus-idle" tone="idle" />
        <Stat label="GPUs drained" value={gpus.drained} testId="gpus-drained" tone="drain" />
        <Stat label="GPUs down" value={gpus.down} testId="gpus-down" tone="down" />
        <Stat label="Jobs running" value={<a href={href('/jobs', { state: 'RUNNING', all: 1 })}>{runningCount ?? '—'}</a>} testId="jobs-running" />
        <Stat label="Jobs pending" value={<a href={href('/jobs', { state: 'PENDING', all: 1 })}>{pendingCount ?? '—'}</a>} testId="jobs-pending" />
      </div>

      <h2>Node map <small className="muted" data-testid="node-count">{list.length} nodes</small></h2>
      <Legend />
      {nodes.isLoading && <Loading what="nodes" />}
      <div className="map" data-testid="node-map">
        {groups.map((g) => (
          <div className="block" key={g.block} data-testid="map-block" data-block={g.block}>
            <h3>{g.block}</h3>
            <div className="switches">
              {g.switches.map((s) => (
                <div className="switch" key={s.name} data-testid="map-switch" data-switch={s.name}>
                  <h4>{s.name}</h4>
                  <div className="cells">{s.nodes.map((n) => <NodeCell key={n.name} node={n} />)}</div>
                </div>
              ))}
            </div>
          </div>
        ))}
      </div>

      <h2>Scheduler</h2>
      {diag.error ? <p className="muted" data-testid="diag-unavailable">Scheduler statistics are not available.</p> : (
        <dl className="facts" data-testid="diag">
          <dt>Cycles</dt><dd data-testid="diag-cycles">{diag.data?.cycles ?? '—'}</dd>
          <dt>Last cycle</dt><dd>{fmtMs(diag.data?.lastCycleMs)}</dd>
          <dt>Mean cycle</dt><dd>{fmtMs(diag.data?.meanCycleMs)}</dd>
          <dt>Max cycle</dt><dd>{fmtMs(diag.data?.maxCycleMs)}</dd>
          <dt>Submitted</dt><dd>{diag.data?.jobsSubmitted ?? '—'}</dd>
          <dt>Started</dt><dd>{diag.data?.jobsStarted ?? '—'}</dd>
          <dt>Backfilled</dt><dd>{diag.data?.jobsBackfilled ?? '—'}</dd>
          <dt>Completed</dt><dd>{diag.data?.jobsCompleted ?? '—'}</dd>
          <dt>Leader</dt><dd>{diag.data?.leader === undefined ? '—' : String(diag.data.leader)}</dd>
        </dl>
      )}
    </section>
  );
}

function fmtMs(v: number | undefined): string {
  return v === undefined || v === null ? '—' : `${Number(v).toFixed(1)} ms`;
}

export function NodeCell({ node }: { node: ClusterNode }) {
  const total = node.gpus > 0 ? node.gpus : node.cpus;
  const used = node.gpus > 0 ? node.allocGpus : node.allocCpus;
  const pct = total > 0 ? Math.round((used / total) * 100) : 0;
  const unit = node.gpus > 0 ? 'GPUs' : 'CPUs';
  const title = `${node.name}: ${node.state}, ${used}/${total} ${unit} in use${node.reason ? ` — ${node.reason}` : ''}`;
  return (
    <a className={`cell state-${node.state.toLowerCase()}`} href={href(`/nodes/${node.name}`)} title={title} aria-label={title}
      data-testid="node-cell" data-node={node.name} data-state={node.state}>
      <span className="cell-fill" style={{ height: `${pct}%` }} />
      <span className="cell-name">{shortName(node.name)}</span>
    </a>
  );
}

/** gpu001 -> g1, cpu012 -> c12: short enough for a cell, still telling the kinds apart. */
export function shortName(name: string): string {
  const m = name.match(/^([A-Za-z])[A-Za-z-]*0*(\d+)$/);
  return m ? `${m[1]}${m[2]}` : name.slice(-4);
}

function Legend() {
  return (
    <ul className="legend" aria-label="Legend">
      {['IDLE', 'MIXED', 'ALLOCATED', 'DRAINING', 'DRAINED', 'DOWN'].map((s) => (
        <li key={s}><span className={`swatch state-${s.toLowerCase()}`} />{s.toLowerCase()}</li>
      ))}
      <li className="muted">fill = share of GPUs (CPUs on CPU nodes) in use</li>
    </ul>
  );
}
