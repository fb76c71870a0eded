/** How long the jobs list's text filters wait after the last keystroke before they query the server. */
export const FILTER_DEBOUNCE_MS = 300;

/**
 * Holds the latest value typed into a filter and applies it once typing pauses for `ms`, so a name
 * typed letter by letter is one server query, not one per letter. `flush` applies what is waiting
 * at once (Enter, or a cleared box); `cancel` drops it (the box unmounts). A value equal to the one
 * last applied is not applied again.
 */
export interface Debounced<T> {
  /** Takes a new value; it applies after `ms` unless another arrives first. */
  push(value: T): void;
  /** Applies `value` (or the waiting one) now, without waiting. */
  flush(value?: T): void;
  cancel(): void;
  /** Records a value applied from elsewhere (the URL changed): pushing it again then applies nothing. */
  sync(value: T): void;
  /** Whether a value is waiting to apply. */
  pending(): boolean;
}

export function debounced<T>(apply: (value: T) => void, ms: number, initial: T): Debounced<T> {
  let applied = initial;
  let waiting: { value: T } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stop = () => { if (timer !== null) clearTimeout(timer); timer = null; };
  const run = (value: T) => {
    stop();
    waiting = null;
    if (value === applied) return;
    applied = value;
    apply(value);
  };
  return {
    push(value) {
      stop();
      waiting = { value };
      timer = setTimeout(() => run(value), ms);
    },
    flush(value) {
      if (value !== undefined) run(value);
      else if (waiting) run(waiting.value);
    },
    cancel() { stop(); waiting = null; },
    sync(value) { applied = value; },
    pending: () => waiting !== null,
  };
}
