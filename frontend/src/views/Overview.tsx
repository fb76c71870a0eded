import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ClusterNode } from '../api/types';
import { Chart } from '../charts/Chart';
import { groupNodes, gpuSummary, jobsByBlock, type BlockJobs, type GpuSummary } from '../lib/cluster';
import { fallbackPoll } from '../lib/live';
import { href } from '../lib/router';
import { addSample, clusterGpuSeries, idleCauseTotals, loadSamples, samplesSeries, saveSamples, type GpuSeries } from '../lib/utilization';
import type { UtilizationReport } from '../api/types';
import { ErrorBox, Loading, Stat } from './common';
import { MyWork } from './MyWork';
import { nodeMarks } from '../lib/mywork';
import { formatTime } from '../lib/format';

/** Past this many nodes the map draws compact cells without names: 1,000 cells stay on one screen. */
const DENSE_AT = 200;

export function Overview() {
  const nodes = useQuery({ queryKey: ['nodes', 'all'], queryFn: () => api.allNodes(), refetchInterval: fallbackPoll(15000) });
  const topology = useQuery({ queryKey: ['topology'], queryFn: api.topology, refetchInterval: fallbackPoll(60000) });
  const diag = useQuery({ queryKey: ['diag'], queryFn: api.diag });
  const pending = useQuery({ queryKey: ['jobs', 'count', 'PENDING'], queryFn: () => api.jobs({ state: 'PENDING', size: 1 }) });
  const running = useQuery({ queryKey: ['jobs', 'count', 'RUNNING'], queryFn: () => api.jobs({ state: 'RUNNING', size: 1 }) });
  const hasBlocks = (topology.data?.blocks.length ?? 0) > 0;
  const inBlocks = useQuery({
    queryKey: ['jobs', 'RUNNING', 'blocks'], queryFn: () => api.jobs({ state: 'RUNNING', size: 1000 }),
    refetchInterval: fallbackPoll(15000), enabled: hasBlocks,
  });
  const blockJobs = useMemo(() => jobsByBlock(inBlocks.data?.items ?? []), [inBlocks.data]);

  const list = useMemo(() => nodes.data?.items ?? [], [nodes.data]);
  const gpus = useMemo(() => gpuSummary(list), [list]);
  const groups = useMemo(() => groupNodes(list, topology.data), [list, topology.data]);
  const dense = list.length > DENSE_AT;
  const pendingCount = pending.data?.total ?? diag.data?.pending;
  const runningCount = running.data?.total ?? diag.data?.running;

  return (
    <section aria-labelledby="overview-title" data-testid="view-overview">
      <h1 id="overview-title">Cluster overview</h1>
      <MyWork />
      <ErrorBox error={nodes.error} />
      <div className="stats">
        <Stat label="GPUs allocated" value={gpus.allocated} testId="gpus-allocated" tone="alloc" />
        <Stat label="GPUs idle" value={gpus.idle} testId="gpus-idle" tone="idle" />
        <Stat label="GPUs drained" value={gpus.drained} testId="gpus-drained" tone="drain" />
        <Stat label="GPUs down" value={gpus.down} testId="gpus-down" tone="down" />
        {gpus.poweredDown > 0 && <Stat label="GPUs powered down" value={gpus.poweredDown} testId="gpus-powered-down" tone="powered" />}
        <Stat label="Jobs running" value={<a href={href('/jobs', { state: 'RUNNING', all: 1 })}>{runningCount ?? '—'}</a>} testId="jobs-running" />
        <Stat label="Jobs pending" value={<a href={href('/jobs', { state: 'PENDING', all: 1 })}>{pendingCount ?? '—'}</a>} testId="jobs-pending" />
      </div>

      <GpuHistory now={gpus} ready={nodes.isSuccess} />

      <h2 id="map-title">Node map <small className="muted" data-testid="node-count">{list.length} nodes</small></h2>
      <Legend />
      {dense && <a className="skip-inline" href="#scheduler-title" onClick={(e) => { e.preventDefault(); document.getElementById('scheduler-title')?.focus(); }}>Skip past the {list.length} nodes</a>}
      {nodes.isLoading && <Loading what="nodes" />}
      <div className={`map${dense ? ' dense' : ''}`} data-testid="node-map" aria-labelledby="map-title">
        {groups.map((g) => (
          <div className="block" key={g.block} data-testid="map-block" data-block={g.block}>
            <h3>{g.block} <small className="muted">{count(g.switches.flatMap((s) => s.nodes))}</small></h3>
            <BlockJobsLine jobs={blockJobs.get(g.block)} />
            <div className="switches">
              {g.switches.map((s) => (
                <div className="switch" key={s.name} data-testid="map-switch" data-switch={s.name}>
                  <h4>{s.name} <span className="muted">{count(s.nodes)}</span></h4>
                  <div className="cells">{s.nodes.map((n) => <NodeCell key={n.name} node={n} dense={dense} />)}</div>
                </div>
              ))}
            </div>
          </div>
        ))}
      </div>

      <h2 id="scheduler-title" tabIndex={-1}>Scheduler</h2>
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

/** Which jobs run in a block, and whether one has it whole (--exclusive=topo). */
function BlockJobsLine({ jobs }: { jobs?: BlockJobs }) {
  if (!jobs || jobs.jobs.length === 0) return null;
  const shown = jobs.jobs.slice(0, 8);
  return (
    <p className="muted block-jobs" data-testid="map-block-jobs">
      {jobs.heldBy
        ? <>Whole block: job <a href={href(`/jobs/${jobs.heldBy}`)}>{jobs.heldBy}</a> (--exclusive=topo)</>
        : <>Jobs {shown.map((id, k) => <span key={id}>{k > 0 ? ', ' : ''}<a href={href(`/jobs/${id}`)}>{id}</a></span>)}
          {jobs.jobs.length > shown.length ? ` and ${jobs.jobs.length - shown.length} more` : ''}</>}
    </p>
  );
}

function fmtMs(v: number | undefined): string {
  return v === undefined || v === null ? '—' : `${Number(v).toFixed(1)} ms`;
}

/** "32 nodes · 40/256 GPUs in use" under a block or switch name. */
function count(nodes: ClusterNode[]): string {
  const gpus = nodes.reduce((a, n) => a + n.gpus, 0);
  const used = nodes.reduce((a, n) => a + n.allocGpus, 0);
  return `${nodes.length} node${nodes.length === 1 ? '' : 's'}${gpus ? ` · ${used}/${gpus} GPUs in use` : ''}`;
}

/**
 * GPUs by state over the last 24 h: from the controller's hourly utilization report when it has
 * one, else from what this tab has seen since it opened (sampled every 30 s into sessionStorage).
 */
function GpuHistory({ now, ready }: { now: GpuSummary; ready: boolean }) {
  const [end] = useState(() => new Date(Math.ceil(Date.now() / 3600_000) * 3600_000));
  const report = useQuery({
    queryKey: ['utilization', 'cluster', end.toISOString()],
    queryFn: () => api.utilization({ start: new Date(end.getTime() - 24 * 3600_000).toISOString(), end: end.toISOString(), groupBy: 'cluster', interval: 'hour' }),
    refetchInterval: 300_000,
  });
  const [samples, setSamples] = useState(loadSamples);
  useEffect(() => {
    if (!ready) return;
    setSamples((previous) => { const next = addSample(previous, now, Date.now()); saveSamples(next); return next; });
  }, [now, ready]);

  const fromReport = !!report.data && report.data.buckets.some((b) => b.gpuHours?.total > 0);
  const series: GpuSeries = fromReport ? clusterGpuSeries(report.data!, now.total) : samplesSeries(samples);
  const option = useMemo(() => gpuChartOption(series, !!fromReport, end.getTime()), [JSON.stringify(series), fromReport, end]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <div className="card chart-card" data-testid="gpu-history" data-source={fromReport ? 'report' : 'samples'}>
      <h2>GPUs over the last 24 hours</h2>
      <p className="muted small">
        {fromReport ? 'GPUs in each state per hour, from the utilization report (down includes drained).'
          : report.error ? 'The utilization report is not available; since this tab opened, sampled every 30 s.'
            : 'Since this tab opened, sampled every 30 s, until the utilization report answers.'}
      </p>
      <Chart option={option} height={200} label="GPUs allocated, idle, drained and down over the last 24 hours" testId="gpu-history-chart" />
      {report.data && <IdleCauseBreakdown report={report.data} />}
      {report.data && <AllocatedIdleSummary report={report.data} />}
    </div>
  );
}

/**
 * Why GPUs were not allocated over the report's 24 h, one bar split by cause (the report's
 * precedence: down, draining, powered down, reserved, limits, topology, fragmented, no demand) and the GPU-hours
 * of each. The causes add up to the non-allocated GPU-hours exactly.
 */
function IdleCauseBreakdown({ report }: { report: UtilizationReport }) {
  const causes = idleCauseTotals(report);
  if (!causes) return null;
  const idle = causes.reduce((a, c) => a + c.hours, 0);
  return (
    <div className="idle-causes" data-testid="idle-causes">
      <h3>Why GPUs were not allocated <span className="muted small">({fmtHours(idle)} GPU-hours)</span></h3>
      <div className="idle-bar" role="img" aria-label={causes.map((c) => `${c.label} ${fmtHours(c.hours)} GPU-hours`).join(', ')}>
        {causes.filter((c) => c.share > 0).map((c) => (
          <span key={c.key} title={`${c.label}: ${fmtHours(c.hours)} GPU-hours`} style={{ width: `${c.share * 100}%`, background: c.color }} />
        ))}
      </div>
      <ul className="legend">
        {causes.map((c) => (
          <li key={c.key} title={c.help} data-testid={`idle-cause-${c.key}`}>
            <span className="swatch" style={{ background: c.color }} />
            {c.label}: {fmtHours(c.hours)} GPU-h{idle > 0 ? ` (${Math.round(c.share * 100)}%)` : ''}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The waste inside the allocated GPU-hours (issue 33): how many of the window's allocated GPU-hours the
 * nodes' nvidia-smi readings found below the idle threshold, and the jobs that wasted most, each a link
 * to its page (where its GPU use is charted). Shown once some GPU was measured.
 */
function AllocatedIdleSummary({ report }: { report: UtilizationReport }) {
  const idle = report.allocatedIdle;
  if (!idle || !(idle.measuredGpuHours > 0)) return null;
  const jobs = (idle.byJob ?? []).filter((j) => j.idleGpuHours > 0).slice(0, 5);
  return (
    <div className="allocated-idle" data-testid="allocated-idle">
      <h3>Allocated but idle <span className="muted small">({fmtGpuTime(idle.gpuHours)} of {fmtGpuTime(idle.measuredGpuHours)} measured read below {idle.thresholdPercent} %)</span></h3>
      {jobs.length > 0 && (
        <ol className="idle-jobs" aria-label="Jobs whose GPUs were idle longest">
          {jobs.map((j) => (
            <li key={j.name} data-testid="allocated-idle-job" data-job={j.name}>
              <a href={`#/jobs/${j.name}`}>Job {j.name}</a>: {fmtGpuTime(j.idleGpuHours)} idle of {fmtGpuTime(j.measuredGpuHours)}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** GPU time: GPU-hours, or GPU-minutes below a tenth of an hour. */
function fmtGpuTime(h: number): string {
  return h < 0.1 ? `${Math.round(h * 60)} GPU-min` : `${fmtHours(h)} GPU-h`;
}

function fmtHours(h: number): string {
  return h >= 100 ? Math.round(h).toLocaleString() : (Math.round(h * 10) / 10).toString();
}

function gpuChartOption(s: GpuSeries, fromReport: boolean, end: number) {
  const area = (name: string, data: number[], color: string) => ({
    name, type: 'line', stack: 'gpus', areaStyle: { opacity: 0.8 }, step: 'end', color,
    // a controller that just started has a point or two: show them, a line needs more
    symbol: s.times.length < 3 ? 'circle' : 'none',
    lineStyle: { width: 1 }, data: s.times.map((t, i) => [t, data[i]]),
  });
  return {
    grid: { left: 40, right: 12, top: 30, bottom: 24 },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, textStyle: { fontSize: 11 } },
    xAxis: { type: 'time', min: end - 24 * 3600_000, max: end },
    yAxis: { type: 'value', minInterval: 1, name: 'GPUs' },
    series: [area('allocated', s.allocated, '#c2410c'), area('idle', s.idle, '#3aa56a'), area(fromReport ? 'reserved' : 'drained', s.drained, '#6d28d9'),
      area(fromReport ? 'down or drained' : 'down', s.down, '#b91c1c')],
  };
}

export function NodeCell({ node, dense }: { node: ClusterNode; dense?: boolean }) {
  const total = node.gpus > 0 ? node.gpus : node.cpus;
  const used = node.gpus > 0 ? node.allocGpus : node.allocCpus;
  const pct = total > 0 ? Math.round((used / total) * 100) : 0;
  const unit = node.gpus > 0 ? 'GPUs' : 'CPUs';
  const marks = nodeMarks(node, formatTime);
  const title = `${node.name}: ${node.state}, ${used}/${total} ${unit} in use${node.reason ? ` — ${node.reason}` : ''}`
    + marks.map((m) => ` — ${m.text}`).join('');
  return (
    // The name spoken starts with the one shown (g1), so that what a voice-control user reads out names the link
    <a className={`cell state-${node.state.toLowerCase()}${dense ? ' dense' : ''}`} href={href(`/nodes/${node.name}`)} title={title}
      aria-label={dense ? title : `${shortName(node.name)}, ${title}`}
      data-testid="node-cell" data-node={node.name} data-state={node.state}
      data-marks={marks.map((m) => m.kind).join(' ') || undefined}>
      <span className="cell-fill" style={{ height: `${pct}%` }} />
      {!dense && <span className="cell-name">{shortName(node.name)}</span>}
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
      {['IDLE', 'MIXED', 'ALLOCATED', 'DRAINING', 'DRAINED', 'DOWN', 'POWERED_DOWN', 'POWERING_UP', 'POWERING_DOWN'].map((s) => (
        <li key={s}><span className={`swatch state-${s.toLowerCase()}`} />{s.toLowerCase().replace('_', ' ')}</li>
      ))}
      <li className="muted">fill = share of GPUs (CPUs on CPU nodes) in use</li>
    </ul>
  );
}
