import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { budgetOwner, budgetUnit, formatRate, runOutText, usedPercent } from '../lib/budgets';
import { formatTime } from '../lib/format';
import { ErrorBox, Loading } from './common';

/**
 * Every GrpTRESMins budget the signed-in user may see, one row per TRES: its limit, what is used (with a
 * bar) and left, how many TRES-minutes a day it burned lately and the day it runs out at that rate.
 */
export function Budgets() {
  const budgets = useQuery({ queryKey: ['accounting', 'budgets'], queryFn: api.budgets, refetchInterval: 30000 });
  const rows = budgets.data ?? [];
  const since = rows[0]?.rateSince;
  return (
    <div className="card" data-testid="budgets">
      <h2>Budgets</h2>
      <ErrorBox error={budgets.error} />
      {budgets.isLoading && <Loading what="budgets" />}
      {budgets.data && rows.length === 0 && <p className="muted" data-testid="budgets-none">No budget (grpTresMins) holds an account, user or QOS you are in.</p>}
      {rows.length > 0 && (
        <>
          <p className="muted small">
            Burn rate: TRES-minutes a day used since {formatTime(since)} (the last 24 hours, or the current usage period).
            The run-out counts the usage's decay and resets.
          </p>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Budgets">
            <table className="table compact" data-testid="budget-table">
              <thead>
                <tr>
                  <th scope="col">Budget</th><th scope="col">TRES</th><th scope="col">Limit</th><th scope="col">Used</th>
                  <th scope="col">Left</th><th scope="col">Burn a day</th><th scope="col">Runs out</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((b) => {
                  const pct = usedPercent(b);
                  const unit = budgetUnit(b.tres);
                  return (
                    <tr key={`${b.owner}/${b.account ?? ''}/${b.user ?? ''}/${b.qos ?? ''}/${b.tres}`} data-testid="budget-row"
                      data-owner={b.owner} data-account={b.account ?? ''} data-user={b.user ?? ''} data-qos={b.qos ?? ''} data-tres={b.tres}>
                      <th scope="row">{budgetOwner(b)}</th>
                      <td>{b.tres}</td>
                      <td data-testid="budget-limit">{b.limitMinutes.toLocaleString('en')} {unit}</td>
                      <td>
                        <span className="bar-cell">
                          <span className="bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}
                            aria-label={`${pct}% of the budget used`}><span style={{ width: `${pct}%` }} /></span>
                          <span data-testid="budget-used">{b.usedMinutes.toLocaleString('en')}</span>
                        </span>
                      </td>
                      <td data-testid="budget-left">{b.leftMinutes.toLocaleString('en')}</td>
                      <td data-testid="budget-rate">{formatRate(b.burnPerDay)}</td>
                      <td data-testid="budget-runs-out" data-at={b.runsOutAt ?? ''} title={b.runsOutAt ? formatTime(b.runsOutAt) : undefined}>
                        {runOutText(b)}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
