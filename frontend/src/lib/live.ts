import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { tokenStore } from '../api/client';

/**
 * Live updates from GET /api/v1/events. EventSource cannot send a bearer header and the token
 * must stay out of URLs, so the stream is read with fetch. Each message says what changed (a job
 * or a node, by id): lists, counts and the scheduler figures are refreshed on any of them, and a
 * job's own page, history and steps only on that job's messages (lib/live's invalidations). While
 * the stream is open, views need not poll ({@link fallbackPoll}). A dropped stream (the server
 * drops a client that falls behind, or answers 429 when streams are capped) is resumed with
 * backoff, sending the last event id seen as Last-Event-ID so nothing in between is missed; a
 * controller without the endpoint (404) or a refused token ends it.
 */
let streaming = false;

/** Whether the event stream is open now: while it is, it says what changed and views need not poll. */
export function liveStreamOpen(): boolean {
  return streaming;
}

/**
 * A refetchInterval for a query the event stream keeps fresh: none while the stream is open, every
 * {@code ms} while it is down (not yet open, dropped, or a controller without it).
 */
export function fallbackPoll(ms: number): () => number | false {
  return () => (streaming ? false : ms);
}

/** One message of the stream, as its data says: a job (by display id, "42" or "18_3") or a node changed. */
export interface LiveMessage { kind: string; id: string; change?: string }

/**
 * The job change the scheduler announces when it changed a pending job's reason, or its expected
 * start appeared, went away or moved by a minute (and a tenth of the wait) or more: only the job
 * itself (and the job lists' reason and expected-start columns) need re-reading, not its history,
 * steps, nodes or counts.
 */
export const REPLANNED = 'REPLANNED';

/**
 * The query keys a batch of messages makes stale: lists, counts, nodes and the scheduler figures
 * on any message (a job that starts or ends changes them all; a {@link REPLANNED} job only lists),
 * and each job's own queries (its page, history, steps; an array task's also its array's page)
 * only for the jobs named (a re-planned job's page only). A message of another kind (the server's
 * "events were missed; reload") makes every job and node query stale.
 */
export function staleKeys(messages: LiveMessage[]): { everyOf: string[]; exact: unknown[][] } {
  // Each job named, in order, and whether more than its page (its history and steps) changed.
  const jobs = new Map<string, boolean>();
  for (const m of messages) {
    if (m.kind !== 'job' || !m.id) continue;
    const ids = m.id.includes('_') ? [m.id, m.id.split('_')[0]] : [m.id];
    for (const id of ids) jobs.set(id, (jobs.get(id) ?? false) || m.change !== REPLANNED);
  }
  const exact: unknown[][] = [];
  for (const [id, all] of jobs) {
    if (all) exact.push(['job', id], ['jobEvents', id], ['jobSteps', id]);
    else exact.push(['job', id]);
  }
  const nodes = messages.filter((m) => m.kind === 'node' && m.id).map((m) => m.id);
  for (const name of new Set(nodes)) exact.push(['node', name]);
  if (messages.some((m) => m.kind !== 'job' && m.kind !== 'node')) {
    return { everyOf: ['jobs', 'job', 'jobEvents', 'jobSteps', 'nodes', 'node', 'diag'], exact: [] };
  }
  if (messages.length && messages.every((m) => m.kind === 'job' && m.change === REPLANNED)) {
    return { everyOf: ['jobs'], exact };
  }
  return { everyOf: messages.length ? ['jobs', 'nodes', 'diag'] : [], exact };
}

export function useLiveEvents(enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let stopped = false;
    // Messages gathered for 300 ms, then the queries they make stale refreshed at once.
    let batch: LiveMessage[] = [];
    const flush = throttle(() => {
      const { everyOf, exact } = staleKeys(batch);
      batch = [];
      void queryClient.invalidateQueries({ predicate: (q) => everyOf.includes(String(q.queryKey[0])) });
      for (const key of exact) void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }, 300);

    async function run() {
      let delay = 1000;
      let lastEventId: string | null = null;
      while (!stopped) {
        try {
          const token = tokenStore.get();
          const response = await fetch('/api/v1/events', {
            headers: {
              Accept: 'text/event-stream',
              ...(token ? { Authorization: `Bearer ${token}` } : {}),
              ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
            },
            signal: abort.signal,
          });
          if (!keepTrying(response.status)) return;
          if (response.ok && response.body) {
            delay = 1000;
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            streaming = true;
            const lines = new SseLines();
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              const seen = lines.push(value);
              if (seen.id) lastEventId = seen.id;
              if (seen.messages.length) { batch.push(...seen.messages); flush(); }
            }
          } else {
            const retryAfter = Number(response.headers.get('Retry-After'));
            if (retryAfter > 0) delay = Math.max(delay, retryAfter * 1000);
          }
        } catch {
          if (stopped) return;
        } finally {
          streaming = false;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 30000);
      }
    }
    void run();
    return () => { stopped = true; abort.abort(); };
  }, [enabled, queryClient]);
}

/** Whether a stream answered with {@code status} is worth opening again later. */
export function keepTrying(status: number): boolean {
  return !(status === 401 || status === 403 || status === 404 || status === 405);
}

/**
 * Reads server-sent event lines as they arrive in chunks: the last event id, and the messages that
 * came (their data as JSON; a message whose data is not JSON counts as a change of unknown kind).
 */
export class SseLines {
  private partial = '';

  push(chunk: string): { id: string | null; messages: LiveMessage[] } {
    const text = this.partial + chunk;
    const lines = text.split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? '';
    let id: string | null = null;
    const messages: LiveMessage[] = [];
    for (const line of lines) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) messages.push(message(line.slice(5).trim()));
    }
    return { id, messages };
  }
}

function message(data: string): LiveMessage {
  try {
    const parsed = JSON.parse(data) as Partial<LiveMessage>;
    return { kind: String(parsed.kind ?? ''), id: parsed.id == null ? '' : String(parsed.id), change: parsed.change };
  } catch {
    return { kind: '', id: '' };
  }
}

function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => { timer = null; fn(); }, ms);
  };
}
