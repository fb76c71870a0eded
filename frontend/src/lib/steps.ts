import type { JobStep } from '../api/types';

/** Steps as sacct lists them: the batch step first, then srun steps by number. */
export function sortSteps(steps: JobStep[]): JobStep[] {
  const rank = (s: JobStep) => (s.stepId === 'batch' ? -1 : Number(s.stepId));
  return [...steps].sort((a, b) => rank(a) - rank(b));
}

/** What a step ran: its command line for an srun step, the script for the batch step. */
export function stepCommand(step: JobStep): string {
  if (step.stepId === 'batch' || !step.argv?.length) return step.name ?? 'batch';
  return step.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Slurm's ExitCode column: code, or ":signal" when it ended by one (sacct shows 0:9). */
export function stepExit(step: JobStep): string {
  if (step.exitCode == null) return '—';
  return step.exitCode > 128 && step.state === 'CANCELLED' ? `0:${step.exitCode - 128}` : String(step.exitCode);
}
