import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounced, FILTER_DEBOUNCE_MS } from './debounce';

describe('debounced filter', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('applies a word typed letter by letter once, 300 ms after the last letter', () => {
    const apply = vi.fn();
    const d = debounced<string>(apply, FILTER_DEBOUNCE_MS, '');
    for (const prefix of ['t', 'tr', 'tra', 'trai', 'train']) {
      d.push(prefix);
      vi.advanceTimersByTime(100);
    }
    expect(apply).not.toHaveBeenCalled();
    vi.advanceTimersByTime(199);
    expect(apply).not.toHaveBeenCalled();
    expect(d.pending()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(apply).toHaveBeenCalledTimes(1);
    expect(apply).toHaveBeenCalledWith('train');
    expect(d.pending()).toBe(false);
  });

  it('applies at once on Enter and does not apply the same value again when the timer would have fired', () => {
    const apply = vi.fn();
    const d = debounced<string>(apply, FILTER_DEBOUNCE_MS, '');
    d.push('ali');
    d.flush();
    expect(apply).toHaveBeenCalledWith('ali');
    vi.advanceTimersByTime(1000);
    expect(apply).toHaveBeenCalledTimes(1);
  });

  it('applies a cleared box at once and drops the word still waiting', () => {
    const apply = vi.fn();
    const d = debounced<string>(apply, FILTER_DEBOUNCE_MS, 'bob');
    d.push('bo');
    d.flush('');
    expect(apply).toHaveBeenCalledTimes(1);
    expect(apply).toHaveBeenCalledWith('');
    vi.advanceTimersByTime(1000);
    expect(apply).toHaveBeenCalledTimes(1);
  });

  it('does not query when typing ends where it began, and cancel drops what waits', () => {
    const apply = vi.fn();
    const d = debounced<string>(apply, FILTER_DEBOUNCE_MS, 'gpu');
    d.push('gp');
    d.push('gpu');
    vi.advanceTimersByTime(FILTER_DEBOUNCE_MS);
    expect(apply).not.toHaveBeenCalled();
    d.push('x');
    d.cancel();
    vi.advanceTimersByTime(FILTER_DEBOUNCE_MS);
    expect(apply).not.toHaveBeenCalled();
    d.flush();
    expect(apply).not.toHaveBeenCalled();
  });
});

describe('debounced filter after the URL changed', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('applies a value typed back after Back restored another one', () => {
    const apply = vi.fn();
    const d = debounced<string>(apply, FILTER_DEBOUNCE_MS, '');
    d.push('alice');
    vi.advanceTimersByTime(FILTER_DEBOUNCE_MS);
    d.sync('');
    d.push('alice');
    vi.advanceTimersByTime(FILTER_DEBOUNCE_MS);
    expect(apply).toHaveBeenCalledTimes(2);
  });
});
