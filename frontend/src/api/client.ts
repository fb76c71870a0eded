import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import type {
  ClusterNode, Diag, Job, JobEvent, JobSubmission, Page, Partition, Problem, SubmitResponse, Topology,
  TokenResponse, WhoAmI,
} from './types';

const TOKEN_KEY = 'gantry.token';

/** The bearer token lives in sessionStorage only: never in the URL, gone when the tab closes. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
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
  state?: string; user?: string; account?: string; partition?: string; name?: string; arrayJobId?: string;
  page?: number; size?: number;
}

export const api = {
  signIn: (username: string, password: string) =>
    call<TokenResponse>('POST', '/api/v1/auth/tokens', { body: { username, password } }),
  whoami: () => call<WhoAmI>('GET', '/api/v1/auth/whoami'),

  nodes: (query: { state?: string; partition?: string; page?: number; size?: number } = {}) =>
    call<Page<ClusterNode>>('GET', '/api/v1/nodes', { params: { query: clean({ size: 1000, ...query }) } }),
  node: (name: string) => call<ClusterNode>('GET', '/api/v1/nodes/{name}', { params: { path: { name } } }),
  updateNode: (name: string, state: 'DRAIN' | 'RESUME' | 'DOWN', reason?: string) =>
    call<ClusterNode>('PATCH', '/api/v1/nodes/{name}', { params: { path: { name } }, body: { state, reason } }),
  partitions: () => call<Page<Partition>>('GET', '/api/v1/partitions', { params: { query: { size: 1000 } } }),
  topology: () => call<Topology>('GET', '/api/v1/topology'),
  diag: () => call<Diag>('GET', '/api/v1/diag'),

  jobs: (query: JobQuery) => call<Page<Job>>('GET', '/api/v1/jobs', { params: { query: clean({ ...query }) } }),
  job: (id: string) => call<Job>('GET', '/api/v1/jobs/{id}', { params: { path: { id } } }),
  jobEvents: (id: string) => call<JobEvent[]>('GET', '/api/v1/jobs/{id}/events', { params: { path: { id } } }),
  submit: (job: JobSubmission) => call<SubmitResponse>('POST', '/api/v1/jobs', { body: job }),
  cancel: (id: string) => call<unknown>('DELETE', '/api/v1/jobs/{id}', { params: { path: { id } } }),
  hold: (id: string) => call<unknown>('POST', '/api/v1/jobs/{id}/hold', { params: { path: { id } } }),
  release: (id: string) => call<unknown>('POST', '/api/v1/jobs/{id}/release', { params: { path: { id } } }),
};
