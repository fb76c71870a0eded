import { describe, expect, it } from 'vitest';
import { expandHostlist } from './hostlist';
import { formatBytes, formatCpuTime, formatDuration, parseSlurmTime } from './format';
import { readDirectives, sbatchCommand } from './sbatch';
import { parseRoute, href } from './router';
import { gpuSummary, jobsByBlock } from './cluster';

describe('hostlists', () => {
  it('expands ranges keeping zero padding, lists and plain names', () => {
    expect(expandHostlist('gpu[001-003,007]')).toEqual(['gpu001', 'gpu002', 'gpu003', 'gpu007']);
    expect(expandHostlist('a1,b[1-2]')).toEqual(['a1', 'b1', 'b2']);
    expect(expandHostlist('')).toEqual([]);
  });
});

describe('time', () => {
  it('reads every Slurm time form', () => {
    expect(parseSlurmTime('30')).toBe(1800);
    expect(parseSlurmTime('1:30')).toBe(90);
    expect(parseSlurmTime('01:00:00')).toBe(3600);
    expect(parseSlurmTime('2-00')).toBe(172800);
    expect(parseSlurmTime('1-02:03:04')).toBe(93784);
    expect(parseSlurmTime('x')).toBeNull();
  });
  it('writes seconds as Slurm does', () => {
    expect(formatDuration(93784)).toBe('1-02:03:04');
    expect(formatDuration(59)).toBe('00:00:59');
    expect(formatDuration(null)).toBe('UNLIMITED');
  });
});

describe('measured usage', () => {
  it('writes a peak memory in the largest unit above one', () => {
    expect(formatBytes(126418944)).toBe('120.6 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(null)).toBe('—');
  });
  it('writes CPU time as sacct writes TotalCPU', () => {
    expect(formatCpuTime(62345)).toBe('01:02.345');
    expect(formatCpuTime(62000)).toBe('00:01:02');
    expect(formatCpuTime(93784567)).toBe('1-02:03:04');
    expect(formatCpuTime(undefined)).toBe('—');
  });
});

describe('#SBATCH directives', () => {
  it('reads them from the top and stops at the first command', () => {
    const script = '#!/bin/bash\n#SBATCH -J train\n\n#SBATCH --gres=gpu:h100:2\n# a comment\n#SBATCH -t 1:00:00\nsrun hostname\n#SBATCH --late';
    expect(readDirectives(script).map((d) => [d.line, d.option, d.value])).toEqual([
      [2, '-J', 'train'], [4, '--gres', 'gpu:h100:2'], [6, '-t', '1:00:00'],
    ]);
  });
  it('writes the equivalent sbatch command', () => {
    expect(sbatchCommand({ name: 'my job', gpus: 2, memoryMb: 4096, hold: true, account: '' }))
      .toBe('sbatch --job-name="my job" --gpus=2 --mem=4096M --hold script.sh');
  });
});

describe('routes', () => {
  it('keeps filters in the hash query', () => {
    expect(href('/jobs', { state: 'PENDING', user: undefined, page: 2 })).toBe('#/jobs?state=PENDING&page=2');
    const r = parseRoute('/jobs/42?x=1');
    expect(r.segments).toEqual(['jobs', '42']);
    expect(r.query.get('x')).toBe('1');
  });
});

describe('GPU summary', () => {
  it('counts allocated, idle, drained and down GPUs', () => {
    const node = (state: string, gpus: number, allocGpus: number) =>
      ({ name: 'n', state, gpus, allocGpus, cpus: 1, memoryMb: 1, allocCpus: 0, allocMemoryMb: 0 }) as never;
    expect(gpuSummary([node('MIXED', 8, 2), node('IDLE', 8, 0), node('DRAINED', 8, 0), node('DOWN', 8, 0),
      node('DRAINING', 8, 8)])).toEqual({ total: 40, allocated: 10, idle: 14, drained: 8, down: 8, poweredDown: 0 });
    // Power saving's nodes are neither idle nor down: usable once up, counted apart.
    expect(gpuSummary([node('POWERED_DOWN', 8, 0), node('POWERING_UP', 8, 8), node('POWERING_DOWN', 8, 0), node('IDLE', 8, 0)]))
      .toEqual({ total: 32, allocated: 8, idle: 8, drained: 0, down: 0, poweredDown: 16 });
  });
});

describe('node map labels', () => {
  it('shortens names but keeps the kind', async () => {
    const { shortName } = await import('../views/Overview');
    expect(shortName('gpu001')).toBe('g1');
    expect(shortName('cpu012')).toBe('c12');
  });
});

describe('array grouping', () => {
  it('folds tasks of one array under one entry and keeps plain jobs', async () => {
    const { groupArrays } = await import('../views/Jobs');
    const job = (jobId: number, arrayJobId?: number, arrayTaskId?: number) =>
      ({ jobId, arrayJobId, arrayTaskId, user: 'u', state: 'PENDING' }) as never;
    const entries = groupArrays([job(1), job(2, 2, 0), job(2, 2, 1), job(3)]);
    expect(entries.map((e) => (e.kind === 'array' ? `array ${e.arrayId}:${e.tasks.length}` : `job ${e.job.jobId}`)))
      .toEqual(['job 1', 'array 2:2', 'job 3']);
  });
});

describe('jobsByBlock', () => {
  it('lists the running jobs of each block and names the one that has a block whole', () => {
    const byBlock = jobsByBlock([
      { jobId: 7, id: '7', user: 'a', state: 'RUNNING', blocks: ['b2'], exclusiveMode: 'topo' },
      { jobId: 8, id: '8', user: 'a', state: 'RUNNING', blocks: ['b1'] },
      { jobId: 9, id: '9_1', user: 'a', state: 'RUNNING', blocks: ['b1', 'b3'], exclusiveMode: 'user' },
      { jobId: 10, user: 'a', state: 'RUNNING', blocks: [] },
    ]);
    expect(byBlock.get('b2')).toEqual({ jobs: ['7'], heldBy: '7' });
    expect(byBlock.get('b1')).toEqual({ jobs: ['8', '9_1'] });
    expect(byBlock.get('b3')).toEqual({ jobs: ['9_1'] });
    expect(byBlock.size).toBe(3);
  });
});
