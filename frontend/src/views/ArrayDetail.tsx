import { useEffect, useRef, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ArraySummary, Job } from '../api/types';
import { useAuth } from '../lib/auth';
import { formatDuration, formatTime, isActive } from '../lib/format';
import { onLiveMessages } from '../lib/live';
import { whyPending } from '../lib/pending';
import { href } from '../lib/router';
import { ConfirmButton, ErrorBox, Loading, StateBadge } from './common';
import { actedOn, useNow } from './Jobs';
import { elapsedSeconds, timeLeftSeconds } from '../lib/columns';

/** Tasks per page of the task table. */
const PAGE_SIZE = 100;
/**
 * At most one re-read of the summary and the page shown this often while tasks change: an array
 * of 100,000 churning tasks sends many messages a second, and each need not cost two requests.
 */
const REFRESH_MS = 10_000;
/** The ended states whose tasks "resubmit the failed tasks" puts back in the queue. */
const FAILED_STATES = ['FAILED', 'TIMEOUT', 'OUT_OF_MEMORY', 'NODE_FAIL'];
const STATE_ORDER = ['RUNNING', 'COMPLETING', 'SUSPENDED', 'PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT',
  'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'DEADLINE'];

type Action = 'cancel' | 'hold' | 'release';
interface Filter { state: string; exitCode: string; node: string }

/**
 * An array as one thing (#/jobs/18), at any size: its tasks summed up by the server first, then a
 * page of its tasks at a time, filtered by state, exit code or node; cancel, hold and release of the
 * whole array (the API acts on every task of id 18), of the selected tasks or of one, and the failed
 * tasks resubmitted. Task changes heard on the event stream re-read the summary and the page shown,
 * at most every {@link REFRESH_MS}.
 */
export function ArrayDetail({ id, first }: { id: string; first?: Job }) {
  const { me, operator } = useAuth();
  const queryClient = useQueryClient();
  const now = useNow(1000);
  const [filter, setFilter] = useState<Filter>({ state: '', exitCode: '', node: '' });
  const [page, setPage] = useState(0);
  const summary = useQuery({ queryKey: ['array', id, 'summary'], queryFn: () => api.arraySummary(id), refetchInterval: false });
  const tasks = useQuery({
    queryKey: ['array', id, 'tasks', filter, page],
    queryFn: () => api.arrayTasks(id, { page, size: PAGE_SIZE, state: filter.state || undefined,
      exitCode: filter.exitCode === '' ? undefined : Number(filter.exitCode), node: filter.node.trim() || undefined }),
    placeholderData: keepPreviousData, refetchInterval: false,
  });
  useArrayFollowsItsTasks(id);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const s = summary.data;
  const list = tasks.data?.items ?? [];
  const count = (...states: string[]) => (s?.states ?? []).filter((c) => states.includes(c.state)).reduce((n, c) => n + c.tasks, 0);
  const active = count('PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETING');
  const pending = count('PENDING');
  const failed = count(...FAILED_STATES);
  const owner = s?.user ?? first?.user;
  const mayAct = operator || owner === me?.username;

  async function act(action: Action | 'requeue', targets: string[], what: string) {
    setError(null);
    const call = (t: string) => (action === 'requeue' ? api.requeue(t, FAILED_STATES.join(',')) : api[action](t));
    const results = await Promise.allSettled(targets.map(call));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [`${targets[i]}: ${(r.reason as Error).message}`] : []));
    const reached = results.reduce((n, r) => n + (r.status === 'fulfilled' ? actedOn(r.value) : 0), 0);
    setOutcome(`${action} ${what}: ${reached} task${reached === 1 ? '' : 's'}${failures.length ? ` — failed: ${failures.join('; ')}` : ''}`);
    if (failures.length) setError(new Error(failures.join('; ')));
    setSelected(new Set());
    void queryClient.invalidateQueries({ queryKey: ['array', id] });
    void queryClient.invalidateQueries({ queryKey: ['jobs'] });
  }

  const key = (t: Job) => t.id ?? `${id}_${t.arrayTaskId}`;
  const chosen = [...selected];
  const allChecked = list.length > 0 && list.every((t) => selected.has(key(t)));
  const matching = tasks.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(matching / PAGE_SIZE));
  const refine = (change: Partial<Filter>) => { setFilter((f) => ({ ...f, ...change })); setPage(0); setSelected(new Set()); };

  return (
    <section aria-labelledby="array-title" data-testid="view-array" data-array-id={id}>
      <div className="heading">
        <h1 id="array-title">Array <span data-testid="array-id">{id}</span> {(s?.name ?? first?.name) && <small className="muted">{s?.name ?? first?.name}</small>}</h1>
      </div>
      {summary.isLoading && <Loading what={`array ${id}`} />}
      <ErrorBox error={summary.error} />
      {s && (
        <div className="card" data-testid="array-summary">
          <h2 className="sr-only">Tasks by state</h2>
          <p data-testid="array-summary-label">{summaryLabel(s)}</p>
          <ul className="state-counts">
            {ordered(s.states).map((c) => (
              <li key={c.state} data-testid="array-count" data-state={c.state}>
                <button type="button" className="link" aria-pressed={filter.state === c.state}
                  onClick={() => refine({ state: filter.state === c.state ? '' : c.state })}>
                  <StateBadge state={c.state} /> <strong>{c.tasks.toLocaleString()}</strong>
                </button>
              </li>
            ))}
          </ul>
          {s.exitCodes.length > 0 && (
            <p className="muted" data-testid="array-exit-codes">Exit codes: {s.exitCodes.map((e) => `${e.exitCode} × ${e.tasks.toLocaleString()}`).join(' · ')}</p>
          )}
          <p className="muted">{s.user} · {s.partition ?? 'default partition'}
            {first && <> · time limit {formatDuration(first.timeLimitSeconds)}</>}
            {pending > 0 && first?.state === 'PENDING' && first.reason ? <> · pending tasks: {whyPending(first.reason, null, { formatTime }).sentence}</> : null}</p>
        </div>
      )}
      {mayAct && s && (
        <div className="actions" role="toolbar" aria-label="Actions on the whole array">
          <ConfirmButton label={`Cancel the whole array (${active.toLocaleString()} active)`}
            confirmLabel={`Yes, cancel all ${active.toLocaleString()} active tasks`}
            danger testId="array-cancel" disabled={!active} onConfirm={() => act('cancel', [id], 'array')} />
          <ConfirmButton label="Hold all pending" confirmLabel={`Yes, hold ${pending.toLocaleString()} pending tasks`} testId="array-hold"
            disabled={!pending} onConfirm={() => act('hold', [id], 'array')} />
          <button type="button" data-testid="array-release" disabled={!pending} onClick={() => act('release', [id], 'array')}>Release all held</button>
          <ConfirmButton label={`Resubmit the failed tasks (${failed.toLocaleString()})`}
            confirmLabel={`Yes, queue ${failed.toLocaleString()} failed tasks again`} testId="array-resubmit-failed"
            disabled={!failed} onConfirm={() => act('requeue', [id], 'failed tasks')} />
        </div>
      )}
      {outcome && <p role="status" data-testid="array-outcome">{outcome}</p>}
      <ErrorBox error={error} testId="array-action-error" />
      <div className="card">
        <h2>Tasks</h2>
        <form className="filters" role="search" aria-label="Filter the tasks" onSubmit={(e) => e.preventDefault()}>
          <label>State{' '}
            <select data-testid="array-filter-state" value={filter.state} onChange={(e) => refine({ state: e.target.value })}>
              <option value="">any</option>
              {ordered(s?.states ?? []).map((c) => <option key={c.state} value={c.state}>{c.state}</option>)}
            </select>
          </label>
          <label>Exit code{' '}
            <select data-testid="array-filter-exit" value={filter.exitCode} onChange={(e) => refine({ exitCode: e.target.value })}>
              <option value="">any</option>
              {(s?.exitCodes ?? []).map((c) => <option key={c.exitCode} value={c.exitCode}>{c.exitCode}</option>)}
            </select>
          </label>
          <label>Node{' '}
            <input data-testid="array-filter-node" value={filter.node} placeholder="any" size={12}
              onChange={(e) => refine({ node: e.target.value })} />
          </label>
        </form>
        <ErrorBox error={tasks.error} />
        {mayAct && (
          <div className="bulk" role="toolbar" aria-label="Actions on the selected tasks">
            <span className="muted" data-testid="array-selected">{chosen.length} selected</span>
            <ConfirmButton label="Cancel" confirmLabel={`Yes, cancel ${chosen.length}`} danger disabled={!chosen.length} testId="tasks-cancel"
              onConfirm={() => act('cancel', chosen, 'selected')} />
            <button type="button" disabled={!chosen.length} data-testid="tasks-hold" onClick={() => act('hold', chosen, 'selected')}>Hold</button>
            <button type="button" disabled={!chosen.length} data-testid="tasks-release" onClick={() => act('release', chosen, 'selected')}>Release</button>
          </div>
        )}
        <div className="table-wrap" tabIndex={0}>
          <table className="table compact" data-testid="array-tasks" aria-busy={tasks.isFetching}>
            <thead>
              <tr>
                {mayAct && <th scope="col"><input type="checkbox" aria-label="Select every task on this page" checked={allChecked}
                  onChange={() => setSelected(allChecked ? new Set() : new Set(list.map(key)))} /></th>}
                <th scope="col">Task</th><th scope="col">State</th><th scope="col">Exit code</th><th scope="col">Nodes / reason</th>
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
                      onChange={() => setSelected((old) => { const n = new Set(old); if (n.has(k)) n.delete(k); else n.add(k); return n; })} /></td>}
                    <td><a href={href(`/jobs/${k}`)}>{k}</a></td>
                    <td><StateBadge state={t.state} /></td>
                    <td data-testid="array-task-exit">{isActive(t.state) || t.exitCode == null ? '' : t.exitCode}</td>
                    <td>{t.state === 'PENDING' ? t.reason ?? 'None' : t.allocatedNodes ?? ''}</td>
                    <td>{ran == null ? '' : formatDuration(ran)}</td>
                    <td className="wide">{left == null ? '' : formatDuration(left)}</td>
                    <td className="wide">{formatTime(t.startTime)}</td>
                  </tr>
                );
              })}
              {tasks.data && list.length === 0 && (
                <tr><td colSpan={mayAct ? 8 : 7} className="muted">No task matches.</td></tr>
              )}
            </tbody>
          </table>
        </div>
        <nav className="pager" aria-label="Pages of tasks">
          <button type="button" data-testid="array-page-prev" disabled={page === 0} onClick={() => setPage(page - 1)}>Previous</button>
          <span data-testid="array-page">Page {page + 1} of {pages.toLocaleString()} · {matching.toLocaleString()} task{matching === 1 ? '' : 's'}</span>
          <button type="button" data-testid="array-page-next" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </nav>
      </div>
      <p>{first && <><a href={href(`/jobs/${first.id ?? `${id}_${first.arrayTaskId}`}`)}>Task {first.arrayTaskId}</a> · </>}
        <a href={href('/jobs', { arrayJobId: id, all: 1 })}>tasks in the jobs list</a></p>
    </section>
  );
}

