import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { PRIORITY_FACTORS, type Job, type PriorityFactor, type PriorityList } from '../api/types';
import { queuePosition } from '../lib/accounting';
import { useAuth } from '../lib/auth';
import { dependencyParts, untilRanked, whyPending } from '../lib/pending';
import { formatBytes, formatCpuTime, formatDuration, formatMemory, formatTime, isActive } from '../lib/format';
import { href } from '../lib/router';
import { fallbackPoll } from '../lib/live';
import { sortSteps, stepCommand, stepExit } from '../lib/steps';
import { outputPath, requestedNodes } from '../lib/outputPath';
import { ArrayDetail } from './ArrayDetail';
import { ConfirmAction } from './admin/Confirm';
import { ErrorBox, Loading, StateBadge } from './common';
import { UndoStatus } from './Undo';
import { undoStore } from '../lib/undo';
import { JobGpuUsage } from './JobGpuUsage';
import { JobOutput } from './JobOutput';
import { JobWhatIf } from './JobWhatIf';
import { useNow } from './Jobs';

/** How often the page is polled while the event stream is down. */
const FALLBACK_MS = 3000;
/** How often the queue's priorities (a heavier read: every pending job) are polled while the stream is down. */
const PRIORITY_FALLBACK_MS = 10_000;

