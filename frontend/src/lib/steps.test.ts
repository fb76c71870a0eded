import { describe, expect, it } from 'vitest';
import type { JobStep } from '../api/types';
import { sortSteps, stepCommand, stepExit } from './steps';

function step(stepId: string, extra: Partial<JobStep> = {}): JobStep {
  return { stepId, id: `42.${stepId}`, nodes: 1, tasks: 1, state: 'COMPLETED', ...extra };
}

describe('job steps', () => {
  it('lists the batch step first, then srun steps by number', () => {
    expect(sortSteps([step('10'), step('2'), step('batch')]).map((s) => s.stepId)).toEqual(['batch', '2', '10']);
  });
  it('shows an srun step as its command line, quoted as a shell would need', () => {
    expect(stepCommand(step('0', { argv: ['bash', '-c', 'echo $SLURM_PROCID'] }))).toBe("bash -c 'echo $SLURM_PROCID'");
    expect(stepCommand(step('batch', { name: 'batch' }))).toBe('batch');
  });
  it('writes exits as sacct does, signals after a colon', () => {
    expect(stepExit(step('0', { exitCode: 3, state: 'FAILED' }))).toBe('3');
    expect(stepExit(step('1', { exitCode: 143, state: 'CANCELLED' }))).toBe('0:15');
    expect(stepExit(step('2'))).toBe('—');
  });
});
