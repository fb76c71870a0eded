import { describe, expect, it } from 'vitest';
import { SseLines, fallbackPoll, keepTrying, liveStreamOpen, staleKeys } from './live';

describe('SseLines', () => {
  it('finds the last event id and each message across chunk boundaries', () => {
    const lines = new SseLines();
    expect(lines.push('id: 4')).toEqual({ id: null, messages: [] });
    expect(lines.push('1\nevent: job\ndata: {"kind":"job","id":"7","change":"RUNNING"}\n\n')).toEqual({
      id: '41', messages: [{ kind: 'job', id: '7', change: 'RUNNING' }],
    });
    expect(lines.push(': heartbeat\n\n')).toEqual({ id: null, messages: [] });
    expect(lines.push('id: 42\r\ndata: {"kind":"node","id":"gpu001","change":"DRAINED"}\r\n\r\nid: 43\n')).toEqual({
      id: '43', messages: [{ kind: 'node', id: 'gpu001', change: 'DRAINED' }],
    });
    expect(lines.push('data: {"reason":"events were missed; reload"}\n')).toEqual({ id: null, messages: [{ kind: '', id: '' }] });
  });
});

describe('staleKeys', () => {
  it("refreshes lists on any message and a job's own queries only for the jobs named", () => {
    const { everyOf, exact } = staleKeys([
      { kind: 'job', id: '18_3', change: 'RUNNING' }, { kind: 'job', id: '18_4', change: 'RUNNING' },
      { kind: 'node', id: 'gpu002', change: 'MIXED' },
    ]);
    expect(everyOf).toEqual(['jobs', 'nodes', 'diag']);
    expect(exact).toEqual([
      ['job', '18_3'], ['jobEvents', '18_3'], ['jobSteps', '18_3'],
      ['job', '18_4'], ['jobEvents', '18_4'], ['jobSteps', '18_4'],
      ['node', 'gpu002'],
    ]);
    expect(exact).not.toContainEqual(['job', '7']);
    expect(exact, "the array's page follows its tasks by itself").not.toContainEqual(['job', '18']);
  });

  it("re-reads a re-planned job's page and the lists, not its history, steps, nodes or counts", () => {
    const { everyOf, exact } = staleKeys([
      { kind: 'job', id: '7', change: 'REPLANNED' }, { kind: 'job', id: '18_3', change: 'REPLANNED' },
    ]);
    expect(everyOf).toEqual(['jobs']);
    expect(exact).toEqual([['job', '7'], ['job', '18_3']]);
  });

  it("re-reads the pages of an array's tasks when the array is re-planned as one", () => {
    const { everyOf, exact, tasksOf } = staleKeys([{ kind: 'job', id: '18', change: 'REPLANNED TASKS' }, { kind: 'job', id: '19_2', change: 'REPLANNED' }]);
    expect(everyOf).toEqual(['jobs']);
    expect(exact, "not the array's first task: its page follows its tasks by itself").toEqual([['job', '19_2']]);
    expect(tasksOf).toEqual(['18']);
  });

  it("re-reads all of a job's queries when it was re-planned and also changed otherwise", () => {
    const { everyOf, exact } = staleKeys([
      { kind: 'job', id: '7', change: 'REPLANNED' }, { kind: 'job', id: '7', change: 'RUNNING' },
    ]);
    expect(everyOf).toEqual(['jobs', 'nodes', 'diag']);
    expect(exact).toEqual([['job', '7'], ['jobEvents', '7'], ['jobSteps', '7']]);
  });

  it('refreshes everything after the server says events were missed, nothing without messages', () => {
    expect(staleKeys([{ kind: '', id: '' }]).everyOf).toEqual(expect.arrayContaining(['job', 'jobEvents', 'jobSteps', 'node']));
    expect(staleKeys([])).toEqual({ everyOf: [], exact: [], tasksOf: [] });
  });
});

describe('keepTrying', () => {
  it('resumes after being dropped or capped, stops when the endpoint or the token is refused', () => {
    expect(keepTrying(200)).toBe(true);
    expect(keepTrying(429)).toBe(true);
    expect(keepTrying(503)).toBe(true);
    expect(keepTrying(401)).toBe(false);
    expect(keepTrying(404)).toBe(false);
  });
});

describe('fallbackPoll', () => {
  it('polls at its pace while no stream is open', () => {
    expect(liveStreamOpen()).toBe(false);
    expect(fallbackPoll(3000)()).toBe(3000);
  });
});
