import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';
import type {
  AccountQuota, AccountingRecord, Budget, ArraySummary, FairShareLine, PriorityList, UtilizationReport,
  ClusterNode, Diag, Job, JobEvent, JobGpuUsageSeries, JobStep, JobSubmission, JobTrial, Page, Partition, Problem, SubmitResponse, Topology,
  TokenResponse, WhoAmI, MyWork, Reservation, ReservationRequest, Qos, UserAccount, Account, Association,
} from './types';

const TOKEN_KEY = 'gantry.token';

/**
 * The bearer token lives in localStorage, shared by the tabs of one browser (lib/auth.tsx tells the
 * other tabs of a sign-in or sign-out), never in the URL. A revoked token is answered 401, which
 * signs every tab out.
 */
export const tokenStore = {
  key: TOKEN_KEY,
  get: (): string | null => localStorage.getItem(TOKEN_KEY),
  set: (token: string) => localStorage.setItem(TOKEN_KEY, token),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

/** An answer that was not 2xx, with the problem+json body when the server sent one. */
export class ApiError extends Error {
  constructor(public status: number, public problem: Problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
  }
}

const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

const auth: Middleware = {
  onRequest({ request }) {
    const token = tokenStore.get();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    request.headers.set('Accept', 'application/json, application/problem+json');
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && !request.url.endsWith('/api/v1/auth/tokens')) {
      unauthorizedListeners.forEach((l) => l());
    }
    return response;
  },
};

export const client = createClient<paths>({ baseUrl: '' });
client.use(auth);

// Every path must exist in the generated schema (a renamed or dropped endpoint fails the
// typecheck); answers are read through the view types in ./types, which mark what the
// contract promises as required where the generated schema leaves everything optional.
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type PathWith<M extends Method> = { [P in keyof paths]: paths[P][Lowercase<M>] extends undefined | never ? never : P }[keyof paths];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loose = client as unknown as Record<Method, (path: string, init?: any) => Promise<{ data?: any; error?: any; response: Response }>>;

async function call<T, M extends Method = Method>(method: M, path: PathWith<M>,
  init?: { params?: { path?: Record<string, unknown>; query?: Record<string, unknown> }; body?: unknown }): Promise<T> {
  const { data, error, response } = await loose[method](path, init);
  if (!response.ok) {
    const problem: Problem = typeof error === 'object' && error !== null ? error : { detail: String(error ?? '') };
    throw new ApiError(response.status, { status: response.status, ...problem });
  }
  return data as T;
}

function clean(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}

export interface JobQuery {
  state?: string; user?: string; account?: string; partition?: string; name?: string; nameContains?: string;
  arrayJobId?: string; sort?: string; page?: number; size?: number;
}

export interface AccountingQuery {
  start?: string; end?: string; user?: string; account?: string; state?: string; partition?: string; jobId?: string;
  page?: number; size?: number;
}

function bearer(accept: string): Record<string, string> {
  const token = tokenStore.get();
  return { Accept: `${accept}, application/problem+json`, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
}

async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text();
  try { return { status: response.status, ...JSON.parse(text) }; } catch { return { status: response.status, detail: text }; }
}

