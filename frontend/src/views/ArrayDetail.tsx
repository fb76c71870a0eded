import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Job } from '../api/types';
import { arrayLabel, countByState } from '../lib/arrays';
import { useAuth } from '../lib/auth';
import { formatDuration, formatTime, isActive } from '../lib/format';
import { whyPending } from '../lib/pending';
import { href } from '../lib/router';
import { ConfirmButton, ErrorBox, Loading, StateBadge } from './common';
import { actedOn, useNow } from './Jobs';
import { elapsedSeconds, timeLeftSeconds } from '../lib/columns';

/** Every task of an array, page after page (a page holds at most 1,000; arrays may hold more). */
async function allTasks(arrayJobId: string): Promise<Job[]> {
  const tasks: Job[] = [];
  for (let page = 0; ; page++) {
    const answer = await api.jobs({ arrayJobId, sort: 'id', size: 1000, page });
    tasks.push(...answer.items);
    if (answer.items.length < 1000 || tasks.length >= answer.total) return tasks;
  }
}

type Action = 'cancel' | 'hold' | 'release';

/**
 * An array as one thing (#/jobs/18): its tasks summed up by state, a table of every task, and
 * cancel, hold and release of the whole array (the API acts on every task of id 18, not only
 * those shown), of the selected tasks, or of one.
 */
export function ArrayDetail({ id, first }: { id: string; first: Job }) {
  const { me, operator } = useAuth();
  const queryClient = useQueryClient();
  const now = useNow(1000);
  const tasks = useQuery({ queryKey: ['jobs', 'array', id], queryFn: () => allTasks(id) });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const list = tasks.data ?? [];
  const mayAct = operator || first.user === me?.username;
  const active = list.filter((t) => isActive(t.state));
  const pending = list.filter((t) => t.state === 'PENDING');
  const held = pending.filter((t) => t.reason === 'JobHeldUser' || t.reason === 'JobHeldAdmin');

  async function act(action: Action, targets: string[], what: string) {
    setError(null);
    const results = await Promise.allSettled(targets.map((t) => api[action](t)));
    const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [`${targets[i]}: ${(r.reason as Error).message}`] : []));
    const reached = results.reduce((n, r) => n + (r.status === 'fulfilled' ? actedOn(r.value) : 0), 0);
    setOutcome(`${action} ${what}: ${reached} task${reached === 1 ? '' : 's'}${failed.length ? ` — failed: ${failed.join('; ')}` : ''}`);
    if (failed.length) setError(new Error(failed.join('; ')));
    setSelected(new Set());
    void queryClient.invalidateQueries({ queryKey: ['jobs'] });
    void queryClient.invalidateQueries({ queryKey: ['job'] });
  }

  const key = (t: Job) => t.id ?? `${id}_${t.arrayTaskId}`;
  const chosen = [...selected];
  const allChecked = list.length > 0 && list.every((t) => selected.has(key(t)));

  return (
    <section aria-labelledby="array-title" data-testid="view-array" data-array-id={id}>
      <div className="heading">
        <h1 id="array-title">Array <span data-testid="array-id">{id}</span> {first.name && <small className="muted">{first.name}</small>}</h1>
      </div>
      {tasks.isLoading && <Loading what={`the tasks of array ${id}`} />}
      <ErrorBox error={tasks.error} />
      {tasks.data && (
        <div className="card" data-testid="array-summary">
          <h2 className="sr-only">Tasks by state</h2>
          <p data-testid="array-summary-label">{arrayLabel(id, list)}</p>
          <ul className="state-counts">
            {countByState(list).map(([state, n]) => (
              <li key={state} data-testid="array-count" data-state={state}><StateBadge state={state} /> <strong>{n}</strong></li>
            ))}
          </ul>
          <p className="muted">{first.user} · {first.partition ?? 'default partition'} · time limit {formatDuration(first.timeLimitSeconds)}
            {pending.length > 0 && pending[0].reason ? <> · pending tasks: {whyPending(pending[0].reason, null, { formatTime }).sentence}</> : null}</p>
        </div>
      )}
      {mayAct && tasks.data && (
        <div className="actions" role="toolbar" aria-label="Actions on the whole array">
          <ConfirmButton label={`Cancel the whole array (${active.length} active)`} confirmLabel={`Yes, cancel all ${active.length} active tasks`}
            danger testId="array-cancel" disabled={!active.length} onConfirm={() => act('cancel', [id], 'array')} />
          <button type="button" data-testid="array-hold" disabled={pending.length === held.length} onClick={() => act('hold', [id], 'array')}>Hold all pending</button>
          <button type="button" data-testid="array-release" disabled={!held.length} onClick={() => act('release', [id], 'array')}>Release all held</button>
        </div>
      )}
      {outcome && <p role="status" data-testid="array-outcome">{outcome}</p>}
      <ErrorBox error={error} testId="array-action-error" />
      {tasks.data && (
        <div className="card">
          <h2>Tasks</h2>
          {mayAct && (
            <div className="bulk" role="toolbar" aria-label="Actions on the selected tasks">
              <span className="muted" data-testid="array-selected">{chosen.length} selected</span>
              <button type="button" className="danger" disabled={!chosen.length} data-testid="tasks-cancel" onClick={() => act('cancel', chosen, 'selected')}>Cancel</button>
              <button type="button" disabled={!chosen.length} data-testid="tasks-hold" onClick={() => act('hold', chosen, 'selected')}>Hold</button>
              <button type="button" disabled={!chosen.length} data-testid="tasks-release" onClick={() => act('release', chosen, 'selected')}>Release</button>
            </div>
          )}
          <div className="table-wrap">
            <table className="table compact" data-testid="array-tasks">
              <thead>
                <tr>
                  {mayAct && <th scope="col"><input type="checkbox" aria-label="Select every task" checked={allChecked}
                    onChange={() => setSelected(allChecked ? new Set() : new Set(list.map(key)))} /></th>}
                  <th scope="col">Task</th><th scope="col">State</th><th scope="col">Nodes / reason</th>
                  <th scope="col">Elapsed</th><th scope="col" className="wide">Time left</th><th scope="col" className="wide">Started</th>
                </tr>
              </thead>
              <tbody>
                {list.map((t) => {
                  const k = key(t);
                  const ran = elapsedSeconds(t, now), left = timeLeftSeconds(t, now);
                  return (
                    <tr key={k} data-testid="array-task" data-task-id={k} data-state={t.state}>
                      {mayAct && <td><input type="checkbox" aria-label={`Select task ${k}`} checked={selected.has(k)} data-testid={`task-select-${k}`}
                        onChange={() => setSelected((s) => { const n = new Set(s); if (n.has(k)) n.delete(k); else n.add(k); return n; })} /></td>}
                      <td><a href={href(`/jobs/${k}`)}>{k}</a></td>
                      <td><StateBadge state={t.state} /></td>
                      <td>{t.state === 'PENDING' ? t.reason ?? 'None' : t.allocatedNodes ?? ''}</td>
                      <td>{ran == null ? '' : formatDuration(ran)}</td>
                      <td className="wide">{left == null ? '' : formatDuration(left)}</td>
                      <td className="wide">{formatTime(t.startTime)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </div>
      )}
      <p><a href={href(`/jobs/${first.id ?? `${id}_${first.arrayTaskId}`}`)}>Task {first.arrayTaskId}</a> · <a href={href('/jobs', { arrayJobId: id, all: 1 })}>tasks in the jobs list</a></p>
    </section>
  );
}
