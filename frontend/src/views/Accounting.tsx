import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, type AccountingQuery } from '../api/client';
import { JOB_STATES } from '../api/types';
import { Chart } from '../charts/Chart';
import { useAuth } from '../lib/auth';
import { AccountTree } from '../lib/coordination';
import { accountColour, dayStart, efficiency, fairShareTree, gpuHoursPerAccountPerDay, quotaTree, type DailyUsage } from '../lib/accounting';
import { formatDuration, formatTime } from '../lib/format';
import { href, navigate } from '../lib/router';
import { accountDailyUsage } from '../lib/utilization';
import { Budgets } from './AccountingBudgets';
import { ErrorBox, Loading, StateBadge } from './common';

const WINDOWS = [1, 7, 14, 30];
const DAY = 86400_000;

export function Accounting({ query }: { query: URLSearchParams }) {
  const days = WINDOWS.includes(Number(query.get('days'))) ? Number(query.get('days')) : 7;
  const account = query.get('account') ?? '';
  const user = query.get('user') ?? '';
  const state = query.get('state') ?? '';
  const page = Number(query.get('page') ?? 0);
  // The window ends at the next UTC midnight so today's bar is whole; fixed per choice, so queries cache.
  const end = dayStart(Date.now()) + DAY;
  const start = end - days * DAY;
  const filters: AccountingQuery = {
    start: new Date(start).toISOString(), end: new Date(end).toISOString(),
    account: account || undefined, user: user || undefined, state: state || undefined,
  };

  function setQuery(changes: Record<string, string | number | undefined>) {
    const next: Record<string, string | number | undefined> = Object.fromEntries(query.entries());
    Object.assign(next, changes);
    if (!('page' in changes)) next.page = undefined;
    navigate('/accounting', next, true);
  }

  return (
    <section aria-labelledby="accounting-title" data-testid="view-accounting">
      <h1 id="accounting-title">Accounting</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Window and filters">
        <label>Window
          <select value={days} onChange={(e) => setQuery({ days: Number(e.target.value) === 7 ? undefined : e.target.value })} data-testid="acct-window">
            {WINDOWS.map((d) => <option key={d} value={d}>{d === 1 ? 'today' : `last ${d} days`}</option>)}
          </select>
        </label>
        <label>Account
          <input type="search" value={account} onChange={(e) => setQuery({ account: e.target.value || undefined })} data-testid="acct-account" />
        </label>
        <label>User
          <input type="search" value={user} onChange={(e) => setQuery({ user: e.target.value || undefined })} data-testid="acct-user" />
        </label>
        <label>State
          <select value={state} onChange={(e) => setQuery({ state: e.target.value || undefined })} data-testid="acct-state">
            <option value="">any</option>
            {JOB_STATES.map((s) => <option key={s} value={s}>{s.toLowerCase()}</option>)}
          </select>
        </label>
      </form>
      <UsageChart filters={filters} start={start} end={end} />
      <FairShare />
      <Quotas />
      <Budgets />
      <History filters={filters} page={page} onPage={(p) => setQuery({ page: p || undefined })} />
    </section>
  );
}

/**
 * Stacked GPU-hours per account per day: the controller's utilization report grouped by
 * account, else (filtered by user or state, which the report cannot do) summed here from every
 * sacct row of the window.
 */
