import { describe, expect, it } from 'vitest';
import { explainStart } from './expectedStart';

const NOW = Date.parse('2026-12-03T12:00:00Z');

describe('expected start in the why-pending panel', () => {
  it('shows the estimate of a job waiting for resources or priority', () => {
    expect(explainStart('Resources', '2026-12-03T13:00:00Z', NOW))
      .toEqual({ kind: 'expected', at: '2026-12-03T13:00:00Z', notBeforeBegin: false, overdue: false });
    expect(explainStart('Priority', '2026-12-03T11:59:00Z', NOW)).toMatchObject({ kind: 'expected', overdue: true });
    expect(explainStart('BeginTime', '2026-12-04T00:00:00Z', NOW)).toMatchObject({ kind: 'expected', notBeforeBegin: true });
  });

  it('never shows a time beside a reason that rules one out, even a stale one', () => {
    for (const reason of ['JobHeldUser', 'JobHeldAdmin', 'Dependency', 'DependencyNeverSatisfied', 'PartitionDown',
      'QOSMaxJobsPerUserLimit', 'AssocGrpGRES', 'QOSMaxGRESPerJob', 'JobArrayTaskLimit']) {
      expect(explainStart(reason, '2026-12-03T13:00:00Z', NOW).kind).toBe('none');
    }
    expect(explainStart('JobHeldUser', null, NOW)).toEqual({ kind: 'none', why: expect.stringContaining('held') });
    expect(explainStart('QOSMaxJobsPerUserLimit', null, NOW)).toEqual({ kind: 'none', why: expect.stringContaining('limit') });
  });

  it('gives a job of an advance reservation the time it can start in it, else says it waits for it', () => {
    expect(explainStart('Reservation', '2026-12-03T14:00:00Z', NOW))
      .toEqual({ kind: 'expected', at: '2026-12-03T14:00:00Z', notBeforeBegin: false, overdue: false });
    expect(explainStart('Reservation', null, NOW)).toEqual({ kind: 'none', why: expect.stringContaining('advance reservation') });
  });

  it('says when the scheduler has not placed a job yet', () => {
    expect(explainStart('Resources', null, NOW)).toEqual({ kind: 'none', why: expect.stringContaining('not placed it yet') });
  });
});
