import { useState } from 'react';
import { api } from '../api/client';
import type { Job, JobTrial } from '../api/types';
import { relative } from '../lib/format';
import { trialSummary } from '../lib/submitForm';
import { copyOf } from '../lib/whatIf';
import { ErrorBox } from './common';

/**
 * "When would a copy start?": the job's own request sent to POST /jobs/test (sbatch --test-only), which
 * stores nothing, and its answer in the words the submit form uses. Shown to whoever may see the script.
 */
export function JobWhatIf({ job }: { job: Job }) {
  const [trial, setTrial] = useState<JobTrial | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const copy = copyOf(job);
  if (!copy) return null;

  async function ask() {
    setBusy(true);
    setError(null);
    setTrial(null);
    try {
      setTrial(await api.testJob(copy!));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const summary = trial && trialSummary(trial, { relativeTime: relative });
  return (
    <div className="card" data-testid="job-what-if">
      <h2>A copy of this job</h2>
      <p>
        <button type="button" onClick={() => void ask()} disabled={busy} data-testid="job-what-if-ask">When would a copy start?</button>{' '}
        <span className="muted">Asks the scheduler as <code>sbatch --test-only</code> does; nothing is submitted.</span>
      </p>
      <ErrorBox error={error} testId="job-what-if-error" />
      {summary && (
        <div className="callout" role="status" data-testid="job-what-if-answer">
          {summary.when && <p data-testid="job-what-if-start" data-at={summary.at}>{summary.when}</p>}
          {summary.where && <p>{summary.where}</p>}
          {summary.why && <p data-testid="job-what-if-reason">{summary.why}</p>}
          {trial?.warnings?.map((w) => <p key={w} className="muted">{w}</p>)}
        </div>
      )}
    </div>
  );
}