function UsageChart({ filters, start, end }: { filters: AccountingQuery; start: number; end: number }) {
  const usage = useQuery({
    queryKey: ['accounting', 'usage', filters],
    queryFn: async (): Promise<{ usage: DailyUsage; source: string; truncated: boolean }> => {
      if (!filters.user && !filters.state) {
        // A role the report is closed to still gets the chart, from its own sacct rows.
        const report = await api.utilization({ start: filters.start!, end: filters.end!, groupBy: 'account', interval: 'day' })
          .catch((e) => { if (e instanceof ApiError && e.status === 403) return null; throw e; });
        if (report) {
          const all = accountDailyUsage(report, windowDays(start, end));
          const accounts = filters.account ? all.accounts.filter((a) => filters.account!.split(',').includes(a)) : all.accounts;
          return { usage: { ...all, accounts }, source: 'report', truncated: false };
        }
      }
      const rows = await api.allAccountingJobs(filters);
      return { usage: gpuHoursPerAccountPerDay(rows.items, start, end), source: 'sacct', truncated: rows.items.length < rows.total };
    },
    refetchInterval: 60000,
  });
  const data = usage.data?.usage;
  const option = useMemo(() => (data ? usageOption(data) : null), [data]);
  const total = data ? data.accounts.reduce((a, acc) => a + data.hours[acc].reduce((x, y) => x + y, 0), 0) : 0;
  return (
    <div className="card chart-card" data-testid="acct-usage" data-source={usage.data?.source}>
      <h2>GPU-hours per account</h2>
      <ErrorBox error={usage.error} />
      {usage.isLoading && <Loading what="usage" />}
      {data && (
        <>
          <p className="muted small" data-testid="acct-usage-total">
            {total.toFixed(total < 10 ? 2 : 1)} GPU-hours in the window{data.accounts.length ? ` across ${data.accounts.length} account${data.accounts.length === 1 ? '' : 's'}` : ''}
            {usage.data?.truncated ? ' (the first 10,000 jobs only)' : ''}.
          </p>
          <Chart option={option!} height={280} label="Stacked GPU-hours per account per day" testId="acct-usage-chart" />
        </>
      )}
    </div>
  );
}

function windowDays(start: number, end: number): string[] {
  return Array.from({ length: Math.round((end - start) / DAY) }, (_, i) => new Date(start + i * DAY).toISOString().slice(0, 10));
}

function usageOption(data: DailyUsage) {
  return {
    grid: { left: 48, right: 12, top: 36, bottom: 28 },
    tooltip: { trigger: 'axis', valueFormatter: (v: number) => `${Number(v).toFixed(1)} GPU-h` },
    legend: { top: 0, type: 'scroll', textStyle: { fontSize: 11 } },
    xAxis: { type: 'category', data: data.days },
    yAxis: { type: 'value', name: 'GPU-hours' },
    series: data.accounts.map((account) => ({
      name: account, type: 'bar', stack: 'gpu', emphasis: { focus: 'series' },
      // The account's own colour, not the palette's next: usage order changes between loads
      itemStyle: { color: accountColour(account) },
      data: data.hours[account].map((v) => Math.round(v * 100) / 100),
    })),
  };
}

