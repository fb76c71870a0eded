import { describe, expect, it } from 'vitest';
import type { Job } from '../api/types';
import { expandOutputPattern, NO_ARRAY_TASK, outputPath, requestedNodes } from './outputPath';

const running: Job = {
  jobId: 42, id: '42', name: 'train', user: 'alice', state: 'RUNNING', workdir: '/home/alice/run',
  allocatedNodes: 'gpu[003-004]', allocation: [{ node: 'gpu003', cpus: 4, memoryMb: 1000 }, { node: 'gpu004', cpus: 4, memoryMb: 1000 }],
};
const task: Job = { ...running, jobId: 18, id: '18_3', arrayJobId: 18, arrayTaskId: 3, allocation: null, allocatedNodes: 'cpu07' };
const pending: Job = { jobId: 43, id: '43', name: 'eval', user: 'bob', state: 'PENDING', workdir: '/scratch/bob' };

describe('expandOutputPattern', () => {
  it('expands each pattern letter as the agent writes the file', () => {
    expect(expandOutputPattern('slurm-%j.out', running)).toBe('slurm-42.out');
    expect(expandOutputPattern('%x-%u.log', running)).toBe('train-alice.log');
    expect(expandOutputPattern('%N-%n-%t-%s.out', running)).toBe('gpu003-0-0-batch.out');
    expect(expandOutputPattern('%J.out', running)).toBe('42.batch.out');
    expect(expandOutputPattern('100%%-%j', running)).toBe('100%-42');
  });

  it('uses the array job id for %A, the task for %a and the numeric job id for %j of a task', () => {
    expect(expandOutputPattern('%x-%A_%a.out', task)).toBe('train-18_3.out');
    expect(expandOutputPattern('%j.out', task)).toBe('18.out');
    expect(expandOutputPattern('%N.out', task)).toBe('cpu07.out');
  });

  it('writes %A as the job id and %a as Slurm\'s 4294967294 outside an array', () => {
    expect(expandOutputPattern('%A_%a', running)).toBe(`42_${NO_ARRAY_TASK}`);
  });

  it('zero-pads numbers to the width given, at most 10 digits, and ignores the width elsewhere', () => {
    expect(expandOutputPattern('%5j', running)).toBe('00042');
    expect(expandOutputPattern('%3A_%4a', task)).toBe('018_0003');
    expect(expandOutputPattern('%2t', running)).toBe('00');
    expect(expandOutputPattern('%1j', running)).toBe('42');
    expect(expandOutputPattern('%123j', running)).toBe('0000000042');
    expect(expandOutputPattern('%5x', running)).toBe('train');
  });

  it('leaves %N as typed while the job has no node, and unknown letters and a trailing % as typed', () => {
    expect(expandOutputPattern('%N-%j.out', pending)).toBe('%N-43.out');
    expect(expandOutputPattern('%q-%j-%', pending)).toBe('%q-43-%');
  });

  it('does not expand a pattern holding a backslash, only drops the backslashes', () => {
    expect(expandOutputPattern('out\\%j', running)).toBe('out%j');
  });
});

describe('outputPath', () => {
  it('puts a relative path under the working directory and keeps an absolute one', () => {
    expect(outputPath('slurm-%j.out', running)).toBe('/home/alice/run/slurm-42.out');
    expect(outputPath('./logs/%x.err', { ...running, workdir: '/home/alice/run/' })).toBe('/home/alice/run/logs/train.err');
    expect(outputPath('/tmp/%u/%j.out', running)).toBe('/tmp/alice/42.out');
    expect(outputPath('slurm-%j.out', { ...running, workdir: null })).toBe('slurm-42.out');
    expect(outputPath(null, running)).toBeNull();
  });
});

describe('requestedNodes', () => {
  it('shows the nodes named with -w, the count with them, and -x as "not"', () => {
    expect(requestedNodes({ nodes: 2, nodelist: 'gpu[001-002]' })).toBe('2 (gpu[001-002])');
    expect(requestedNodes({ nodelist: 'gpu001' })).toBe('gpu001');
    expect(requestedNodes({ nodes: 3 })).toBe('3');
    expect(requestedNodes({})).toBe('any');
    expect(requestedNodes({ nodes: 1, exclude: 'cpu[07-08]' })).toBe('1, not cpu[07-08]');
    expect(requestedNodes({ exclude: 'cpu07' })).toBe('any, not cpu07');
  });
});
