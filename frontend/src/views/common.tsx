import { useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';

export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return <span className={`badge state-${state.toLowerCase()}`} data-testid={testId}>{state}</span>;
}

export function ErrorBox({ error, testId = 'error' }: { error: unknown; testId?: string }) {
  if (!error) return null;
  const text = error instanceof ApiError
    ? `${error.problem.title ?? 'Error'} (${error.status}): ${error.problem.detail ?? ''}`
    : error instanceof Error ? error.message : String(error);
  return <div className="error" role="alert" data-testid={testId}>{text}</div>;
}

export function Loading({ what }: { what: string }) {
  return <p className="muted" aria-live="polite">Loading {what}…</p>;
}

/** A two-step button: the first press asks, the second acts. No window.confirm (blocked in tests, awkward on phones). */
export function ConfirmButton({ label, confirmLabel, onConfirm, testId, danger, disabled }: {
  label: string; confirmLabel?: string; onConfirm: () => void | Promise<unknown>; testId: string; danger?: boolean; disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return <button type="button" className={danger ? 'danger' : ''} disabled={disabled} data-testid={testId} onClick={() => setAsking(true)}>{label}</button>;
  }
  return (
    <span className="confirm">
      <button type="button" className={danger ? 'danger' : 'primary'} data-testid={`${testId}-confirm`} autoFocus
        onClick={async () => { setAsking(false); await onConfirm(); }}>{confirmLabel ?? `Yes, ${label.toLowerCase()}`}</button>
      <button type="button" data-testid={`${testId}-abort`} onClick={() => setAsking(false)}>Keep</button>
    </span>
  );
}

export function Field({ label, children, error, hint, htmlFor }: { label: string; children: ReactNode; error?: string; hint?: string; htmlFor: string }) {
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      {hint && !error && <small className="muted">{hint}</small>}
      {error && <small className="field-error" data-testid={`error-${htmlFor}`} role="alert">{error}</small>}
    </div>
  );
}

export function Stat({ label, value, testId, tone }: { label: string; value: ReactNode; testId: string; tone?: string }) {
  return (
    <div className={`stat ${tone ?? ''}`}>
      <div className="stat-value" data-testid={testId}>{value}</div>
      <div className="stat-label">{label}</div>
    </div>
  );
}