/** sshare -a as an indented table: accounts, and their users under them. */
function FairShare() {
  const { me } = useAuth();
  const lines = useQuery({ queryKey: ['accounting', 'fairshare'], queryFn: api.fairShare, refetchInterval: 30000 });
  // A coordinator may narrow the table to the sub-trees they manage.
  const coordinated = me?.coordinatorOf ?? [];
  const [mine, setMine] = useState(false);
  const tree = useMemo(() => {
    const all = lines.data ?? [];
    if (!mine || coordinated.length === 0) return fairShareTree(all);
    const accounts = new AccountTree(all.filter((l) => !l.user).map((l) => ({ name: l.account, parent: l.parent })));
    return fairShareTree(all.filter((l) => coordinated.some((c) => accounts.within(l.account, c))));
  }, [lines.data, mine, coordinated]);
  const num = (v: number | null | undefined, digits = 3) => (v == null ? '—' : v.toFixed(digits));
  return (
    <div className="card">
      <h2>Fair share</h2>
      {coordinated.length > 0 && (
        <label className="toggle"><input type="checkbox" checked={mine} onChange={(e) => setMine(e.target.checked)} data-testid="fairshare-mine" />
          {' '}Only the accounts I coordinate ({coordinated.join(', ')}) and below</label>
      )}
      <ErrorBox error={lines.error} />
      {lines.isLoading && <Loading what="fair share" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="fairshare">
          <thead>
            <tr>
              <th scope="col">Account / user</th><th scope="col">Raw shares</th><th scope="col">Norm shares</th>
              <th scope="col" title="GPU-hours used, decayed with the fair-share half-life as the usage that sets the factor">Usage (GPU-h)</th>
              <th scope="col" className="wide" title="GPU-hours used in all, never decayed">GPU-h in all</th>
              <th scope="col" className="wide" title="Decayed usage in billing-hours: each GPU, CPU and GB of memory held counts by its billing weight (Slurm's TRESBillingWeights)">Usage (billing-h)</th><th scope="col">Effective usage</th><th scope="col">Fair-share factor</th>
            </tr>
          </thead>
          <tbody>
            {tree.map((l) => (
              <tr key={`${l.account}/${l.user ?? ''}`} data-testid="fairshare-row" data-account={l.account} data-user={l.user ?? ''}
                className={l.user ? 'fs-user' : 'fs-account'}>
                <th scope="row" style={{ paddingLeft: `${0.6 + l.level * 1.1}rem` }}>{l.user ? <>{l.user}</> : <strong>{l.account}</strong>}</th>
                <td>{l.rawShares ?? '—'}</td>
                <td>{num(l.normShares)}</td>
                <td data-testid="fairshare-gpu-hours">{hours(l.gpuUsage)}</td>
                <td className="wide" data-testid="fairshare-gpu-hours-total">{hours(l.gpuUsageTotal)}</td>
                <td className="wide" title="Decayed usage in billing-seconds, shown in hours (not GPU-hours)">{l.rawUsage == null ? '—' : (l.rawUsage / 3600).toFixed(1)}</td>
                <td>{num(l.effectiveUsage)}</td>
                <td>{l.user ? <FactorBar value={l.fairShareFactor} /> : <span className="muted">{num(l.levelFairShare)}</span>}</td>
              </tr>
            ))}
            {lines.data && tree.length === 0 && <tr><td colSpan={8} className="muted">No associations yet.</td></tr>}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * Guaranteed GPU quotas as a tree: per account its guarantee, a bar of what it holds against it
 * (over 100 % when it borrows), and what it borrows, lends and waits for.
 */
function Quotas() {
  const lines = useQuery({ queryKey: ['accounting', 'quotas'], queryFn: api.quotas, refetchInterval: 30000 });
  const tree = useMemo(() => quotaTree(lines.data ?? []), [lines.data]);
  const guaranteed = tree.some((l) => l.parent && l.guaranteed > 0);
  return (
    <div className="card">
      <h2>GPU quotas</h2>
      <ErrorBox error={lines.error} />
      {lines.isLoading && <Loading what="quotas" />}
      {lines.data && !guaranteed && <p className="muted">No account holds a guaranteed quota (guaranteedTres).</p>}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="quotas">
          <thead>
            <tr>
              <th scope="col">Account</th><th scope="col">Guaranteed</th><th scope="col">In use</th>
              <th scope="col">Borrowed</th><th scope="col">Lent</th><th scope="col">Pending</th>
            </tr>
          </thead>
          <tbody>
            {tree.map((l) => (
              <tr key={l.account} data-testid="quota-row" data-account={l.account}>
                <th scope="row" style={{ paddingLeft: `${0.6 + l.level * 1.1}rem` }}>{l.account}</th>
                <td>{l.guaranteed}</td>
                <td>
                  <span className="bar-cell" title={`${l.inUse} of ${l.guaranteed} guaranteed GPUs`}>
                    <span className="bar" aria-hidden="true">
                      <span style={{ width: `${l.guaranteed > 0 ? Math.min(100, Math.round((100 * l.inUse) / l.guaranteed)) : l.inUse > 0 ? 100 : 0}%` }} />
                    </span>
                    {l.inUse}
                  </span>
                </td>
                <td>{l.borrowed || '—'}</td>
                <td>{l.lent || '—'}</td>
                <td>{l.pendingDemand || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** Seconds as hours with two decimals; '—' from a controller that does not say. */
function hours(seconds: number | null | undefined): string {
  return seconds == null ? '—' : (seconds / 3600).toFixed(2);
}

function FactorBar({ value }: { value: number | null | undefined }) {
  if (value == null) return <>—</>;
  return (
    <span className="bar-cell">
      <span className="bar" aria-hidden="true"><span style={{ width: `${Math.round(value * 100)}%` }} /></span>
      {value.toFixed(3)}
    </span>
  );
}

function History({ filters, page, onPage }: { filters: AccountingQuery; page: number; onPage: (p: number) => void }) {
  const size = 50;
  const rows = useQuery({
    queryKey: ['accounting', 'jobs', filters, page],
    queryFn: () => api.accountingJobs({ ...filters, page, size }),
    placeholderData: (p) => p,
    refetchInterval: 30000,
  });
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const total = rows.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / size));

  async function exportCsv() {
    setExporting(true);
    setExportError(null);
    try {
      const blob = await api.accountingCsv(filters);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `sacct-${filters.start!.slice(0, 10)}-${filters.end!.slice(0, 10)}.csv`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  }

  return (
    <div className="card">
      <div className="heading">
        <h2>Job history <small className="muted" data-testid="acct-total">{total} jobs</small></h2>
        <button type="button" onClick={exportCsv} disabled={exporting} data-testid="acct-csv">{exporting ? 'Exporting…' : 'Export CSV'}</button>
      </div>
      <ErrorBox error={exportError} testId="acct-csv-error" />
      <ErrorBox error={rows.error} />
      {rows.isLoading && <Loading what="job history" />}
      <div className="table-wrap" tabIndex={0}>
        <table className="table compact" data-testid="acct-jobs">
          <thead>
            <tr>
              <th scope="col">Job</th><th scope="col" className="wide">Name</th><th scope="col">User</th><th scope="col" className="wide">Account</th>
              <th scope="col">State</th><th scope="col" className="wide">Started</th><th scope="col">Elapsed of limit</th>
              <th scope="col" className="wide">GPU-h</th><th scope="col" className="wide">Nodes</th>
            </tr>
          </thead>
          <tbody>
            {(rows.data?.items ?? []).map((r) => {
              const eff = efficiency(r);
              return (
                <tr key={r.jobId} data-testid="acct-row" data-job-id={r.jobId}>
                  <td><a href={href(`/jobs/${r.jobId}`)}>{r.jobId}</a></td>
                  <td className="wide ellipsis">{r.name}</td>
                  <td>{r.user}</td>
                  <td className="wide">{r.account}</td>
                  <td><StateBadge state={r.state} /></td>
                  <td className="wide">{formatTime(r.startTime)}</td>
                  <td data-testid="acct-efficiency" title={`${formatDuration(r.elapsedSeconds)} of ${formatDuration(r.timeLimitSeconds)}`}>
                    {eff == null ? formatDuration(r.elapsedSeconds) : (
                      <span className="bar-cell">
                        <span className="bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(eff * 100)}
                          aria-label={`Used ${Math.round(eff * 100)}% of its time limit`}><span style={{ width: `${Math.max(1, Math.round(eff * 100))}%` }} /></span>
                        {Math.round(eff * 100)}%
                      </span>
                    )}
                  </td>
                  <td className="wide">{(r.gpuSeconds / 3600).toFixed(2)}</td>
                  <td className="wide mono">{r.nodeList ?? ''}</td>
                </tr>
              );
            })}
            {rows.data && rows.data.items.length === 0 && <tr><td colSpan={9} className="muted" data-testid="acct-empty">No jobs in this window.</td></tr>}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages of job history">
        <button type="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>Previous</button>
        <span>Page {page + 1} of {pages}</span>
        <button type="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>Next</button>
      </nav>
    </div>
  );
}