export const api = {
  signIn: (username: string, password: string) =>
    call<TokenResponse>('POST', '/api/v1/auth/tokens', { body: { username, password } }),
  whoami: () => call<WhoAmI>('GET', '/api/v1/auth/whoami'),

  nodes: (query: { state?: string; partition?: string; page?: number; size?: number } = {}) =>
    call<Page<ClusterNode>>('GET', '/api/v1/nodes', { params: { query: clean({ size: 1000, ...query }) } }),
  /** Every node, page after page: a page holds at most 1,000 and clusters grow past that. */
  allNodes: async (query: { state?: string; partition?: string } = {}): Promise<Page<ClusterNode>> => {
    const first = await api.nodes({ ...query, page: 0 });
    const pages = Math.ceil(first.total / first.size);
    const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => api.nodes({ ...query, page: i + 1 })));
    return { ...first, items: first.items.concat(...rest.map((p) => p.items)), size: first.total };
  },
  node: (name: string) => call<ClusterNode>('GET', '/api/v1/nodes/{name}', { params: { path: { name } } }),
  updateNode: (name: string, state: 'DRAIN' | 'RESUME' | 'DOWN', reason?: string) =>
    call<ClusterNode>('PATCH', '/api/v1/nodes/{name}', { params: { path: { name } }, body: { state, reason } }),
  /** Drain, resume or down every node of a hostlist, all or nothing (scontrol update NodeName=<hostlist>). */
  updateNodes: (nodes: string, state: 'DRAIN' | 'RESUME' | 'DOWN', reason?: string) =>
    call<{ nodes: string; count: number; items: ClusterNode[] }>('POST', '/api/v1/nodes/update', { body: { nodes, state, reason } }),
  partitions: () => call<Page<Partition>>('GET', '/api/v1/partitions', { params: { query: { size: 1000 } } }),
  topology: () => call<Topology>('GET', '/api/v1/topology'),
  diag: () => call<Diag>('GET', '/api/v1/diag'),

  jobs: (query: JobQuery) => call<Page<Job>>('GET', '/api/v1/jobs', { params: { query: clean({ ...query }) } }),
  /** The caller's own work: active jobs, newest ended, failures of the last 24 h, arrays as one row each. */
  myWork: () => call<MyWork>('GET', '/api/v1/work'),
  job: (id: string) => call<Job>('GET', '/api/v1/jobs/{id}', { params: { path: { id } } }),
  jobGpuUsage: (id: string) => call<JobGpuUsageSeries>('GET', '/api/v1/jobs/{id}/gpu-usage', { params: { path: { id } } }),
  jobEvents: (id: string) => call<JobEvent[]>('GET', '/api/v1/jobs/{id}/events', { params: { path: { id } } }),
  jobSteps: (id: string) =>
    call<{ items: JobStep[] }>('GET', '/api/v1/jobs/{id}/steps', { params: { path: { id } } }).then((r) => r.items),
  submit: (job: JobSubmission) => call<SubmitResponse>('POST', '/api/v1/jobs', { body: job }),
  /** sbatch --test-only: the submission checked as submit checks it and its start estimated; nothing stored. */
  testJob: (job: JobSubmission) => call<JobTrial>('POST', '/api/v1/jobs/test', { body: job }),
  cancel: (id: string) => call<unknown>('DELETE', '/api/v1/jobs/{id}', { params: { path: { id } } }),
  hold: (id: string) => call<unknown>('POST', '/api/v1/jobs/{id}/hold', { params: { path: { id } } }),
  priority: () => call<PriorityList>('GET', '/api/v1/priority'),
  fairShare: () => call<FairShareLine[]>('GET', '/api/v1/fairshare'),
  /** Guaranteed GPU quotas: every account's guaranteed, in use, borrowed, lent and pending GPUs. */
  quotas: () =>
    call<Page<AccountQuota>>('GET', '/api/v1/quotas', { params: { query: { size: 1000 } } }).then((r) => r.items),
  /** Every GrpTRESMins budget the caller may see, per TRES, with its burn rate and run-out. */
  budgets: () =>
    call<Page<Budget>>('GET', '/api/v1/budgets', { params: { query: { size: 1000 } } }).then((r) => r.items),
  accountingJobs: (query: AccountingQuery) =>
    call<Page<AccountingRecord>>('GET', '/api/v1/accounting/jobs', { params: { query: clean({ ...query }) } }),
  /** Every row of the window, page after page (at most `limit` rows), for the usage chart. */
  allAccountingJobs: async (query: AccountingQuery, limit = 10000): Promise<{ items: AccountingRecord[]; total: number }> => {
    const items: AccountingRecord[] = [];
    let total = 0;
    for (let page = 0; items.length < limit; page++) {
      const answer = await api.accountingJobs({ ...query, page, size: 1000 });
      total = answer.total;
      items.push(...answer.items);
      if (answer.items.length < 1000 || items.length >= total) break;
    }
    return { items, total };
  },
  /** sacct -P as a file: the same filters, every row, as CSV (the bearer header, never a token in the URL). */
  accountingCsv: async (query: AccountingQuery): Promise<Blob> => {
    const params = new URLSearchParams(clean({ ...query }) as Record<string, string>);
    const response = await fetch(`/api/v1/accounting/jobs?${params}`, { headers: bearer('text/csv') });
    if (!response.ok) throw new ApiError(response.status, await problemOf(response));
    return response.blob();
  },
  /** sreport: GPU- and CPU-hours allocated, idle, down and reserved per hour or day, per cluster, account or user. */
  utilization: (query: { start: string; end: string; groupBy: 'cluster' | 'account' | 'user'; interval: 'hour' | 'day' }) =>
    call<UtilizationReport>('GET', '/api/v1/reports/utilization', { params: { query } }),
  release: (id: string) => call<unknown>('POST', '/api/v1/jobs/{id}/release', { params: { path: { id } } }),
  /** An array summed up by the server: its tasks by state and exit code, however many it has. */
  arraySummary: (id: string) => call<ArraySummary>('GET', '/api/v1/jobs/{id}/array', { params: { path: { id } } }),
  /** An array's tasks by task id, a page at a time, filtered by state, exit code and node. */
  arrayTasks: (id: string, query: { state?: string; exitCode?: number; node?: string; page?: number; size?: number }) =>
    call<Page<Job>>('GET', '/api/v1/jobs/{id}/tasks', { params: { path: { id: Number(id) }, query: clean({ ...query }) } }),
  /** Puts ended tasks back in the queue; with states, only the tasks in those (an array's failed ones). */
  requeue: (id: string, state?: string) =>
    call<unknown>('POST', '/api/v1/jobs/{id}/requeue', { params: { path: { id }, query: clean({ state }) } }),

  // Administration (the admin views): scontrol's reservations, sacctmgr's QOS, users, accounts and associations.
  reservations: () => call<Reservation[]>('GET', '/api/v1/reservations'),
  createReservation: (body: ReservationRequest) => call<Reservation>('POST', '/api/v1/reservations', { body }),
  deleteReservation: (name: string) => call<unknown>('DELETE', '/api/v1/reservations/{name}', { params: { path: { name } } }),
  updateReservation: (name: string, body: ReservationRequest) =>
    call<Reservation>('PATCH', '/api/v1/reservations/{name}', { params: { path: { name } }, body }),
  qos: () => call<Page<Qos>>('GET', '/api/v1/qos', { params: { query: { size: 1000 } } }),
  /** sacctmgr add/modify/delete qos (ADMIN): a limit sent as -1 or "" is cleared, one left out stays. */
  createQos: (body: components['schemas']['QosRequest']) => call<Qos>('POST', '/api/v1/qos', { body }),
  updateQos: (name: string, body: components['schemas']['QosRequest']) =>
    call<Qos>('PATCH', '/api/v1/qos/{name}', { params: { path: { name } }, body }),
  deleteQos: (name: string) => call<unknown>('DELETE', '/api/v1/qos/{name}', { params: { path: { name } } }),
  /** scontrol update PartitionName= State= QOS= (ADMIN): a field left out stays, qos "" clears the partition QOS. */
  updatePartition: (name: string, body: components['schemas']['PartitionUpdate']) =>
    call<Partition>('PATCH', '/api/v1/partitions/{name}', { params: { path: { name } }, body }),
  /** sacctmgr list transactions (ADMIN): newest first. */
  audit: (query: { actor?: string; entity?: string; key?: string; page?: number; size?: number }) =>
    call<Page<components['schemas']['AuditEvent']>>('GET', '/api/v1/audit', { params: { query: clean({ ...query }) } }),
  users: () => call<Page<UserAccount>>('GET', '/api/v1/users', { params: { query: { size: 1000 } } }),
  createUser: (body: { username: string; password: string; roles: string[]; defaultAccount?: string }) =>
    call<UserAccount>('POST', '/api/v1/users', { body }),
  updateUser: (username: string, body: { roles?: string[]; enabled?: boolean }) =>
    call<UserAccount>('PATCH', '/api/v1/users/{username}', { params: { path: { username } }, body }),
  accounts: () => call<Page<Account>>('GET', '/api/v1/accounts', { params: { query: { size: 1000 } } }),
  associations: () => call<Page<Association>>('GET', '/api/v1/associations', { params: { query: { size: 1000 } } }),
  associationsOf: (user: string) =>
    call<Page<Association>>('GET', '/api/v1/associations', { params: { query: { user, size: 1000 } } }),
  /** sacctmgr add/modify/delete account and association: ADMINs anywhere, coordinators below their account. */
  createAccount: (body: { name: string; parent?: string; shares?: number; description?: string }) =>
    call<Account>('POST', '/api/v1/accounts', { body }),
  updateAccount: (name: string, body: { parent?: string; shares?: number; description?: string; guaranteedTres?: string; maxBorrowTres?: string; maxLendTres?: string }) =>
    call<Account>('PATCH', '/api/v1/accounts/{name}', { params: { path: { name } }, body }),
  deleteAccount: (name: string) => call<unknown>('DELETE', '/api/v1/accounts/{name}', { params: { path: { name } } }),
  createAssociation: (body: { account: string; user: string; shares?: number; maxJobs?: number; maxSubmitJobs?: number; grpTres?: string }) =>
    call<Association>('POST', '/api/v1/associations', { body }),
  /** Limits: -1 clears a number, "" clears grpTres; a field left out stays as it is. */
  updateAssociation: (id: number, body: { shares?: number; maxJobs?: number; maxSubmitJobs?: number; grpTres?: string }) =>
    call<Association>('PATCH', '/api/v1/associations/{id}', { params: { path: { id } }, body }),
  deleteAssociation: (id: number) => call<unknown>('DELETE', '/api/v1/associations/{id}', { params: { path: { id } } }),
};
