// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { AccountingRecord, Job, JobPriority } from '../api/types';
import { ACCOUNT_PALETTE, accountColour, compareJobIds, efficiency, fairShareTree, gpuHoursPerAccountPerDay, queuePosition, quotaTree } from './accounting';
import { DEFAULT_COLUMNS, elapsedSeconds, isServerSortable, loadColumns, saveColumns, serverSort, timeLeftSeconds } from './columns';
import { accountDailyUsage, addSample, clusterGpuSeries, idleCauseTotals } from './utilization';

const row = (account: string, start: string, hours: number, gpus: number, end?: string | null): AccountingRecord => ({
  jobId: `${account}-${start}`, user: 'u', account, state: 'COMPLETED', startTime: start,
  endTime: end === undefined ? new Date(new Date(start).getTime() + hours * 3600_000).toISOString() : end,
  elapsedSeconds: hours * 3600, gpuSeconds: hours * 3600 * gpus, cpuSeconds: 0,
});

describe('GPU-hours per account per day', () => {
  const start = Date.parse('2026-03-01T00:00:00Z'), end = Date.parse('2026-03-04T00:00:00Z');

  it('sums each account per UTC day and puts the busiest account first', () => {
    const usage = gpuHoursPerAccountPerDay([
      row('bio', '2026-03-01T10:00:00Z', 2, 4), row('physics', '2026-03-01T01:00:00Z', 1, 8),
      row('physics', '2026-03-03T05:00:00Z', 3, 2), row('idle', '2026-03-02T05:00:00Z', 3, 0),
    ], start, end);
    expect(usage.days).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(usage.accounts).toEqual(['physics', 'bio']);
    expect(usage.hours.physics).toEqual([8, 0, 6]);
    expect(usage.hours.bio).toEqual([8, 0, 0]);
  });

  it('splits a run across midnight and drops what lies outside the window', () => {
    const usage = gpuHoursPerAccountPerDay([
      row('a', '2026-03-01T22:00:00Z', 4, 2), // 2 h on day 1, 2 h on day 2
      row('a', '2026-02-28T23:00:00Z', 2, 1), // 1 h before the window, 1 h in it
      row('a', '2026-03-03T23:00:00Z', 2, 1), // 1 h in, 1 h after the end
    ], start, end);
    expect(usage.hours.a).toEqual([4 + 1, 4, 1]);
  });

  it('counts a running job up to now', () => {
    const now = Date.parse('2026-03-02T12:00:00Z');
    const usage = gpuHoursPerAccountPerDay([row('a', '2026-03-02T10:00:00Z', 2, 3, null)], start, end, now);
    expect(usage.hours.a).toEqual([0, 6, 0]);
  });
});

describe('efficiency', () => {
  it('is elapsed over the limit, capped at 1, unknown without a limit', () => {
    expect(efficiency({ elapsedSeconds: 1800, timeLimitSeconds: 3600 })).toBe(0.5);
    expect(efficiency({ elapsedSeconds: 4000, timeLimitSeconds: 3600 })).toBe(1);
    expect(efficiency({ elapsedSeconds: 10, timeLimitSeconds: null })).toBeNull();
  });
});

describe('fair-share tree', () => {
  it('places accounts under parents and users under their account', () => {
    const tree = fairShareTree([
      { account: 'root', depth: 0 }, { account: 'alice-acct', user: 'alice', parent: 'physics', depth: 2 } as never,
      { account: 'physics', parent: 'root', depth: 1 }, { account: 'physics', user: 'bob', parent: 'physics', depth: 2 },
      { account: 'root', user: 'admin', parent: 'root', depth: 1 },
    ]);
    expect(tree.map((l) => `${'  '.repeat(l.level)}${l.user ?? l.account}`)).toEqual([
      'root', '  admin', '  physics', '    bob', 'alice',
    ]);
  });
});

