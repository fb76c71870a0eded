// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { JobPriority, PendingReason } from '../api/types';
import { REASON_CLAUSES, UNRANKED_MS, dependencyParts, untilRanked, whyPending } from './pending';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const opts = { now: NOW, formatTime: (iso: string) => iso };
/**
 * Every reason the document lists: REASON_CLAUSES is a Record over the generated PendingReason, so
 * the compiler holds it to exactly those keys (ReasonSentencesTests checks them against the engine).
 */
const ALL = Object.keys(REASON_CLAUSES) as PendingReason[];

describe('why pending, in one sentence', () => {
  it('has plain words for every reason code, never the code itself', () => {
    expect(ALL).toEqual(expect.arrayContaining(['None', 'WaitingForReclaim', 'QuotaBorrowLimit', 'QuotaNothingToBorrow',
      'ReqNodeNotAvail, Reserved for maintenance']));
    for (const code of ALL) {
      expect(REASON_CLAUSES[code], code).toBeTruthy();
      const { sentence } = whyPending(code, null, opts);
      expect(sentence, code).toMatch(/^[A-Z].*\.$/);
      expect(sentence, code).not.toContain(code);
      expect(sentence.split(/\.\s/).length, `${code}: one sentence`).toBe(1);
    }
  });

  it('never tells a held, dependent or limited job that the scheduler will rank or place it', () => {
    for (const code of ['JobHeldUser', 'JobHeldAdmin', 'Dependency', 'DependencyNeverSatisfied', 'JobArrayTaskLimit',
      'QOSMaxJobsPerUserLimit', 'AssocGrpGRES', 'PartitionConfig', 'QuotaBorrowLimit', 'QuotaNothingToBorrow']) {
      const why = whyPending(code, '2026-12-03T13:00:00Z', opts);
      expect(why.sentence, code).not.toMatch(/next cycle|ranks it|expected to start|has not found/);
      expect(why.ranked, code).toBe(false);
      expect(why.at, code).toBeUndefined();
    }
    expect(whyPending('JobHeldUser', null, opts).sentence).toBe('It is held by its owner and will not start until released.');
    expect(whyPending('Dependency', null, { ...opts, dependency: 'afterok:12' }).sentence).toContain('afterok:12');
    expect(whyPending('JobArrayTaskLimit', null, opts).sentence).toContain('%limit');
  });

  it('gives the expected start the scheduler computed to a job waiting its turn', () => {
    const why = whyPending('Resources', '2026-12-03T12:30:00Z', opts);
    expect(why).toMatchObject({ at: '2026-12-03T12:30:00Z', ranked: true });
    expect(why.sentence).toBe('It is waiting for enough free nodes, CPUs, GPUs or memory; it is expected to start in 30 min '
      + '(at 2026-12-03T12:30:00Z), if the jobs ahead of it run to their time limits.');
    expect(whyPending('Priority', '2026-12-03T11:00:00Z', opts).sentence).toContain('should start at the next scheduling pass');
    expect(whyPending('Resources', null, opts).sentence).toContain('has not found a time it can start yet');
    expect(whyPending('BeginTime', '2026-12-03T15:00:00Z', { ...opts, eligibleTime: '2026-12-03T15:00:00Z' }).sentence)
      .toMatch(/^It may not start before its begin time, 2026-12-03T15:00:00Z; it is expected to start in /);
    expect(whyPending(null, null, opts).sentence).toMatch(/^The scheduler has not looked at it yet/);
    expect(whyPending('Frobnicated', null, opts).sentence).toContain('(Frobnicated)');
  });

  it('tells a job kept off by a maintenance window, and one waiting for reclaim, what they wait for', () => {
    const maint = whyPending('ReqNodeNotAvail, Reserved for maintenance', '2026-12-03T14:00:00Z', opts);
    expect(maint).toMatchObject({ at: '2026-12-03T14:00:00Z', ranked: true });
    expect(maint.sentence).toMatch(/^Nodes it could use are set aside for a maintenance window .*; it is expected to start in /);
    expect(whyPending('ReqNodeNotAvail', null, opts).sentence).toContain('busy with other jobs');
    expect(whyPending('WaitingForReclaim', null, opts)).toMatchObject({ ranked: false,
      sentence: expect.stringMatching(/guaranteed share.*it starts as they end\.$/) });
  });
});

describe('the queue priorities of a pending job, with the event stream open', () => {
  const entry = { jobId: '42', user: 'alice', priority: 100 } as JobPriority;
  it('are re-read until the job is in them, then only when an event comes', () => {
    expect(untilRanked(undefined, '42')).toBe(false);
    expect(untilRanked({ jobs: [] }, '42')).toBe(UNRANKED_MS);
    expect(untilRanked({ jobs: [{ ...entry, jobId: '41' }] }, '42')).toBe(UNRANKED_MS);
    expect(untilRanked({ jobs: [entry] }, '42')).toBe(false);
  });
});

describe('a dependency, for links to the jobs it names', () => {
  it('cuts out every job id after a type, array tasks and delays included', () => {
    expect(dependencyParts('afterok:12:13_2,afterany:14+10?singleton')).toEqual([
      { text: 'afterok:' }, { text: '12', job: '12' }, { text: ':' }, { text: '13_2', job: '13_2' },
      { text: ',afterany:' }, { text: '14', job: '14' }, { text: '+10?singleton' }]);
    expect(dependencyParts('singleton')).toEqual([{ text: 'singleton' }]);
  });
});
