/**
 * The undo window: after a reversible action the dashboard offers "Drained 4 nodes. Undo" for a
 * while (10 s), and Undo reverses it through the API. One offer at a time: a newer action replaces
 * the older offer (whose window simply ends). Cancelling a job has no inverse in the API and is never
 * offered here; it asks first instead.
 */

export const UNDO_WINDOW_MS = 10_000;

export type UndoState =
  | { phase: 'offered'; id: number; message: string }
  | { phase: 'undoing'; id: number; message: string }
  | { phase: 'undone'; id: number; message: string }
  | { phase: 'failed'; id: number; message: string; error: unknown };

export interface UndoTimers {
  set: (fn: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
}

const realTimers: UndoTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface UndoStore {
  /** Offers to undo what `message` says was done; `undo` reverses it. Replaces any earlier offer. */
  offer: (message: string, undo: () => Promise<unknown>, undoneMessage?: string) => void;
  /** Runs the offered undo once; a second call, or one after the window closed, does nothing. */
  undo: () => Promise<void>;
  dismiss: () => void;
  get: () => UndoState | null;
  subscribe: (listener: () => void) => () => void;
}

export function createUndoStore(windowMs = UNDO_WINDOW_MS, timers: UndoTimers = realTimers): UndoStore {
  let state: UndoState | null = null;
  let action: { undo: () => Promise<unknown>; undoneMessage: string } | null = null;
  let timer: unknown = null;
  let nextId = 1;
  const listeners = new Set<() => void>();

  function set(next: UndoState | null) {
    state = next;
    listeners.forEach((l) => l());
  }
  function closeAfter(ms: number, id: number) {
    if (timer !== null) timers.clear(timer);
    timer = timers.set(() => { timer = null; if (state?.id === id) { action = null; set(null); } }, ms);
  }

  return {
    offer(message, undo, undoneMessage = 'Undone.') {
      const id = nextId++;
      action = { undo, undoneMessage };
      set({ phase: 'offered', id, message });
      closeAfter(windowMs, id);
    },
    async undo() {
      if (state?.phase !== 'offered' || !action) return;
      const { id } = state;
      const { undo, undoneMessage } = action;
      action = null;
      if (timer !== null) { timers.clear(timer); timer = null; }
      set({ phase: 'undoing', id, message: state.message });
      try {
        await undo();
        if (state?.id === id) set({ phase: 'undone', id, message: undoneMessage });
      } catch (error) {
        if (state?.id === id) set({ phase: 'failed', id, message: `Could not undo: ${error instanceof Error ? error.message : String(error)}`, error });
      }
      if (state?.id === id) closeAfter(windowMs, id);
    },
    dismiss() {
      if (timer !== null) { timers.clear(timer); timer = null; }
      action = null;
      set(null);
    },
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
  };
}

/** The dashboard's one undo offer, shared by every view. */
export const undoStore = createUndoStore();

const DRAINED = new Set(['DRAINED', 'DRAINING', 'DOWN']);

/**
 * Which of the nodes just drained Undo resumes: only those that were not drained, draining or down
 * before (resuming a node somebody else had drained would undo more than this action did). A node
 * whose state was not known before counts as not drained.
 */
export function nodesToResume(drained: string[], stateBefore: ReadonlyMap<string, string>): string[] {
  return drained.filter((n) => !DRAINED.has(stateBefore.get(n) ?? ''));
}

/** "Drained 4 nodes" / "Resumed gpu001": what a node action did, in the undo offer's words. */
export function nodesDone(verb: 'Drained' | 'Resumed', names: string[], compressed: string): string {
  return names.length === 1 ? `${verb} ${names[0]}.` : `${verb} ${names.length} nodes (${compressed}).`;
}