describe('queue position', () => {
  const p = (jobId: string, priority: number, partition = 'gpu'): JobPriority => ({ jobId, priority, partition });
  const jobs = [p('10', 500), p('11', 900), p('12', 900), p('13', 100), p('20', 5000, 'cpu'), p('14_1', 700), p('14_0', 700)];

  it('counts only its partition, by priority then job id', () => {
    expect(queuePosition(jobs, '12', 'gpu')).toMatchObject({ position: 2, of: 6 });
    expect(queuePosition(jobs, '14_1', 'gpu')?.position).toBe(4);
    expect(queuePosition(jobs, '11', 'gpu')?.ahead).toEqual([]);
    expect(queuePosition(jobs, '20', 'cpu')).toMatchObject({ position: 1, of: 1 });
  });

  it('is unknown for a job the scheduler has not ranked', () => {
    expect(queuePosition(jobs, '99', 'gpu')).toBeNull();
  });

  it('orders job ids numerically, array tasks after their job', () => {
    expect(['43', '42_10', '42_3', '42', '9'].sort(compareJobIds)).toEqual(['9', '42', '42_3', '42_10', '43']);
  });
});

describe('jobs table columns and sort', () => {
  const memory = () => { const m = new Map<string, string>(); return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) }; };

  it('keeps the chosen columns in storage, in table order, ignoring unknown ones', () => {
    const storage = memory();
    expect(loadColumns(storage)).toEqual(DEFAULT_COLUMNS);
    saveColumns(['priority', 'name'], storage);
    expect(loadColumns(storage)).toEqual(['name', 'priority']);
    storage.setItem('gantry.jobs.columns', '["nope","user"]');
    expect(loadColumns(storage)).toEqual(['user']);
    storage.setItem('gantry.jobs.columns', '{broken');
    expect(loadColumns(storage)).toEqual(DEFAULT_COLUMNS);
  });

  it('asks the server to sort by the keys it knows, and no other', () => {
    expect(serverSort('submitted', true)).toBe('-submit');
    expect(serverSort('started', false)).toBe('start');
    expect(serverSort('expectedStart', false)).toBe('expected');
    expect(serverSort('expectedStart', true)).toBe('-expected');
    expect(serverSort('state', true)).toBe('-state');
    expect(serverSort('id', false)).toBe('id');
    expect(serverSort('name', false)).toBeUndefined();
    expect(serverSort(null, false)).toBeUndefined();
    expect(isServerSortable('partition')).toBe(false);
    expect(isServerSortable('priority')).toBe(true);
  });

  it('counts elapsed and time left for a running job, nothing for a pending one', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    const running = { jobId: 1, user: 'u', state: 'RUNNING', startTime: '2026-01-01T00:30:00Z', timeLimitSeconds: 3600 } as Job;
    expect(elapsedSeconds(running, now)).toBe(1800);
    expect(timeLeftSeconds(running, now)).toBe(1800);
    const ended = { ...running, state: 'COMPLETED', endTime: '2026-01-01T00:40:00Z' } as Job;
    expect(elapsedSeconds(ended, now)).toBe(600);
    expect(timeLeftSeconds(ended, now)).toBeNull();
    const pending = { jobId: 2, user: 'u', state: 'PENDING', timeLimitSeconds: 60 } as Job;
    expect(elapsedSeconds(pending, now)).toBeNull();
    expect(timeLeftSeconds(pending, now)).toBeNull();
    expect(timeLeftSeconds({ ...running, timeLimitSeconds: null } as Job, now)).toBeNull();
  });
});

