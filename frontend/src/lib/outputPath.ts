import type { Job } from '../api/types';
import { expandHostlist } from './hostlist';

/** What Slurm (and Gantry's agent) writes for %a when the job is not an array task (NO_VAL - 1). */
export const NO_ARRAY_TASK = 4294967294;
const MAX_PADDING = 10;

type PatternJob = Pick<Job, 'jobId' | 'arrayJobId' | 'arrayTaskId' | 'name' | 'user' | 'allocation' | 'allocatedNodes'>;

/** The node a job's batch script runs on: its first allocated node; null before it has one. */
export function batchHost(job: Pick<Job, 'allocation' | 'allocatedNodes'>): string | null {
  return job.allocation?.[0]?.node ?? expandHostlist(job.allocatedNodes)[0] ?? null;
}

/**
 * A job's --output/--error pattern expanded as the agent expands it (agent/OutputPattern.java, as
 * Slurm does): %j job id, %A array job id, %a array task id, %J job id and step, %x name, %u user,
 * %N batch host, %n and %t 0, %s batch, %% a percent sign; a number after the % zero-pads a number
 * (%5j). What is not known yet (%N before the job has a node) and unknown letters stay as typed. A
 * pattern holding a backslash is not expanded, only its backslashes dropped, as in Slurm.
 */
export function expandOutputPattern(pattern: string, job: PatternJob): string {
  if (pattern.includes('\\')) return pattern.replaceAll('\\', '');
  const jobId = Number(job.jobId);
  const task = job.arrayTaskId != null;
  const node = batchHost(job);
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c !== '%') { out += c; i++; continue; }
    let j = i + 1;
    while (j < pattern.length && pattern[j] >= '0' && pattern[j] <= '9') j++;
    if (j >= pattern.length) { out += pattern.slice(i); break; }
    const digits = pattern.slice(i + 1, j);
    const width = digits ? (digits.length > 2 ? MAX_PADDING : Math.min(MAX_PADDING, Number(digits))) : 0;
    const pad = (n: number) => String(n).padStart(width, '0');
    let text: string | null;
    switch (pattern[j]) {
      case 'j': text = pad(jobId); break;
      case 'A': text = pad(task && job.arrayJobId != null ? job.arrayJobId : jobId); break;
      case 'a': text = pad(task ? job.arrayTaskId! : NO_ARRAY_TASK); break;
      case 'J': text = `${pad(jobId)}.batch`; break;
      case 'n': case 't': text = pad(0); break;
      case 'x': text = job.name ?? ''; break;
      case 'u': text = job.user ?? ''; break;
      case 'N': text = node; break;
      case 's': text = 'batch'; break;
      case '%': text = '%'; break;
      default: text = null;
    }
    out += text ?? pattern.slice(i, j + 1);
    i = j + 1;
  }
  return out;
}

/** Where the file is: the expanded pattern, under the job's working directory when it is relative. */
export function outputPath(pattern: string | null | undefined, job: PatternJob & Pick<Job, 'workdir'>): string | null {
  if (!pattern) return null;
  const path = expandOutputPattern(pattern, job);
  if (path.startsWith('/') || !job.workdir) return path;
  return `${job.workdir.replace(/\/+$/, '')}/${path.replace(/^\.\//, '')}`;
}

/**
 * The nodes a job asked for, as the "Requested" cell reads: "2 (gpu[001-002])" with -N and -w,
 * the list alone with -w, "any" with neither; -x adds "not cpu07".
 */
export function requestedNodes(job: Pick<Job, 'nodes' | 'nodelist' | 'exclude'>): string {
  const count = job.nodes || null;
  const list = job.nodelist || null;
  const base = count && list ? `${count} (${list})` : list ?? (count ? String(count) : 'any');
  return job.exclude ? `${base}, not ${job.exclude}` : base;
}
