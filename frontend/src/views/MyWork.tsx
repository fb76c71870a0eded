import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { MyWorkRow } from '../api/types';
import { useAuth } from '../lib/auth';
import { fallbackPoll } from '../lib/live';
import { formatTime, relative } from '../lib/format';
import { gpuHours, stateCounts } from '../lib/mywork';
import { href } from '../lib/router';
import { ErrorBox, Loading, Stat, StateBadge } from './common';

/**
 * The signed-in user's own work, first thing on the landing page: what runs, what waits, what ended
 * lately and what failed in the last 24 hours, an array as one row with its tasks counted by state
 * (GET /work folds them in the store), and the user's GPU-hours and fair-share factor. An operator
 * is pointed to every user's jobs as well.
 */
export function MyWork() {
  const { operator } = useAuth();
  const work = useQuery({ queryKey: ['jobs', 'mywork'], queryFn: api.myWork, refetchInterval: fallbackPoll(30000) });
  const w = work.data;
  const factor = (w?.fairShare ?? []).map((f) => `${f.factor == null ? '—' : f.factor.toFixed(2)}${(w?.fairShare?.length ?? 0) > 1 ? ` (${f.account})` : ''}`).join(', ');
  return (
    <section aria-labelledby="mywork-title" data-testid="view-mywork" className="mywork">
      <div className="heading">
        <h2 id="mywork-title">My work</h2>
        <span>
          <a href={href('/jobs')} data-testid="mywork-all-mine">All my jobs</a>
          {operator && <> · <a href={href('/jobs', { all: 1 })} data-testid="mywork-all-jobs">Everyone's jobs</a></>}
        </span>
      </div>
      <ErrorBox error={work.error} />
      {work.isLoading && <Loading what="your jobs" />}
      {w && (
        <>
          <div className="stats">
            <Stat label="Running" value={count(w.active, (r) => r.state !== 'PENDING')} testId="mywork-running" />
            <Stat label="Pending" value={count(w.active, (r) => r.state === 'PENDING')} testId="mywork-pending" />
            <Stat label="Failed, 24 h" value={w.failures.reduce((n, r) => n + r.listed, 0)} testId="mywork-failed" tone={w.failures.length ? 'down' : undefined} />
            <Stat label="GPU-hours, 7 days" value={gpuHours(w.gpuHours7Days)} testId="mywork-gpu-week" />
            <Stat label="GPU-hours, 30 days" value={gpuHours(w.gpuHours30Days)} testId="mywork-gpu-month" />
            <Stat label="Fair-share factor" value={factor || '—'} testId="mywork-fairshare" />
          </div>
          <WorkTable title="Active" rows={w.active} testId="mywork-active" empty="Nothing running or pending." />
          {w.failures.length > 0 && <WorkTable title="Failed in the last 24 hours" rows={w.failures} testId="mywork-failures" empty="" failures />}
          <WorkTable title="Recently ended" rows={w.recent} testId="mywork-recent" empty="No ended jobs yet." />
        </>
      )}
    </section>
  );
}

function count(rows: MyWorkRow[], which: (r: MyWorkRow) => boolean): number {
  return rows.filter(which).reduce((n, r) => n + (r.array ? r.states.filter((s) => which({ ...r, state: s.state })).reduce((a, s) => a + s.tasks, 0) : 1), 0);
}

function WorkTable({ title, rows, testId, empty, failures }: { title: string; rows: MyWorkRow[]; testId: string; empty: string; failures?: boolean }) {
  const id = `${testId}-title`;
  return (
    <>
      <h3 id={id}>{title} <small className="muted">{rows.length}</small></h3>
      <div className="table-wrap" tabIndex={0} role="region" aria-labelledby={id}>
        <table className="table" data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">ID</th><th scope="col">Name</th><th scope="col">State</th>
              <th scope="col">{failures ? 'Failed' : 'Tasks'}</th><th scope="col" className="wide">When</th><th scope="col" className="wide">Nodes</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid="mywork-row" data-job-id={r.id} data-array={r.array ? 'true' : 'false'} data-state={r.state}>
                <td><a href={href(`/jobs/${r.id}`)}>{r.array ? `${r.id} (array)` : r.id}</a></td>
                <td className="ellipsis">{r.name}</td>
                <td className="state-cell"><StateBadge state={r.state} />{r.state === 'PENDING' && r.reason
                  ? <span className="reason">{r.reason}</span> : null}</td>
                <td data-testid="mywork-counts">{failures
                  ? `${r.listed} ${r.array ? `of ${r.tasks} tasks` : ''}${r.exitCode != null ? ` (exit ${r.exitCode})` : ''}`.trim()
                  : r.array ? `${r.tasks} tasks: ${stateCounts(r.states)}` : ''}</td>
                <td className="wide">{when(r)}</td>
                <td className="wide ellipsis">{r.allocatedNodes ?? ''}</td>
              </tr>
            ))}
            {rows.length === 0 && <tr><td colSpan={6} className="muted">{empty}</td></tr>}
          </tbody>
        </table>
      </div>
    </>
  );
}

function when(r: MyWorkRow): string {
  const now = Date.now();
  if (r.endTime) return `ended ${relative(r.endTime, now)}`;
  if (r.startTime) return `started ${relative(r.startTime, now)}`;
  return r.submitTime ? `submitted ${relative(r.submitTime, now)}` : formatTime(undefined);
}