describe('utilization', () => {
  it('samples at most every 30 s and forgets what is older than a day', () => {
    const s = { total: 8, allocated: 2, idle: 6, drained: 0, down: 0, poweredDown: 0 };
    let samples = addSample([], s, 0);
    samples = addSample(samples, { ...s, allocated: 3 }, 10_000);
    expect(samples).toEqual([{ t: 0, allocated: 3, idle: 6, drained: 0, down: 0 }]);
    samples = addSample(samples, s, 40_000);
    expect(samples.length).toBe(2);
    samples = addSample(samples, s, 24 * 3600_000 + 20_000);
    expect(samples.map((x) => x.t)).toEqual([40_000, 24 * 3600_000 + 20_000]);
  });

  it('reads hourly GPU-hours as shares of the GPUs, leaving out hours never sampled', () => {
    const bucket = (start: string, end: string, group: string, allocated: number, total = allocated + 6) =>
      ({ start, end, group, gpuHours: { allocated, idle: 4, down: 0, reserved: 2, total } });
    const series = clusterGpuSeries({ buckets: [bucket('2026-03-01T01:00:00Z', '2026-03-01T02:00:00Z', 'c', 10),
      bucket('2026-03-01T00:00:00Z', '2026-03-01T01:00:00Z', 'c', 2), bucket('2026-03-01T02:00:00Z', '2026-03-01T03:00:00Z', 'c', 0, 0)] }, 16);
    expect(series.times).toEqual([Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-03-01T01:00:00Z')]);
    expect(series.allocated).toEqual([4, 10]);
    expect(series.idle).toEqual([8, 4]);
    expect(series.drained).toEqual([4, 2]);
    const daily = accountDailyUsage({ buckets: [bucket('2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z', 'bio', 5),
      bucket('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z', 'physics', 7), bucket('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z', 'none', 0)] });
    expect(daily).toEqual({ days: ['2026-03-01', '2026-03-02'], accounts: ['physics', 'bio'], hours: { bio: [5, 0], physics: [0, 7], none: [0, 0] } });
  });
});

describe('idle causes on the overview', () => {
  const causes = (noDemand: number, fragmented: number, down: number) =>
    ({ noDemand, reserved: 0, fragmented, topology: 0, limits: 0, draining: 0, down });
  const bucket = (idleCauses: ReturnType<typeof causes> | null) => ({ start: '2026-03-01T00:00:00Z', end: '2026-03-01T01:00:00Z',
    group: null, gpuHours: { allocated: 0, idle: 0, down: 0, total: 0 }, idleCauses });

  it('sums GPU-seconds per cause into GPU-hours in precedence order, with shares of the whole', () => {
    const totals = idleCauseTotals({ buckets: [bucket(causes(3600, 7200, 0)), bucket(causes(0, 3600, 7200)), bucket(null)] })!;
    expect(totals.map((t) => t.key)).toEqual(['down', 'draining', 'poweredDown', 'reserved', 'limits', 'topology', 'fragmented',
      'noDemand']);
    // A controller from before power saving sends no poweredDown: none.
    expect(totals.find((t) => t.key === 'poweredDown')).toMatchObject({ hours: 0, share: 0 });
    expect(totals.find((t) => t.key === 'fragmented')).toMatchObject({ hours: 3, share: 0.5 });
    expect(totals.find((t) => t.key === 'noDemand')).toMatchObject({ hours: 1, share: 1 / 6 });
    expect(totals.reduce((a, t) => a + t.share, 0)).toBeCloseTo(1);
  });

  it('counts powered-down GPU-hours as their own cause', () => {
    const totals = idleCauseTotals({ buckets: [bucket({ ...causes(3600, 0, 0), poweredDown: 10800 } as never)] })!;
    expect(totals.find((t) => t.key === 'poweredDown')).toMatchObject({ hours: 3, share: 0.75 });
    expect(totals.find((t) => t.key === 'noDemand')).toMatchObject({ hours: 1, share: 0.25 });
  });

  it('gives nothing for a report without causes and no shares when nothing was idle', () => {
    expect(idleCauseTotals({ buckets: [bucket(null)] })).toBeNull();
    expect(idleCauseTotals({ buckets: [bucket(causes(0, 0, 0))] })!.every((t) => t.share === 0)).toBe(true);
  });
});

describe('quotaTree', () => {
  const line = (account: string, parent: string | null, tres = 'gres/gpu') =>
    ({ account, parent, tres, guaranteed: 0, inUse: 0, borrowed: 0, lent: 0, pendingDemand: 0 });
  it('orders accounts depth first under their parents, children by name, one GPU kind', () => {
    const tree = quotaTree([line('vision', 'root'), line('root', null), line('nlp', 'root'), line('nlp-a', 'nlp'),
      line('vision', 'root', 'gres/gpu:h100')]);
    expect(tree.map((l) => [l.account, l.level])).toEqual([['root', 0], ['nlp', 1], ['nlp-a', 2], ['vision', 1]]);
  });
});

describe('accountColour', () => {
  it('gives each account the same colour whatever order the accounts arrive in', () => {
    const first = ['physics', 'chemistry', 'biology', 'ml-lab', 'astro'];
    const second = [...first].reverse();
    const colours = (accounts: string[]) => Object.fromEntries(accounts.map((a) => [a, accountColour(a)]));
    expect(colours(second)).toEqual(colours(first));
    for (const a of first) expect(ACCOUNT_PALETTE).toContain(accountColour(a));
  });

  it('spreads different accounts over the palette rather than one colour', () => {
    const names = Array.from({ length: 40 }, (_, i) => `account-${i}`);
    expect(new Set(names.map(accountColour)).size).toBeGreaterThanOrEqual(8);
  });
});
