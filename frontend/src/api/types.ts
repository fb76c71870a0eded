// The dashboard's view of the REST contract (shared/API.md): what the views rely on, with
// required fields where the contract promises them. The generated schema (schema.d.ts) types
// the requests in client.ts; these types name what the views read from the answers.

export type NodeState = 'IDLE' | 'MIXED' | 'ALLOCATED' | 'DRAINING' | 'DRAINED' | 'DOWN' | 'UNKNOWN';

export interface ClusterNode {
  name: string; state: NodeState; reason?: string | null; cpus: number; memoryMb: number; gpus: number;
  gpuType?: string | null; features?: string[]; allocCpus: number; allocMemoryMb: number; allocGpus: number;
  partitions?: string[]; switchName?: string | null; block?: string | null; simulated?: boolean;
}
export interface Partition { name: string; nodes: string; totalNodes: number; totalGpus: number; isDefault: boolean }
export interface Topology {
  switches: { name: string; parent?: string | null; nodes: string; leaf: boolean }[];
  blocks: { name: string; nodes: string }[];
}

export interface Page<T> { items: T[]; page: number; size: number; total: number }

export interface TokenResponse { token: string; tokenType: string; expiresAt: string }
export interface WhoAmI { username: string; roles: string[]; accounts: string[] }

export type JobState = 'PENDING' | 'RUNNING' | 'COMPLETING' | 'COMPLETED' | 'FAILED' | 'CANCELLED'
  | 'TIMEOUT' | 'NODE_FAIL' | 'PREEMPTED' | 'OUT_OF_MEMORY';
export const JOB_STATES: JobState[] = ['PENDING', 'RUNNING', 'COMPLETING', 'COMPLETED', 'FAILED', 'CANCELLED',
  'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY'];

export interface Allocation { node: string; cpus: number; memoryMb: number; gpuIndices?: number[] }

export interface Job {
  jobId: number | string; id?: string; arrayJobId?: number | null; arrayTaskId?: number | null;
  name?: string | null; user: string; account?: string | null; partition?: string | null; qos?: string | null;
  state: JobState; reason?: string | null; priority?: number | null;
  submitTime?: string | null; eligibleTime?: string | null; startTime?: string | null; endTime?: string | null;
  expectedStartTime?: string | null; timeLimitSeconds?: number | null;
  nodes?: number | null; tasks?: number | null; cpusPerTask?: number | null; memoryMb?: number | null;
  gpus?: number | null; gpusPerNode?: number | null; gpuType?: string | null;
  allocatedNodes?: string | null; allocation?: Allocation[] | null; exitCode?: number | null;
  dependency?: string | null; requeueCount?: number | null; script?: string | null;
  stdout?: string | null; stderr?: string | null; workdir?: string | null; constraints?: string | null;
}

export interface JobEvent { time: string; type: string; detail?: string | null }

export interface JobSubmission {
  name?: string; script?: string; partition?: string; account?: string; qos?: string; nodes?: number;
  tasks?: number; cpusPerTask?: number; memoryMb?: number; gpus?: number; gpusPerNode?: number; gpuType?: string;
  timeLimitSeconds?: number; constraints?: string; exclusive?: boolean; dependency?: string; array?: string;
  hold?: boolean; nice?: number; stdout?: string; stderr?: string; simulatedRunSeconds?: number;
  simulatedExitCode?: number;
}
export interface SubmitResponse { jobId: number | string; arrayTaskIds?: (number | string)[]; warnings?: string[] }

export interface Diag {
  cycles?: number; lastCycleMs?: number; meanCycleMs?: number; maxCycleMs?: number; jobsSubmitted?: number;
  jobsStarted?: number; jobsBackfilled?: number; jobsCompleted?: number; pending?: number; running?: number;
  leader?: boolean | string; serverTime?: string;
}

export interface FieldError { field: string; message: string }
export interface Problem { type?: string; title?: string; status?: number; detail?: string; errors?: FieldError[] }
