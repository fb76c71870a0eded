import { describe, expect, it } from 'vitest';
import { arrayLabel, countByState, taskRanges } from './arrays';
import type { Job } from '../api/types';

describe('array labels', () => {
  it('writes task ids as ranges', () => {
    expect(taskRanges([3, 0, 1, 2, 7, 9, 10])).toBe('0-3,7,9-10');
    expect(taskRanges([5])).toBe('5');
    expect(taskRanges([])).toBe('');
  });
  it('labels an array by its range and its tasks by state, never as a task id', () => {
    const tasks = [
      ...Array.from({ length: 46 }, (_, i) => ({ arrayTaskId: 54 + i, state: 'PENDING' })),
      ...Array.from({ length: 54 }, (_, i) => ({ arrayTaskId: i, state: 'COMPLETED' })),
    ] as Job[];
    expect(arrayLabel(18, tasks)).toBe('18_[0-99] · 46 pending · 54 completed');
    expect(countByState([{ state: 'NODE_FAIL' }, { state: 'RUNNING' }, { state: 'NODE_FAIL' }] as Job[]))
      .toEqual([['RUNNING', 1], ['NODE_FAIL', 2]]);
    expect(arrayLabel(7, [{ arrayTaskId: 1, state: 'NODE_FAIL' }] as Job[])).toBe('7_[1] · 1 node fail');
  });
});

describe('accounts tree', () => {
  it('lists accounts depth-first, each with its users beneath it before its sub-accounts', async () => {
    const { accountTree } = await import('../views/Admin');
    const rows = accountTree(
      [{ name: 'root' }, { name: 'physics', parent: 'root' }, { name: 'chemistry', parent: 'root' }, { name: 'hep', parent: 'physics' }],
      [{ id: 1, account: 'root', shares: 1 }, { id: 2, account: 'physics', user: 'bob', shares: 3 }, { id: 3, account: 'physics', user: 'alice' },
        { id: 4, account: 'hep', user: 'carol', maxJobs: 5 }],
    );
    expect(rows.map((r) => `${'  '.repeat(r.depth)}${r.user ?? r.account}`)).toEqual([
      'root', '  chemistry', '  physics', '    alice', '    bob', '    hep', '      carol',
    ]);
    expect(rows.find((r) => r.user === 'carol')?.maxJobs).toBe(5);
  });
});
