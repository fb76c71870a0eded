// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { failingText, gpuHours, nodeMarks, reasonBy, stateCounts } from './mywork';

const iso = (s: string) => `at ${s}`;

describe('stateCounts', () => {
  it('lists running before pending before ended, failures last, leaving out empty states', () => {
    expect(stateCounts([{ state: 'FAILED', tasks: 2 }, { state: 'PENDING', tasks: 5 }, { state: 'RUNNING', tasks: 3 },
      { state: 'COMPLETED', tasks: 0 }, { state: 'OUT_OF_MEMORY', tasks: 1 }])).toBe('3 running · 5 pending · 1 out of memory · 2 failed');
  });
  it('says nothing for no counts', () => {
    expect(stateCounts(undefined)).toBe('');
  });
});

describe('nodeMarks', () => {
  it('marks a node in a reservation with its name', () => {
    expect(nodeMarks({ reservation: 'train' }, iso)).toEqual([{ kind: 'reserved', text: 'reserved: train' }]);
  });
  it('announces a maintenance with its start', () => {
    expect(nodeMarks({ maintenanceReservation: 'fw', maintenanceStart: '2026-12-06T08:00:00Z' }, iso))
      .toEqual([{ kind: 'maintenance', text: 'maintenance fw from at 2026-12-06T08:00:00Z' }]);
  });
  it('marks a failing node with its figure, and not one whose failures are few', () => {
    expect(nodeMarks({ recentFailures: { failed: 75, ended: 100, windowMinutes: 10, failing: true } }, iso))
      .toEqual([{ kind: 'failing', text: 'failing: 75 of 100 jobs in 10 min' }]);
    expect(nodeMarks({ recentFailures: { failed: 1, ended: 40, windowMinutes: 10, failing: false } }, iso)).toEqual([]);
  });
  it('says one job in the singular', () => {
    expect(failingText({ failed: 1, ended: 1, windowMinutes: 10, failing: false })).toBe('failing: 1 of 1 job in 10 min');
  });
});

describe('reasonBy', () => {
  it('names who and when', () => {
    expect(reasonBy('alice', '2026-12-05T10:00:00Z', iso)).toBe('by alice, at 2026-12-05T10:00:00Z');
    expect(reasonBy(null, null, iso)).toBe('');
  });
});

describe('gpuHours', () => {
  it('rounds to a tenth below 100 and whole above', () => {
    expect(gpuHours(12.345)).toBe('12.3');
    expect(gpuHours(1234.6)).toBe('1,235');
    expect(gpuHours(undefined)).toBe('—');
  });
});
