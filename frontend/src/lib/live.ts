import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { rereadAfterChange } from './reread';
import { tokenStore } from '../api/client';
import { TabChannel, leadOne, locksAvailable, tabVisible } from './tabs';

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
 * The change of one event naming an array (its id, "18") when the scheduler re-planned many of its tasks at
 * once: its tasks' pages, and lists, need re-reading; the array's own page follows its tasks by itself.
 */
export const REPLANNED_TASKS = 'REPLANNED TASKS';

/**
 * The query keys a batch of messages makes stale: lists, counts, nodes and the scheduler figures
 * on any message (a job that starts or ends changes them all; a {@link REPLANNED} job only lists),
 * and each job's own queries (its page, history, steps) only for the jobs named (a re-planned job's page only). A message of another kind (the server's
 * "events were missed; reload") makes every job and node query stale.
 */
export function staleKeys(messages: LiveMessage[]): { everyOf: string[]; exact: unknown[][]; tasksOf: string[] } {
  // Each job named, in order, and whether more than its page (its history and steps) changed.
  const jobs = new Map<string, boolean>();
  for (const m of messages) {
    if (m.kind !== 'job' || !m.id || m.change === REPLANNED_TASKS) continue;
    // An array task's array page follows its tasks by itself (onLiveMessages), at a pace a churning
    // array of 100,000 tasks can afford: its first task's queries are not re-read for each task.
    jobs.set(m.id, (jobs.get(m.id) ?? false) || m.change !== REPLANNED);
  }
  const exact: unknown[][] = [];
  for (const [id, all] of jobs) {
    if (all) exact.push(['job', id], ['jobEvents', id], ['jobSteps', id]);
    else exact.push(['job', id]);
  }
  // REPLANNED TASKS names an array whose tasks the scheduler moved many at once (one event for them all)
  const arrays = messages.filter((m) => m.kind === 'job' && m.change === REPLANNED_TASKS && m.id).map((m) => m.id);
  const nodes = messages.filter((m) => m.kind === 'node' && m.id).map((m) => m.id);
  for (const name of new Set(nodes)) exact.push(['node', name]);
  if (messages.some((m) => m.kind !== 'job' && m.kind !== 'node')) {
    return { everyOf: ['jobs', 'job', 'jobEvents', 'jobSteps', 'nodes', 'node', 'diag'], exact: [], tasksOf: [] };
  }
  if (messages.length && messages.every((m) => m.kind === 'job' && (m.change === REPLANNED || m.change === REPLANNED_TASKS))) {
    return { everyOf: ['jobs'], exact, tasksOf: arrays };
  }
  return { everyOf: messages.length ? ['jobs', 'nodes', 'diag'] : [], exact, tasksOf: arrays };
}

/** What the tab holding the event stream tells the others, and what a tab that opens asks. */
type TabMessage =
  | { type: 'messages'; messages: LiveMessage[] }
  | { type: 'state'; open: boolean }
  | { type: 'hello' };

/** A message of no known kind: every job and node query is stale (see {@link staleKeys}). */
const RESYNC: LiveMessage = { kind: 'resync', id: '' };

/**
 * Keeps this tab's queries fresh from the event stream. One tab of the browser holds the stream
 * (lib/tabs' leadOne) and passes each message to the others, so that any number of open tabs costs
 * one connection; when that tab closes, the next one takes over and every tab re-reads what it shows
 * (messages may have been missed in between). Where the tabs cannot share (no Web Locks or no
 * BroadcastChannel: plain http on a host other than localhost), each tab holds a stream only while
 * it is in front, and polls ({@link fallbackPoll}) while it is not.
 */