export function JobDetail({ id, warnings }: { id: string; warnings?: string | null }) {
  const { me, operator } = useAuth();
  const queryClient = useQueryClient();
  // The event stream names this job whenever it changes state, a step starts or ends, or the
  // scheduler changes its pending reason or moves its expected start by a minute (and a tenth of
  // the wait) or more
  // (REPLANNED): then its page (and but for REPLANNED its history and steps) is refreshed
  // (lib/live.ts), and nothing is polled while the stream is open. The queue's priorities are
  // re-read on any job's message (and every few seconds until the last pass has ranked this job).
  // Without the stream, everything is polled.
  const job = useQuery({ queryKey: ['job', id], queryFn: () => api.job(id), refetchInterval: fallbackPoll(FALLBACK_MS) });
  // #/jobs/18 of an array shows the array (ArrayDetail, which reads what it needs): none of one job's queries.
  // Its summary is asked beside the job (a job that is no array has none), so a big array's page shows it
  // without waiting for the job first.
  const summary = useQuery({ queryKey: ['array', id, 'summary'], queryFn: () => api.arraySummary(id),
    enabled: !id.includes('_'), refetchInterval: false, retry: false });
  const array = !id.includes('_') && ((summary.data?.tasks ?? 0) > 0 || job.data?.arrayJobId != null);
  const events = useQuery({ queryKey: ['jobEvents', id], queryFn: () => api.jobEvents(id), refetchInterval: fallbackPoll(FALLBACK_MS),
    enabled: !!job.data && !array });
  const steps = useQuery({ queryKey: ['jobSteps', id], queryFn: () => api.jobSteps(id), refetchInterval: fallbackPoll(FALLBACK_MS),
    enabled: !!job.data && !array && job.data.state !== 'PENDING' });
  const [actionError, setActionError] = useState<unknown>(null);
  const pending = job.data?.state === 'PENDING';
  const now = useNow(job.data?.state === 'RUNNING' ? 1000 : 0);
  // sprio's view of the queue: every pending job's priority and factors from the last cycle.
  // Only for a job that waits its turn (a held or dependent one has no place in the queue yet).
  const ranked = pending && whyPending(job.data?.reason, job.data?.expectedStartTime).ranked;
  const priority = useQuery({
    queryKey: ['jobs', 'priority'], queryFn: api.priority, enabled: ranked && !array,
    refetchInterval: (q) => fallbackPoll(PRIORITY_FALLBACK_MS)() || untilRanked(q.state.data, id),
  });
  if (array && summary.data) return <ArrayDetail id={id} first={job.data} />;
  if (job.isLoading) return <Loading what={`job ${id}`} />;
  if (job.error) {
    return (
      <section data-testid="view-job">
        <h1>Job {id}</h1>
        {job.error instanceof ApiError && job.error.status === 404 ? <p>There is no job {id}.</p> : <ErrorBox error={job.error} />}
        <a href={href('/jobs')}>All jobs</a>
      </section>
    );
  }
  const j = job.data!;
  // #/jobs/18 of an array is the array as one thing; #/jobs/18_3 is one task.
  if (array) return <ArrayDetail id={id} first={j} />;
  const mayAct = operator || j.user === me?.username;

  async function act(action: 'cancel' | 'hold' | 'release') {
    setActionError(null);
    try {
      await api[action](id);
      if (action === 'hold') {
        undoStore.offer(`Held job ${id}.`, async () => {
          await api.release(id);
          void queryClient.invalidateQueries({ queryKey: ['job', id] });
          void queryClient.invalidateQueries({ queryKey: ['jobEvents', id] });
          void queryClient.invalidateQueries({ queryKey: ['jobs'] });
        }, `Released job ${id} again.`);
      }
    } catch (e) {
      setActionError(e);
    }
    void queryClient.invalidateQueries({ queryKey: ['job', id] });
    void queryClient.invalidateQueries({ queryKey: ['jobEvents', id] });
    void queryClient.invalidateQueries({ queryKey: ['jobs'] });
  }

  const held = j.state === 'PENDING' && (j.reason === 'JobHeldUser' || j.reason === 'JobHeldAdmin');
  const why = whyPending(j.reason, j.expectedStartTime, { dependency: j.dependency, eligibleTime: j.eligibleTime, formatTime });

  return (
    <section aria-labelledby="job-title" data-testid="view-job">
      <div className="heading">
        <h1 id="job-title">Job <span data-testid="job-id">{id}</span> {j.name && <small className="muted">{j.name}</small>}</h1>
        <StateBadge state={j.state} testId="job-state" />
      </div>
      {mayAct && (
        <div className="actions" role="toolbar" aria-label="Job actions" data-testid="job-actions">
          {isActive(j.state) && <ConfirmAction label="Cancel" title={`Cancel job ${id}?`} confirmLabel="Yes, cancel the job" testId="job-cancel"
            message="This cannot be undone: a cancelled job stays cancelled (submit it again to rerun it)." onConfirm={() => act('cancel')} />}
          {j.state === 'PENDING' && !held && <button type="button" data-testid="job-hold" onClick={() => act('hold')}>Hold</button>}
          {held && <button type="button" data-testid="job-release" onClick={() => act('release')}>Release</button>}
        </div>
      )}
      <UndoStatus />
      <ErrorBox error={actionError} testId="job-action-error" />
      {warnings && (
        <div className="callout" role="status" data-testid="submit-warnings">
          <strong>Submitted with warnings:</strong>
          <ul>{warnings.split(' | ').map((w) => <li key={w}>{w}</li>)}</ul>
        </div>
      )}

      {j.state === 'PENDING' && (
        <div className="callout" data-testid="pending-explanation">
          <h2 className="callout-title">Why is it pending, and when will it start?</h2>
          <p data-testid="pending-reason" data-reason={j.reason ?? 'None'}>{why.sentence}</p>
          <p className="muted">Reason code <code data-testid="pending-reason-code">{j.reason ?? 'None'}</code>
            {why.at ? <> · expected start <time dateTime={why.at} data-testid="expected-start">{formatTime(why.at)}</time></> : null}</p>
          {why.ranked
            ? <PriorityExplained id={id} partition={j.partition} list={priority.data} error={priority.error} loading={priority.isLoading} />
            : <p className="muted" data-testid="priority-unranked">Its place in the queue matters only once this reason is gone.</p>}
        </div>
      )}

      <div className="grid2">
        <div className="card">
          <h2>Job</h2>
          <dl className="facts">
            <dt>User</dt><dd data-testid="job-user">{j.user}</dd>
            <dt>Account</dt><dd>{j.account ?? '—'}</dd>
            <dt>Partition</dt><dd>{j.partition ?? '—'}</dd>
            <dt>QOS</dt><dd>{j.qos ?? '—'}</dd>
            <dt>Submitted</dt><dd>{formatTime(j.submitTime)}</dd>
            <dt>Started</dt><dd>{formatTime(j.startTime)}</dd>
            <dt>Ended</dt><dd>{formatTime(j.endTime)}</dd>
            <dt>Exit code</dt><dd data-testid="job-exit-code">{j.exitCode ?? '—'}</dd>
            {j.maxRssBytes != null && <><dt>Max memory</dt><dd data-testid="job-max-rss">{formatBytes(j.maxRssBytes)}</dd></>}
            {j.totalCpuMillis != null && <><dt>CPU time</dt><dd data-testid="job-cpu-time">{formatCpuTime(j.totalCpuMillis)}</dd></>}
            {j.dependency && <><dt>Dependency</dt><dd data-testid="job-dependency">{dependencyParts(j.dependency).map((p, i) => (p.job
              ? <a key={i} href={href(`/jobs/${p.job}`)}>{p.text}</a> : <span key={i}>{p.text}</span>))}</dd></>}
            {(j.exclusive || j.exclusiveMode) && <><dt>Exclusive</dt><dd data-testid="job-exclusive">{j.exclusiveMode ? `--exclusive=${j.exclusiveMode}${j.exclusiveMode === 'topo' ? ' (its blocks to itself)' : ''}` : 'whole nodes'}</dd></>}
            {j.blocks && j.blocks.length > 0 && <><dt>Blocks</dt><dd className="mono" data-testid="job-blocks">{j.blocks.join(', ')}</dd></>}
            {j.arrayJobId != null && <><dt>Array</dt><dd><a href={href('/jobs', { arrayJobId: j.arrayJobId, all: 1 })}>{j.arrayJobId}</a> task {j.arrayTaskId}</dd></>}
            {j.container && <><dt>Container</dt><dd className="mono" data-testid="job-container">
              {j.container.image ?? (j.container.bundle ? `bundle ${j.container.bundle}` : j.container.name)}
              {j.container.image && <div className="muted" data-testid="job-container-digest"
                title="The digest its image resolved to on its batch host">{j.containerImageDigest ?? (isActive(j.state) ? 'digest not known yet' : '—')}</div>}
            </dd></>}
            <dt>Output</dt><dd className="mono" data-testid="job-stdout" title={j.stdout ?? undefined}>{outputPath(j.stdout, j) ?? '—'}</dd>
            <dt>Errors</dt><dd className="mono" data-testid="job-stderr" title={j.stderr ?? undefined}>{outputPath(j.stderr, j) ?? '—'}</dd>
          </dl>
        </div>
        <div className="card">
          <h2>Requested vs allocated</h2>
          <table className="table compact" data-testid="resources">
            <thead><tr><th scope="col"><span className="sr-only">Resource</span></th><th scope="col">Requested</th><th scope="col">Allocated</th></tr></thead>
            <tbody>
              <tr><th scope="row">Nodes</th><td data-testid="req-nodes">{requestedNodes(j)}</td><td data-testid="alloc-nodes">{j.allocation?.length ?? 0}{j.allocatedNodes ? ` (${j.allocatedNodes})` : ''}</td></tr>
              <tr><th scope="row">CPUs</th><td>{(j.tasks ?? 1) * (j.cpusPerTask ?? 1)}</td><td>{sum(j.allocation?.map((a) => a.cpus))}</td></tr>
              <tr><th scope="row">Memory</th><td>{j.memoryMb ? formatMemory(j.memoryMb) : 'partition default'}</td><td data-testid="alloc-memory">{j.allocation?.length ? formatMemory(sum(j.allocation.map((a) => a.memoryMb))) : '—'}</td></tr>
              <tr><th scope="row">GPUs</th><td data-testid="req-gpus">{requestedGpus(j)}{j.gpuType ? ` ${j.gpuType}` : ''}</td>
                <td data-testid="alloc-gpus">{sum(j.allocation?.map((a) => a.gpuIndices?.length ?? 0))}</td></tr>
              <tr><th scope="row">Time</th><td>{formatDuration(j.timeLimitSeconds)}</td><td data-testid="job-elapsed">{elapsed(j.startTime, j.endTime, now)}</td></tr>
              {j.state === 'RUNNING' && j.timeLimitSeconds != null && j.startTime && (
                <tr><th scope="row">Time left</th><td></td><td data-testid="job-time-left">{formatDuration(Math.max(0, j.timeLimitSeconds - (now - new Date(j.startTime).getTime()) / 1000))}</td></tr>
              )}
            </tbody>
          </table>
          {j.allocation && j.allocation.length > 0 && (
            <table className="table compact" data-testid="allocation">
              <thead><tr><th scope="col">Node</th><th scope="col">CPUs</th><th scope="col">Memory</th><th scope="col">GPU indices</th></tr></thead>
              <tbody>
                {j.allocation.map((a) => (
                  <tr key={a.node} data-testid="alloc-row" data-node={a.node}>
                    <td><a href={href(`/nodes/${a.node}`)} data-testid="alloc-node">{a.node}</a></td>
                    <td>{a.cpus}</td><td>{formatMemory(a.memoryMb)}</td>
                    <td data-testid="alloc-gpu-indices">{a.gpuIndices?.length ? a.gpuIndices.join(',') : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>

      <JobOutput job={j} />
      <JobGpuUsage job={j} />
      {j.state !== 'PENDING' && (
        <div className="card">
          <h2>Steps</h2>
          {steps.error ? <ErrorBox error={steps.error} testId="job-steps-error" /> : (
            <div className="scroll-x" tabIndex={0}>
            <table className="table compact" data-testid="job-steps">
              <thead>
                <tr><th scope="col">Step</th><th scope="col">Name</th><th scope="col">Nodes</th><th scope="col">Tasks</th>
                  <th scope="col">State</th><th scope="col">Exit code</th><th scope="col">Start</th><th scope="col">End</th></tr>
              </thead>
              <tbody>
                {sortSteps(steps.data ?? []).map((s) => (
                  <tr key={s.stepId} data-testid="job-step" data-step={s.stepId}>
                    <td className="mono">{s.id}</td>
                    <td title={stepCommand(s)}>{s.name ?? '—'}
                      {s.containerImage ? <div className="muted mono" data-testid="job-step-image"
                        title={s.containerImageDigest ?? undefined}>{s.containerImage}</div> : null}</td>
                    <td>{s.nodes}{s.nodelist ? <span className="muted"> ({s.nodelist})</span> : null}</td>
                    <td>{s.tasks}</td>
                    <td><StateBadge state={s.state} /></td>
                    <td data-testid="job-step-exit">{stepExit(s)}</td>
                    <td>{formatTime(s.startTime)}</td>
                    <td>{formatTime(s.endTime)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            </div>
          )}
        </div>
      )}

      <div className="card">
        <h2>History</h2>
        {events.error ? <ErrorBox error={events.error} /> : (
          <ol className="timeline" data-testid="job-events">
            {(events.data ?? []).map((e, i) => (
              <li key={i} data-testid="job-event" data-type={e.type}>
                <time dateTime={e.time}>{formatTime(e.time)}</time> <strong>{e.type}</strong> {e.detail}
              </li>
            ))}
          </ol>
        )}
      </div>

      <JobWhatIf job={j} />
      {j.script && (
        <div className="card">
          <h2>Script</h2>
          <pre className="script" data-testid="job-script">{j.script}</pre>
        </div>
      )}
    </section>
  );
}

const FACTOR_NAMES: Record<PriorityFactor, string> = {
  age: 'Age (time waited)', fairShare: 'Fair share', jobSize: 'Job size', partition: 'Partition', qos: 'QOS',
  shortJob: 'Short job', expansion: 'Expansion',
};

/** The job's sprio line in words: its priority, each factor and what it adds, and its place in the queue. */
function PriorityExplained({ id, partition, list, error, loading }: {
  id: string; partition?: string | null; list?: PriorityList; error: unknown; loading: boolean;
}) {
  if (error) return <ErrorBox error={error} testId="priority-error" />;
  if (loading || !list) return <p className="muted">Looking up its priority…</p>;
  const entry = list.jobs.find((e) => String(e.jobId) === id);
  const place = queuePosition(list.jobs, id, partition);
  if (!entry || !place) {
    return <p className="muted" data-testid="priority-unranked">It is not in the priority list of the last pass{list.computedAt ? ` (${formatTime(list.computedAt)})` : ''}; it will be in the next one.</p>;
  }
  const where = entry.partition ?? partition;
  return (
    <div data-testid="priority-section">
      <p data-testid="queue-position">
        It is <strong>number {place.position} of {place.of}</strong> pending job{place.of === 1 ? '' : 's'}{where ? ` in partition ${where}` : ''}
        {place.position === 1 ? ': next in line.' : `; ${place.position - 1} ahead of it, the next with priority ${place.ahead[place.ahead.length - 1].priority}.`}
      </p>
      <table className="table compact factors" data-testid="priority-factors">
        <caption>Priority <strong data-testid="priority-value">{entry.priority}</strong>{list.computedAt ? <span className="muted"> · as of {formatTime(list.computedAt)}</span> : null}</caption>
        <thead><tr><th scope="col">Factor</th><th scope="col">Value (0–1)</th><th scope="col">Weight</th><th scope="col">Adds</th></tr></thead>
        <tbody>
          {PRIORITY_FACTORS.map((f) => {
            const value = entry.factors?.[f];
            const weighted = entry.weighted?.[f];
            return (
              <tr key={f} data-testid="priority-factor" data-factor={f}>
                <th scope="row">{FACTOR_NAMES[f]}</th>
                <td>{value == null ? '—' : value.toFixed(3)}</td>
                <td className="muted">{list.weights?.[f] ?? '—'}</td>
                <td data-testid={`weighted-${f}`}>{weighted == null ? '—' : Math.round(weighted)}</td>
              </tr>
            );
          })}
          {entry.nice ? <tr><th scope="row">Nice</th><td></td><td></td><td>−{entry.nice}</td></tr> : null}
        </tbody>
      </table>
    </div>
  );
}

/** GPUs asked for, whichever way: --gpus=N, or --gpus-per-node=G on N nodes. */
function requestedGpus(j: Job): string {
  if (j.gpus) return String(j.gpus);
  if (j.gpusPerNode) return `${j.gpusPerNode * (j.nodes || 1)} (${j.gpusPerNode} per node)`;
  return '0';
}

function sum(values: (number | undefined)[] | undefined): number {
  return (values ?? []).reduce<number>((a, b) => a + (b ?? 0), 0);
}

function elapsed(start: string | null | undefined, end: string | null | undefined, now: number): string {
  if (!start) return '—';
  const s = new Date(start).getTime();
  const e = end ? new Date(end).getTime() : now;
  return formatDuration((e - s) / 1000);
}
