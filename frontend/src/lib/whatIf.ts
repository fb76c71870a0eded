import type { Job, JobSubmission } from '../api/types';

/**
 * The submission of a copy of {@code job}, for POST /jobs/test ("when would a copy start?"): its script
 * and what it asked for, as the API shows them. One task of an array stands for the array; its
 * dependency, begin time, deadline and hold are left out (a copy is asked about now, on its own).
 * Null when the caller cannot see the script (another user's job): there is nothing to copy.
 */
export function copyOf(job: Job): JobSubmission | null {
  if (!job.script) return null;
  const copy: Record<string, unknown> = { script: job.script };
  const fields = ['name', 'partition', 'account', 'qos', 'nodes', 'maxNodes', 'tasks', 'ntasksPerNode', 'cpusPerTask',
    'memoryMb', 'gpus', 'gpusPerNode', 'gpuType', 'shards', 'timeLimitSeconds', 'timeMinSeconds', 'constraints',
    'nodelist', 'exclude', 'exclusive', 'exclusiveMode', 'reservation', 'segment', 'switches', 'workdir',
    'simulatedRunSeconds', 'simulatedExitCode'] as const;
  const source = job as unknown as Record<string, unknown>;
  for (const field of fields) {
    const value = source[field];
    if (value !== null && value !== undefined && value !== '') copy[field] = value;
  }
  return copy as JobSubmission;
}
