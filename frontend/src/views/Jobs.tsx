import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { JOB_STATES, type Job } from '../api/types';
import { useAuth } from '../lib/auth';
import { arrayLabel } from '../lib/arrays';
import { debounced, FILTER_DEBOUNCE_MS } from '../lib/debounce';
import {
  DEFAULT_COLUMNS, JOB_COLUMNS, elapsedSeconds, isServerSortable, isSortKey, loadColumns, saveColumns, serverSort, timeLeftSeconds,
  type JobColumn, type SortKey,
} from '../lib/columns';
import { formatDuration, formatTime, relative } from '../lib/format';
import { href, navigate } from '../lib/router';
import { ConfirmButton, ErrorBox, Loading, StateBadge } from './common';

const FILTERS = ['state', 'user', 'account', 'partition', 'name', 'nameContains', 'arrayJobId'] as const;

export function jobKey(job: Job): string {
  return job.id ?? (job.arrayTaskId !== null && job.arrayTaskId !== undefined && job.arrayJobId
    ? `${job.arrayJobId}_${job.arrayTaskId}` : String(job.jobId));
}

export function Jobs({ query }: { query: URLSearchParams }) {
  const { me, operator } = useAuth();
  const queryClient = useQueryClient();
  // A user's own jobs unless they ask for all; an operator's list is everyone's (their own are few or none).
  const mine = defaultMine(query, operator);
  const page = Number(query.get('page') ?? 0);
  const size = Number(query.get('size') ?? 50);
  const filters = Object.fromEntries(FILTERS.map((f) => [f, query.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const user = mine ? me?.username : filters.user || undefined;
  const sortParam = query.get('sort');
  // No sort chosen: running first, then pending by priority, then ended newest first (the server's
  // `active` order), so a user's running jobs are on page 1 however many they ran before.
  const sortKey: SortKey | null = isSortKey(sortParam) && isServerSortable(sortParam) ? sortParam : null;
  const descending = query.get('dir') === 'desc';
  const sort = serverSort(sortKey, descending) ?? 'active';
  const now = useNow(1000);
  const [columns, setColumns] = useState<JobColumn[]>(() => loadColumns());
  const shown = new Set(columns);

  const jobs = useQuery({
    queryKey: ['jobs', 'list', { ...filters, user, page, size, sort }],
    queryFn: () => api.jobs({ ...filters, user, page, size, sort }),
    enabled: !mine || !!me,
    placeholderData: (previous) => previous,
  });

  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const toggle = (key: string) => setSelected((s) => { const n = new Set(s); if (n.has(key)) n.delete(key); else n.add(key); return n; });
  const [outcome, setOutcome] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function setQuery(changes: Record<string, string | number | undefined>) {
    const next: Record<string, string | number | undefined> = Object.fromEntries(query.entries());
    Object.assign(next, changes);
    if (!('page' in changes)) next.page = undefined;
    if (next.page === 0) next.page = undefined;
    navigate('/jobs', next, true);
  }

  function sortBy(key: SortKey) {
    const desc = sortKey === key ? !descending : false;
    // A new order starts at page 1: page 3 of another order shows unrelated jobs.
    setQuery({ sort: key, dir: desc ? 'desc' : undefined });
  }

  function chooseColumn(key: JobColumn, on: boolean) {
    const next = JOB_COLUMNS.map((c) => c.key).filter((k) => (k === key ? on : shown.has(k)));
    setColumns(next);
    saveColumns(next);
  }

  const items = jobs.data?.items ?? [];
  // A selected array goes to the API by its id, which acts on every task of the array (not only
  // those on this page), as `scancel 42` and `scontrol hold 42` do.
  const tasksShown = (key: string) => items.filter((j) => j.arrayTaskId != null && String(j.arrayJobId) === key);
  const count = [...selected].reduce((n, key) => n + (items.some((j) => jobKey(j) === key) ? 1 : Math.max(1, tasksShown(key).length)), 0);

  async function bulk(action: 'cancel' | 'hold' | 'release') {
    const targets = [...selected];
    setBusy(true);
    const results = await Promise.allSettled(targets.map((id) => api[action](id)));
    const failed = results.map((r, i) => (r.status === 'rejected' ? `${targets[i]}: ${(r.reason as Error).message}` : null)).filter(Boolean);
    const jobsDone = results.reduce((n, r) => n + (r.status === 'fulfilled' ? actedOn(r.value) : 0), 0);
    setOutcome(`${action}: ${targets.length - failed.length} of ${targets.length} done (${jobsDone} job${jobsDone === 1 ? '' : 's'})`
      + `${failed.length ? ` — ${failed.join('; ')}` : ''}`);
    setSelected(new Set());
    setBusy(false);
    void queryClient.invalidateQueries({ queryKey: ['jobs'] });
  }

  const total = jobs.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / size));
  const allChecked = items.length > 0 && items.every((j) => selected.has(jobKey(j)));
  const span = 3 + columns.length;
  const head = (key: SortKey, label: string, wide = false) => (
    <th scope="col" key={key} className={wide ? 'wide' : undefined} data-testid={`head-${key}`}
      aria-sort={sortKey === key ? (descending ? 'descending' : 'ascending') : undefined}>
      {isServerSortable(key) ? (
        <button type="button" className="sort" onClick={() => sortBy(key)} data-testid={`sort-${key}`}>
          {label}<span aria-hidden="true">{sortKey === key ? (descending ? ' ▼' : ' ▲') : ''}</span>
        </button>
      ) : label}
    </th>
  );

  return (
    <section aria-labelledby="jobs-title" data-testid="view-jobs">
      <div className="heading">
        <h1 id="jobs-title">Jobs</h1>
        <a className="button primary" href={href('/submit')} data-testid="jobs-new">Submit a job</a>
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label className="toggle">
          <input type="checkbox" checked={mine} data-testid="filter-mine"
            onChange={(e) => setQuery(e.target.checked ? { all: undefined, mine: operator ? '1' : undefined } : { all: '1', mine: undefined })} />
          My jobs
        </label>
        <label>State
          <select value={filters.state} data-testid="filter-state" onChange={(e) => setQuery({ state: e.target.value || undefined })}>
            <option value="">any</option>
            <option value="PENDING,RUNNING,COMPLETING">active</option>
            {JOB_STATES.map((s) => <option key={s} value={s}>{s.toLowerCase()}</option>)}
          </select>
        </label>
        {!mine && <TextFilter name="user" value={filters.user} onChange={setQuery} />}
        <TextFilter name="account" value={filters.account} onChange={setQuery} />
        <TextFilter name="partition" value={filters.partition} onChange={setQuery} />
        <TextFilter name="nameContains" value={filters.nameContains} onChange={setQuery} />
        <TextFilter name="arrayJobId" value={filters.arrayJobId} onChange={setQuery} />
        <details className="column-picker" data-testid="column-picker">
          <summary>Columns</summary>
          <fieldset>
            <legend className="sr-only">Columns to show</legend>
            {JOB_COLUMNS.map((c) => (
              <label key={c.key} className="toggle">
                <input type="checkbox" checked={shown.has(c.key)} data-testid={`column-${c.key}`}
                  onChange={(e) => chooseColumn(c.key, e.target.checked)} />
                {c.label}
              </label>
            ))}
            <button type="button" className="link" onClick={() => { setColumns(DEFAULT_COLUMNS); saveColumns(DEFAULT_COLUMNS); }}>Default columns</button>
          </fieldset>
        </details>
      </form>

      <div className="bulk" role="toolbar" aria-label="Actions on selected jobs">
        <span className="muted" data-testid="selected-count">{count} selected</span>
        {/* Cancelling cannot be undone, and a selected array row stands for every task: it asks first */}
        <ConfirmButton label="Cancel" confirmLabel={`Yes, cancel ${count} selected`} danger disabled={!count || busy}
          testId="bulk-cancel" onConfirm={() => bulk('cancel')} />
        <button type="button" disabled={!count || busy} data-testid="bulk-hold" onClick={() => bulk('hold')}>Hold</button>
        <button type="button" disabled={!count || busy} data-testid="bulk-release" onClick={() => bulk('release')}>Release</button>
        {outcome && <span data-testid="bulk-outcome" role="status">{outcome}</span>}
      </div>

      <ErrorBox error={jobs.error} />
      {jobs.isLoading && <Loading what="jobs" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table" data-testid="jobs-table">
          <thead>
            <tr>
              <th scope="col"><input type="checkbox" aria-label="Select all on this page" checked={allChecked}
                onChange={() => setSelected(allChecked ? new Set() : new Set(items.map(jobKey)))} data-testid="select-all" /></th>
              {head('id', 'ID')}
              {JOB_COLUMNS.filter((c) => shown.has(c.key) && c.key !== 'where').map((c) => head(c.key, c.label, WIDE.has(c.key)))}
              {head('state', 'State')}
              {shown.has('where') && head('where', 'Nodes / reason', true)}
            </tr>
          </thead>
          <tbody>
            {groupArrays(items).map((entry) => {
              if (entry.kind === 'array') {
                const open = expanded.has(entry.arrayId);
                const first = entry.tasks[0];
                return [
                  <tr key={`array-${entry.arrayId}`} className="array-row" data-testid="array-row" data-array-id={entry.arrayId}>
                    <td><input type="checkbox" aria-label={`Select array ${entry.arrayId}`} checked={selected.has(entry.arrayId)}
                      onChange={() => toggle(entry.arrayId)} data-testid={`select-${entry.arrayId}`} /></td>
                    <td>
                      <button type="button" className="link" aria-expanded={open} data-testid="array-toggle"
                        onClick={() => setExpanded((s) => { const n = new Set(s); if (n.has(entry.arrayId)) n.delete(entry.arrayId); else n.add(entry.arrayId); return n; })}>
                        <span aria-hidden="true">{open ? '▾' : '▸'}</span> <span data-testid="array-label">{arrayLabel(entry.arrayId, entry.tasks)}</span>
                      </button>
                      {' '}<a href={href(`/jobs/${entry.arrayId}`)} data-testid="array-link">array page</a>
                    </td>
                    {JOB_COLUMNS.filter((c) => shown.has(c.key) && c.key !== 'where').map((c) => (
                      <td key={c.key} className={cellClass(c.key)}>{cell(c.key, first, now)}</td>
                    ))}
                    <td><a href={href(`/jobs/${entry.arrayId}`)}>all tasks</a></td>
                    {shown.has('where') && <td className="wide"></td>}
                  </tr>,
                  ...(open ? entry.tasks.map((job) => <JobRow key={jobKey(job)} job={job} columns={shown} selected={selected.has(jobKey(job))} onToggle={toggle} now={now} nested />) : []),
                ];
              }
              return <JobRow key={jobKey(entry.job)} job={entry.job} columns={shown} selected={selected.has(jobKey(entry.job))} onToggle={toggle} now={now} />;
            })}
            {!jobs.isLoading && items.length === 0 && <tr><td colSpan={span} className="muted" data-testid="jobs-empty">No jobs match.</td></tr>}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages">
        <button type="button" disabled={page <= 0} onClick={() => setQuery({ page: page - 1 })} data-testid="page-prev">Previous</button>
        <span data-testid="page-info">Page {page + 1} of {pages} · {total} jobs</span>
        <button type="button" disabled={page + 1 >= pages} onClick={() => setQuery({ page: page + 1 })} data-testid="page-next">Next</button>
        <label>Per page
          <select value={size} onChange={(e) => setQuery({ size: Number(e.target.value) === 50 ? undefined : e.target.value })} data-testid="page-size">
            {[20, 50, 100, 500].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
      </nav>
    </section>
  );
}

/** Whether the list shows only the signed-in user's jobs: ?mine=1 says yes, ?all=1 no, else yes but for an operator. */
export function defaultMine(query: URLSearchParams, operator: boolean): boolean {
  if (query.get('mine') === '1') return true;
  if (query.get('all')) return false;
  return !operator;
}

/** Columns hidden on a phone whatever the choice, so the table stays inside 390px. */
const WIDE = new Set<JobColumn>(['user', 'account', 'partition', 'qos', 'priority', 'resources', 'timeLimit', 'submitted', 'started', 'ended',
  'expectedStart', 'elapsed']);

function cellClass(key: JobColumn): string | undefined {
  const classes = [WIDE.has(key) ? 'wide' : '', key === 'name' ? 'ellipsis' : ''].filter(Boolean).join(' ');
  return classes || undefined;
}

function cell(key: JobColumn, job: Job, now: number): ReactNode {
  switch (key) {
    case 'name': return job.name;
    case 'user': return job.user;
    case 'account': return job.account;
    case 'partition': return job.partition;
    case 'qos': return job.qos;
    case 'priority': return job.priority;
    case 'resources': return resources(job);
    case 'timeLimit': return formatDuration(job.timeLimitSeconds);
    case 'submitted': return formatTime(job.submitTime);
    case 'started': return formatTime(job.startTime);
    case 'ended': return formatTime(job.endTime);
    case 'expectedStart': return job.state === 'PENDING' && job.expectedStartTime
      ? <time dateTime={job.expectedStartTime} title={formatTime(job.expectedStartTime)}>{relative(job.expectedStartTime, now)}</time> : '';
    case 'elapsed': { const s = elapsedSeconds(job, now); return s == null ? '' : formatDuration(s); }
    case 'timeLeft': { const s = timeLeftSeconds(job, now); return s == null ? '' : formatDuration(s); }
    case 'where': return job.state === 'PENDING' ? `(${job.reason ?? 'None'})` : job.allocatedNodes ?? '';
  }
}

function JobRow({ job, columns, selected, onToggle, nested, now }: {
  job: Job; columns: Set<JobColumn>; selected: boolean; onToggle: (key: string) => void; nested?: boolean; now: number;
}) {
  const key = jobKey(job);
  return (
    <tr data-testid="job-row" data-job-id={key} data-state={job.state} className={nested ? 'nested' : undefined}>
      <td><input type="checkbox" aria-label={`Select job ${key}`} checked={selected} data-testid={`select-${key}`} onChange={() => onToggle(key)} /></td>
      <td><a href={href(`/jobs/${key}`)} data-testid="job-link">{key}</a></td>
      {JOB_COLUMNS.filter((c) => columns.has(c.key) && c.key !== 'where').map((c) => (
        <td key={c.key} className={cellClass(c.key)} data-testid={`cell-${c.key}`}>{cell(c.key, job, now)}</td>
      ))}
      <td className="state-cell"><StateBadge state={job.state} />{job.state === 'PENDING' && job.reason
        // The reason under the badge: always on a phone (the reason column is hidden there), else when that column is not chosen.
        ? <span className={`reason${columns.has('where') ? ' phone-only' : ''}`} data-testid="row-reason">{job.reason}</span> : null}</td>
      {columns.has('where') && <td className="wide" data-testid="cell-where">{cell('where', job, now)}</td>}
    </tr>
  );
}

type Entry = { kind: 'job'; job: Job } | { kind: 'array'; arrayId: string; tasks: Job[] };

/** Array tasks on the page folded under one expandable row per array, in the order the server sent. */
export function groupArrays(jobs: Job[]): Entry[] {
  const out: Entry[] = [];
  const arrays = new Map<string, Job[]>();
  for (const job of jobs) {
    if (job.arrayJobId === null || job.arrayJobId === undefined || job.arrayTaskId === null || job.arrayTaskId === undefined) {
      out.push({ kind: 'job', job });
      continue;
    }
    const id = String(job.arrayJobId);
    if (!arrays.has(id)) { arrays.set(id, []); out.push({ kind: 'array', arrayId: id, tasks: arrays.get(id)! }); }
    arrays.get(id)!.push(job);
  }
  return out.map((e) => (e.kind === 'array' && e.tasks.length === 1 ? { kind: 'job', job: e.tasks[0] } : e));
}

/** How many jobs an action reached: an array's id reaches every task of it. */
export function actedOn(result: unknown): number {
  const answer = result as { jobs?: unknown[]; stopping?: unknown[] } | null;
  const n = (answer?.jobs?.length ?? 0) + (answer?.stopping?.length ?? 0); // cancelled + being stopped on their nodes
  return n > 0 ? n : 1;
}

/** The time now, every `ms` (0: not ticking): elapsed and time-left cells count on between list updates. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (ms <= 0) return undefined;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

const LABELS: Record<string, string> = { arrayJobId: 'Array', nameContains: 'Name' };

/**
 * A text filter that shows each keystroke at once but changes the URL (and so queries the server)
 * only once typing pauses, or at once on Enter or when the box is cleared.
 */
function TextFilter({ name, value, onChange }: { name: string; value: string; onChange: (c: Record<string, string | undefined>) => void }) {
  const [text, setText] = useState(value);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const [filter] = useState(() => debounced<string>((v) => onChangeRef.current({ [name]: v || undefined }), FILTER_DEBOUNCE_MS, value));
  useEffect(() => {
    // The URL changed (our own apply, Back, a link): show it unless the user is still typing.
    filter.sync(value);
    if (!filter.pending()) setText(value);
  }, [filter, value]);
  useEffect(() => () => filter.cancel(), [filter]);
  return (
    <label>{LABELS[name] ?? name[0].toUpperCase() + name.slice(1)}
      <input type="search" value={text} data-testid={`filter-${name}`}
        onChange={(e) => { const v = e.target.value; setText(v); if (v) filter.push(v); else filter.flush(''); }}
        onKeyDown={(e) => { if (e.key === 'Enter') filter.flush(e.currentTarget.value); }} />
    </label>
  );
}

export function resources(job: Job): string {
  const parts: string[] = [];
  if (job.nodes) parts.push(`${job.nodes}N`);
  if (job.tasks) parts.push(`${job.tasks}T`);
  if (job.cpusPerTask && job.cpusPerTask > 1) parts.push(`${job.cpusPerTask}c/T`);
  const gpus = job.gpus || (job.gpusPerNode ? job.gpusPerNode * (job.nodes || 1) : undefined);
  if (gpus) parts.push(`${gpus} GPU${job.gpuType ? ` ${job.gpuType}` : ''}`);
  return parts.join(' · ');
}