/** "18_[0-99999] · 100,000 tasks · 46 running · 99,954 pending", as squeue names an array. */
export function summaryLabel(s: ArraySummary): string {
  const states = ordered(s.states).map((c) => `${c.tasks.toLocaleString()} ${c.state.toLowerCase().replace('_', ' ')}`);
  return [`${s.arrayJobId}_[${s.taskIds}]`, `${s.tasks.toLocaleString()} task${s.tasks === 1 ? '' : 's'}`, ...states].join(' · ');
}

function ordered(states: ArraySummary['states']): ArraySummary['states'] {
  const rank = (state: string) => { const i = STATE_ORDER.indexOf(state); return i < 0 ? STATE_ORDER.length : i; };
  return [...states].sort((a, b) => rank(a.state) - rank(b.state));
}

/**
 * Re-reads the array's summary and shown page when the event stream names one of its tasks (or the
 * array), or says events were missed: at once if the last re-read is {@link REFRESH_MS} old, else when it
 * will be. Node events alone do not: the tasks on a node that changed are named themselves.
 */
function useArrayFollowsItsTasks(id: string) {
  const queryClient = useQueryClient();
  const last = useRef(Date.now());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refresh = () => {
      timer = null;
      last.current = Date.now();
      void queryClient.invalidateQueries({ queryKey: ['array', id] });
    };
    const stop = onLiveMessages((messages) => {
      if (timer || !messages.some((m) => (m.kind === 'job' ? m.id === id || m.id.startsWith(`${id}_`) : m.kind !== 'node'))) return;
      timer = setTimeout(refresh, Math.max(0, last.current + REFRESH_MS - Date.now()));
    });
    return () => { stop(); if (timer) clearTimeout(timer); };
  }, [id, queryClient]);
}
