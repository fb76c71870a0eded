import { useSyncExternalStore } from 'react';
import { undoStore } from '../lib/undo';

/**
 * The undo offer of the last reversible action ("Drained 4 nodes. Undo"), for ~10 s. The live
 * region is always on the page (role=status), so what appears in it is announced; Undo is a plain
 * button, reachable by Tab.
 */
export function UndoStatus() {
  const state = useSyncExternalStore(undoStore.subscribe, undoStore.get);
  return (
    <div role="status" className="undo-status" data-testid="undo-status" data-phase={state?.phase ?? 'none'}>
      {state && (
        <>
          <span data-testid="undo-message">{state.phase === 'undoing' ? `${state.message} Undoing…` : state.message}</span>
          {state.phase === 'offered' && (
            <button type="button" data-testid="undo-button" onClick={() => void undoStore.undo()}>Undo</button>
          )}
          <button type="button" className="link" aria-label="Dismiss" data-testid="undo-dismiss" onClick={() => undoStore.dismiss()}>×</button>
        </>
      )}
    </div>
  );
}
