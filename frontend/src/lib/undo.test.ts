// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { createUndoStore, nodesDone, nodesToResume, type UndoTimers } from './undo';
import { compressHostlist, expandHostlist } from './hostlist';

/** Timers the test moves by hand. */
function fakeTimers() {
  let now = 0;
  const pending: { at: number; fn: () => void; handle: number }[] = [];
  let next = 1;
  const timers: UndoTimers = {
    set: (fn, ms) => { const handle = next++; pending.push({ at: now + ms, fn, handle }); return handle; },
    clear: (h) => { const i = pending.findIndex((p) => p.handle === h); if (i >= 0) pending.splice(i, 1); },
  };
  function advance(ms: number) {
    now += ms;
    for (const p of pending.filter((p) => p.at <= now)) { pending.splice(pending.indexOf(p), 1); p.fn(); }
  }
  return { timers, advance };
}

describe('undo window', () => {
  it('offers the undo for the window, then forgets it and undo does nothing', async () => {
    const { timers, advance } = fakeTimers();
    const store = createUndoStore(10_000, timers);
    const undo = vi.fn(async () => {});
    store.offer('Drained 3 nodes (gpu[012-014]).', undo);
    expect(store.get()).toMatchObject({ phase: 'offered', message: 'Drained 3 nodes (gpu[012-014]).' });
    advance(9_999);
    expect(store.get()?.phase).toBe('offered');
    advance(1);
    expect(store.get()).toBeNull();
    await store.undo();
    expect(undo).not.toHaveBeenCalled();
  });

  it('runs the undo once, says so, and the message then goes too', async () => {
    const { timers, advance } = fakeTimers();
    const store = createUndoStore(10_000, timers);
    const seen: (string | undefined)[] = [];
    store.subscribe(() => seen.push(store.get()?.phase));
    const undo = vi.fn(async () => {});
    store.offer('Held job 42.', undo, 'Released job 42 again.');
    await Promise.all([store.undo(), store.undo()]);
    expect(undo).toHaveBeenCalledTimes(1);
    expect(store.get()).toMatchObject({ phase: 'undone', message: 'Released job 42 again.' });
    expect(seen).toEqual(['offered', 'undoing', 'undone']);
    advance(10_000);
    expect(store.get()).toBeNull();
  });

  it('a newer action replaces the offer; the older one cannot be undone any more', async () => {
    const { timers, advance } = fakeTimers();
    const store = createUndoStore(10_000, timers);
    const first = vi.fn(async () => {});
    const second = vi.fn(async () => {});
    store.offer('Drained gpu001.', first);
    advance(6_000);
    store.offer('Drained gpu002.', second);
    advance(6_000); // the first window's end must not close the second offer
    expect(store.get()).toMatchObject({ phase: 'offered', message: 'Drained gpu002.' });
    await store.undo();
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('a failed undo says why and is not retried by a second click', async () => {
    const { timers } = fakeTimers();
    const store = createUndoStore(10_000, timers);
    const undo = vi.fn(async () => { throw new Error("Node 'gpu001' is IDLE; only a drained node can be resumed"); });
    store.offer('Drained gpu001.', undo);
    await store.undo();
    await store.undo();
    expect(undo).toHaveBeenCalledTimes(1);
    expect(store.get()).toMatchObject({ phase: 'failed', message: "Could not undo: Node 'gpu001' is IDLE; only a drained node can be resumed" });
  });

  it('dismiss closes the offer at once', async () => {
    const store = createUndoStore(10_000, fakeTimers().timers);
    const undo = vi.fn(async () => {});
    store.offer('Set partition cpu DOWN.', undo);
    store.dismiss();
    await store.undo();
    expect(store.get()).toBeNull();
    expect(undo).not.toHaveBeenCalled();
  });
});

describe('undoing a drain', () => {
  it('resumes only the nodes this drain changed, not those drained before it', () => {
    const before = new Map([['gpu012', 'IDLE'], ['gpu013', 'DRAINED'], ['gpu014', 'MIXED'], ['gpu015', 'DOWN'], ['gpu016', 'DRAINING']]);
    expect(nodesToResume(['gpu012', 'gpu013', 'gpu014', 'gpu015', 'gpu016', 'gpu099'], before)).toEqual(['gpu012', 'gpu014', 'gpu099']);
  });

  it('says how many nodes and which', () => {
    expect(nodesDone('Drained', ['gpu012', 'gpu013', 'gpu014'], 'gpu[012-014]')).toBe('Drained 3 nodes (gpu[012-014]).');
    expect(nodesDone('Resumed', ['cpu001'], 'cpu001')).toBe('Resumed cpu001.');
  });
});

describe('compressHostlist', () => {
  it('shares brackets between names of one prefix and number width, and reads back as the same names', () => {
    expect(compressHostlist(['gpu003', 'gpu001', 'gpu002', 'gpu007', 'cpu01', 'login', 'gpu002'])).toBe('gpu[001-003,007],cpu01,login');
    expect(compressHostlist(['n9', 'n10', 'n11'])).toBe('n9,n[10-11]');
    expect(compressHostlist([])).toBe('');
    const names = ['gpu012', 'gpu013', 'gpu014', 'cpu001', 'cpu003'];
    expect(expandHostlist(compressHostlist(names)).sort()).toEqual([...names].sort());
  });
});
