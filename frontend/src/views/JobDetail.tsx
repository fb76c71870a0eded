import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import type { Job } from '../api/types';
import { jobKey } from './Jobs';
import { useAuth } from '../lib/auth';
import { formatDuration, formatMemory, formatTime, isActive, reasonInWords, relative } from '../lib/format';
import { href } from '../lib/router';
import { ConfirmButton, ErrorBox, Loading, StateBadge } from './common';

export function JobDetail({ id, warnings }: { id: string; warnings?: string | null }) {
  const { me, operator } = useAuth();
  const queryClient = useQueryClient();
  const job = useQuery({ queryKey: ['job', id], queryFn: () => api.job(id), refetchInterval: 1000 });
  const events = useQuery({ queryKey: ['jobEvents', id], queryFn: () => api.jobEvents(id), refetchInterval: 2000 });
  const [actionError, setActionError] = useState<unknown>(null);
  const pending = job.data?.state === 'PENDING';
  // The pending queue is answered sorted by priority: the job's place in it is its position.
  const queue = useQuery({
    queryKey: ['jobs', 'queue', job.data?.partition],
    queryFn: () => api.jobs({ state: 'PENDING', partition: job.data?.partition ?? undefined, size: 1000 }),
    enabled: pending,
    refetchInterval: 3000,
  });

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
  const mayAct = operator || j.user === me?.username;

  async function act(action: 'cancel' | 'hold' | 'release') {
    setActionError(null);
    try {
      await api[action](id);
    } catch (e) {
      setActionError(e);
    }
    void queryClient.invalidateQueries({ queryKey: ['job', id] });
    void queryClient.invalidateQueries({ queryKey: ['jobEvents', id] });
    void queryClient.invalidateQueries({ queryKey: ['jobs'] });
  }

  const held = j.state === 'PENDING' && (j.reason === 'JobHeldUser' || j.reason === 'JobHeldAdmin');

  return (
    <section aria-labelledby="job-title" data-testid="view-job">
      <div className="heading">
        <h1 id="job-title">Job <span data-testid="job-id">{id}</span> {j.name && <small className="muted">{j.name}</small>}</h1>
        <StateBadge state={j.state} testId="job-state" />
      </div>
      {mayAct && (
        <div className="actions" role="toolbar" aria-label="Job actions" data-testid="job-actions">
          {isActive(j.state) && <ConfirmButton label="Cancel" confirmLabel="Yes, cancel the job" danger testId="job-cancel" onConfirm={() => act('cancel')} />}
          {j.state === 'PENDING' && !held && <button type="button" data-testid="job-hold" onClick={() => act('hold')}>Hold</button>}
          {held && <button type="button" data-testid="job-release" onClick={() => act('release')}>Release</button>}
        </div>
      )}
      <ErrorBox error={actionError} testId="job-action-error" />
      {warnings && (
        <div className="callout" role="status" data-testid="submit-warnings">
          <strong>Submitted with warnings:</strong>
          <ul>{warnings.split(' | ').map((w) => <li key={w}>{w}</li>)}</ul>
        </div>
      )}

      {j.state === 'PENDING' && (
        <div className="callout" data-testid="pending-explanation">
          <strong>Why is it pending?</strong> <span data-testid="pending-reason">{reasonInWords(j.reason)}</span>
          {' '}({j.reason ?? 'None'})
          <div data-testid="expected-start">
            {j.expectedStartTime
              ? <>Expected to start {relative(j.expectedStartTime)} (at {formatTime(j.expectedStartTime)}).</>
              : <>No expected start time yet.</>}
            {j.priority !== null && j.priority !== undefined && <> Priority {j.priority}.</>}
          </div>
          {queue.data && <QueuePosition id={id} jobs={queue.data.items} total={queue.data.total} partition={j.partition} />}
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
            {j.dependency && <><dt>Dependency</dt><dd>{j.dependency}</dd></>}
            {j.arrayJobId != null && <><dt>Array</dt><dd><a href={href('/jobs', { arrayJobId: j.arrayJobId, all: 1 })}>{j.arrayJobId}</a> task {j.arrayTaskId}</dd></>}
            <dt>Output</dt><dd className="mono">{j.stdout ?? '—'}</dd>
            <dt>Errors</dt><dd className="mono">{j.stderr ?? '—'}</dd>
          </dl>
        </div>
        <div className="card">
          <h2>Requested vs allocated</h2>
          <table className="table compact" data-testid="resources">
            <thead><tr><th scope="col"></th><th scope="col">Requested</th><th scope="col">Allocated</th></tr></thead>
            <tbody>
              <tr><th scope="row">Nodes</th><td>{j.nodes || 'any'}</td><td data-testid="alloc-nodes">{j.allocation?.length ?? 0}{j.allocatedNodes ? ` (${j.allocatedNodes})` : ''}</td></tr>
              <tr><th scope="row">CPUs</th><td>{(j.tasks ?? 1) * (j.cpusPerTask ?? 1)}</td><td>{sum(j.allocation?.map((a) => a.cpus))}</td></tr>
              <tr><th scope="row">Memory</th><td>{formatMemory(j.memoryMb)}</td><td>{formatMemory(sum(j.allocation?.map((a) => a.memoryMb)))}</td></tr>
              <tr><th scope="row">GPUs</th><td>{j.gpus ?? (j.gpusPerNode ? `${j.gpusPerNode}/node` : 0)}{j.gpuType ? ` ${j.gpuType}` : ''}</td>
                <td data-testid="alloc-gpus">{sum(j.allocation?.map((a) => a.gpuIndices?.length ?? 0))}</td></tr>
              <tr><th scope="row">Time</th><td>{formatDuration(j.timeLimitSeconds)}</td><td>{elapsed(j.startTime, j.endTime)}</td></tr>
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

      {j.script && (
        <div className="card">
          <h2>Script</h2>
          <pre className="script" data-testid="job-script">{j.script}</pre>
        </div>
      )}
    </section>
  );
}

function QueuePosition({ id, jobs, total, partition }: { id: string; jobs: Job[]; total: number; partition?: string | null }) {
  const index = jobs.findIndex((x) => jobKey(x) === id || String(x.jobId) === id);
  if (index < 0) return null;
  return (
    <div data-testid="queue-position">
      Position {index + 1} of {total} pending job{total === 1 ? '' : 's'}{partition ? ` in ${partition}` : ''}
      {index > 0 ? `; ${index} ahead of it.` : '; next in line.'}
    </div>
  );
}

function sum(values: (number | undefined)[] | undefined): number {
  return (values ?? []).reduce<number>((a, b) => a + (b ?? 0), 0);
}

function elapsed(start?: string | null, end?: string | null): string {
  if (!start) return '—';
  const s = new Date(start).getTime();
  const e = end ? new Date(end).getTime() : Date.now();
  return formatDuration((e - s) / 1000);
}
