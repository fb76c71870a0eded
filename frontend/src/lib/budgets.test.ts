import { describe, expect, it } from 'vitest';
import type { Budget } from '../api/types';
import { budgetOwner, budgetUnit, formatRate, runOutText, usedPercent } from './budgets';

const budget = (over: Partial<Budget> = {}): Budget => ({
  owner: 'ASSOCIATION', associationId: 7, account: 'physics', user: null, qos: null, tres: 'gres/gpu',
  limitMinutes: 6000, usedMinutes: 4500, leftMinutes: 1500, burnPerDay: 480, rateSince: '2026-03-10T12:00:00Z',
  runsOutAt: '2026-03-14T03:00:00Z', ...over,
});

describe('budgets', () => {
  it('names an account, a user in an account and a QOS', () => {
    expect(budgetOwner(budget())).toBe('account physics');
    expect(budgetOwner(budget({ user: 'alice' }))).toBe('alice in physics');
    expect(budgetOwner(budget({ owner: 'QOS', account: null, qos: 'high' }))).toBe('QOS high');
  });

  it('says the unit of each TRES', () => {
    expect(['gres/gpu', 'cpu', 'mem', 'node'].map(budgetUnit)).toEqual(['GPU-min', 'CPU-min', 'MB-min', 'node-min']);
  });

  it('fills the bar by the share used, full when over or when the limit is 0', () => {
    expect(usedPercent(budget())).toBe(75);
    expect(usedPercent(budget({ usedMinutes: 7000, leftMinutes: 0 }))).toBe(100);
    expect(usedPercent(budget({ limitMinutes: 0, usedMinutes: 0, leftMinutes: 0 }))).toBe(100);
  });

  it('says the run-out day in UTC, "not at this rate" without one and "ran out" with nothing left', () => {
    expect(runOutText(budget())).toBe('runs out on Mar 14, 2026');
    expect(runOutText(budget({ runsOutAt: '2026-03-14T23:59:00Z' }))).toBe('runs out on Mar 14, 2026');
    expect(runOutText(budget({ runsOutAt: null, burnPerDay: 0 }))).toBe('not at this rate');
    expect(runOutText(budget({ usedMinutes: 6000, leftMinutes: 0, runsOutAt: '2026-03-10T12:00:00Z' }))).toBe('ran out');
  });

  it('rounds a fast burn to whole minutes and keeps a decimal of a slow one', () => {
    expect(formatRate(1234.56)).toBe('1,235');
    expect(formatRate(0.25)).toBe('0.3');
    expect(formatRate(0)).toBe('0.0');
  });
});
