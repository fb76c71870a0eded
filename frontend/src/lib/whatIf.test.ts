import { describe, expect, it } from 'vitest';
import type { Job } from '../api/types';
import { copyOf } from './whatIf';

const job = {
  id: '18_3', jobId: 18, arrayJobId: 18, arrayTaskId: 3, array: '0-9', state: 'COMPLETED', user: 'ana',
  script: '#!/bin/bash\n#SBATCH -t 10\nsrun hostname\n', name: 'train', partition: 'gpu', account: 'ml', qos: 'normal',
  nodes: 2, tasks: 8, gpus: 4, gpuType: 'h100', timeLimitSeconds: 600, nodelist: 'gpu[001-002]', exclusive: true,
  dependency: 'afterok:17', beginTime: '2026-12-05T10:00:00Z', hold: 'NONE', memoryMb: null, constraints: '',
} as unknown as Job;

describe('copyOf', () => {
  it('asks for what the job asked for, with its script', () => {
    expect(copyOf(job)).toEqual({
      script: job.script, name: 'train', partition: 'gpu', account: 'ml', qos: 'normal', nodes: 2, tasks: 8, gpus: 4,
      gpuType: 'h100', timeLimitSeconds: 600, nodelist: 'gpu[001-002]', exclusive: true,
    });
  });

  it('leaves out the array, the dependency, the begin time and the hold: a copy is asked about now', () => {
    const copy = copyOf(job) as Record<string, unknown>;
    for (const field of ['array', 'dependency', 'beginTime', 'hold', 'deadline', 'id', 'state']) expect(copy).not.toHaveProperty(field);
  });

  it('has nothing to copy without the script (another user\'s job)', () => {
    expect(copyOf({ ...job, script: undefined } as unknown as Job)).toBeNull();
  });
});