export function useLiveEvents(enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    // Messages gathered for 300 ms, then the queries they make stale refreshed at once.
    let batch: LiveMessage[] = [];
    const flush = throttle(() => {
      const { everyOf, exact, tasksOf } = staleKeys(batch);
      batch = [];
      void rereadAfterChange(queryClient, { predicate: (q) => everyOf.includes(String(q.queryKey[0]))
        || (q.queryKey[0] === 'job' && tasksOf.some((array) => String(q.queryKey[1]).startsWith(`${array}_`))) });
      for (const key of exact) void rereadAfterChange(queryClient, { queryKey: key, exact: true });
    }, 300);
    const heard = (messages: LiveMessage[]) => {
      batch.push(...messages);
      flush();
      for (const listener of listeners) listener(messages);
    };

    let leading = false;
    let anotherLed = false;
    const channel = new TabChannel<TabMessage>(EVENTS_CHANNEL, (m) => {
      if (m.type === 'messages') heard(m.messages);
      else if (m.type === 'state' && !leading) { streaming = m.open; anotherLed = true; }
      else if (m.type === 'hello' && leading) channel.post({ type: 'state', open: streaming });
    });
    const tell = (messages: LiveMessage[]) => { heard(messages); channel.post({ type: 'messages', messages }); };

    if (locksAvailable() && channel.shared) {
      channel.post({ type: 'hello' });
      leadOne(EVENTS_LOCK, abort.signal, async () => {
        leading = true;
        const tookOver = anotherLed;
        let opened = false;
        await readStream(abort.signal, tell, (open) => {
          streaming = open;
          channel.post({ type: 'state', open });
          if (open && !opened && tookOver) tell([RESYNC]);
          opened ||= open;
        });
        // Refused for good (signed out, no such endpoint): keep the lead, so the other tabs do not each ask again.
        if (!abort.signal.aborted) {
          await new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve(), { once: true }));
        }
        leading = false;
        channel.post({ type: 'state', open: false });
      });
    } else {
      let current: AbortController | null = null;
      const follow = () => {
        if (tabVisible() && !current) {
          const mine = new AbortController();
          current = mine;
          void readStream(mine.signal, heard, (open) => { streaming = open; })
            .finally(() => { if (current === mine) current = null; });
        } else if (!tabVisible() && current) {
          current.abort();
          current = null;
          streaming = false;
        }
      };
      document.addEventListener('visibilitychange', follow);
      abort.signal.addEventListener('abort', () => {
        document.removeEventListener('visibilitychange', follow);
        current?.abort();
      });
      follow();
    }
    return () => { abort.abort(); channel.close(); streaming = false; };
  }, [enabled, queryClient]);
}

const listeners = new Set<(messages: LiveMessage[]) => void>();

/**
 * Hears every message of the event stream as it comes (in this tab, whichever tab holds the
 * stream), for a view that decides itself when to re-read; the returned function stops it.
 */
export function onLiveMessages(listener: (messages: LiveMessage[]) => void): () => void {
  listeners.add(listener);
  return () => { listeners.delete(listener); };
}

const EVENTS_CHANNEL = 'gantry-events';
const EVENTS_LOCK = 'gantry-event-stream';

/**
 * Reads GET /api/v1/events until {@code signal} aborts or the server refuses for good, handing each
 * chunk's messages to {@code onMessages} and saying when the stream opens and closes. A dropped
 * stream (the server drops a client that falls behind, or answers 429 when streams are capped) is
 * resumed with backoff, with the last event id seen as Last-Event-ID so nothing in between is missed.
 */
async function readStream(signal: AbortSignal, onMessages: (messages: LiveMessage[]) => void,
  onOpen: (open: boolean) => void): Promise<void> {
  let delay = 1000;
  let lastEventId: string | null = null;
  while (!signal.aborted) {
    try {
      const token = tokenStore.get();
      const response = await fetch('/api/v1/events', {
        headers: {
          Accept: 'text/event-stream',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
        },
        signal,
      });
      if (!keepTrying(response.status)) return;
      if (response.ok && response.body) {
        delay = 1000;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        onOpen(true);
        const lines = new SseLines();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const seen = lines.push(value);
          if (seen.id) lastEventId = seen.id;
          if (seen.messages.length) onMessages(seen.messages);
        }
      } else {
        const retryAfter = Number(response.headers.get('Retry-After'));
        if (retryAfter > 0) delay = Math.max(delay, retryAfter * 1000);
      }
    } catch {
      if (signal.aborted) return;
    } finally {
      onOpen(false);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 30000);
  }
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
