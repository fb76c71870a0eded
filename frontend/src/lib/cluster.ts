import type { ClusterNode, Job, Topology } from '../api/types';
import { expandHostlist } from './hostlist';

export interface GpuSummary { total: number; allocated: number; idle: number; drained: number; down: number; poweredDown: number }

/** Power saving's states: the node is off, or on its way off or on. */
export const POWER_STATES: readonly string[] = ['POWERED_DOWN', 'POWERING_UP', 'POWERING_DOWN'];

/**
 * GPUs now: allocated wherever jobs hold them; the rest idle, drained (DRAINED/DRAINING), down, or powered down
 * (power saving's states: usable, once the node has come up).
 */
export function gpuSummary(nodes: ClusterNode[]): GpuSummary {
  const s: GpuSummary = { total: 0, allocated: 0, idle: 0, drained: 0, down: 0, poweredDown: 0 };
  for (const n of nodes) {
    const free = Math.max(0, n.gpus - n.allocGpus);
    s.total += n.gpus;
    s.allocated += n.allocGpus;
    if (n.state === 'DOWN' || n.state === 'UNKNOWN') s.down += free;
    else if (n.state === 'DRAINED' || n.state === 'DRAINING') s.drained += free;
    else if (POWER_STATES.includes(n.state)) s.poweredDown += free;
    else s.idle += free;
  }
  return s;
}

export interface MapGroup { block: string; switches: { name: string; nodes: ClusterNode[] }[] }

/** Nodes grouped by block, then by leaf switch, in topology order; nodes outside any block last. */
export function groupNodes(nodes: ClusterNode[], topology?: Topology): MapGroup[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const blockOf = new Map<string, string>();
  for (const b of topology?.blocks ?? []) for (const n of expandHostlist(b.nodes)) blockOf.set(n, b.name);
  const switchOf = new Map<string, string>();
  for (const s of topology?.switches ?? []) for (const n of expandHostlist(s.nodes)) switchOf.set(n, s.name);
  const groups = new Map<string, Map<string, ClusterNode[]>>();
  for (const n of byName.values()) {
    const block = n.block || blockOf.get(n.name) || 'outside blocks';
    const sw = n.switchName || switchOf.get(n.name) || 'no leaf switch';
    if (!groups.has(block)) groups.set(block, new Map());
    const g = groups.get(block)!;
    if (!g.has(sw)) g.set(sw, []);
    g.get(sw)!.push(n);
  }
  const order = (topology?.blocks ?? []).map((b) => b.name);
  return [...groups.entries()]
    .sort(([a], [b]) => rank(order, a) - rank(order, b) || a.localeCompare(b))
    .map(([block, sws]) => ({
      block,
      switches: [...sws.entries()].sort(([a], [b]) => a.localeCompare(b))
        .map(([name, ns]) => ({ name, nodes: ns.sort((x, y) => x.name.localeCompare(y.name)) })),
    }));
}

export interface BlockJobs { jobs: string[]; heldBy?: string }

/**
 * The running jobs in each block, by the blocks the API names for each job; heldBy is the job that
 * has the block to itself (--exclusive=topo), when one does.
 */
export function jobsByBlock(jobs: Job[]): Map<string, BlockJobs> {
  const out = new Map<string, BlockJobs>();
  for (const j of jobs) {
    const id = j.id ?? String(j.jobId);
    for (const b of j.blocks ?? []) {
      if (!out.has(b)) out.set(b, { jobs: [] });
      const entry = out.get(b)!;
      entry.jobs.push(id);
      if (j.exclusiveMode === 'topo') entry.heldBy = id;
    }
  }
  return out;
}

function rank(order: string[], name: string): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

export function isOperator(roles: string[] | undefined): boolean {
  return (roles ?? []).some((r) => ['OPERATOR', 'ADMIN'].includes(r.replace(/^ROLE_/, '')));
}
