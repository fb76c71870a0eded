import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import './admin.css';

export interface ConfirmProps {
  /** The question, the dialog's name: "Delete QOS gold?". */
  title: string;
  /** What doing it means, in a sentence or two. */
  message?: ReactNode;
  /** The button that does it: "Delete", "Set DOWN". */
  confirmLabel: string;
  /** The button that leaves everything as it is. */
  cancelLabel?: string;
  danger?: boolean;
  /** The buttons are `${testId}-confirm` and `${testId}-abort`. */
  testId: string;
  onConfirm: () => void | Promise<unknown>;
  onCancel: () => void;
}

/**
 * The one question every destructive admin action asks first: a modal dialog (role=dialog,
 * aria-modal, named by its question and described by its message) that takes the focus on its
 * safe button, keeps Tab inside, and is cancelled by Escape, its Cancel button or a click outside.
 * Focus goes back to what had it before, when that is still on the page.
 */
export function ConfirmDialog({ title, message, confirmLabel, cancelLabel = 'Cancel', danger, testId, onConfirm, onCancel }: ConfirmProps) {
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    cancel.current?.focus();
    return () => { if (before?.isConnected) before.focus(); };
  }, []);

  function keys(e: KeyboardEvent) {
    if (e.key === 'Escape') { e.stopPropagation(); onCancel(); return; }
    if (e.key !== 'Tab' || !box.current) return;
    const focusable = [...box.current.querySelectorAll<HTMLElement>('button:not([disabled])')];
    if (focusable.length === 0) return;
    const first = focusable[0], last = focusable[focusable.length - 1];
    if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
    else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
  }

  return (
    <div className="modal-backdrop" onMouseDown={(e) => { if (e.target === e.currentTarget) onCancel(); }}>
      <div ref={box} className="modal card" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`}
        aria-describedby={message ? `${id}-message` : undefined} data-testid={`${testId}-dialog`} onKeyDown={keys}>
        <h2 id={`${id}-title`}>{title}</h2>
        {message && <p id={`${id}-message`}>{message}</p>}
        <div className="actions">
          <button type="button" ref={cancel} data-testid={`${testId}-abort`} onClick={onCancel} disabled={busy}>{cancelLabel}</button>
          <button type="button" className={danger ? 'danger primary' : 'primary'} data-testid={`${testId}-confirm`} disabled={busy}
            onClick={async () => { setBusy(true); try { await onConfirm(); } finally { setBusy(false); } }}>{confirmLabel}</button>
        </div>
      </div>
    </div>
  );
}

/**
 * A button that asks first ({@link ConfirmDialog}) and acts only once confirmed. The button itself is
 * `testId`; the dialog's buttons `${testId}-confirm` and `${testId}-abort`.
 */
export function ConfirmAction({ label, title, message, confirmLabel, danger = true, testId, disabled, onConfirm, ariaLabel }: {
  label: string; title: string; message?: ReactNode; confirmLabel?: string; danger?: boolean; testId: string; disabled?: boolean;
  onConfirm: () => void | Promise<unknown>; ariaLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <button type="button" className={danger ? 'danger' : ''} disabled={disabled} data-testid={testId} aria-label={ariaLabel}
        aria-haspopup="dialog" onClick={() => setAsking(true)}>{label}</button>
      {asking && (
        <ConfirmDialog title={title} message={message} confirmLabel={confirmLabel ?? label} danger={danger} testId={testId}
          onCancel={() => setAsking(false)} onConfirm={async () => { setAsking(false); await onConfirm(); }} />
      )}
    </>
  );
}
