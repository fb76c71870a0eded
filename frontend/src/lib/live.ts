import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { tokenStore } from '../api/client';

/**
 * Live updates from GET /api/v1/events. EventSource cannot send a bearer header and the token
 * must stay out of URLs, so the stream is read with fetch. Every message invalidates the job and
 * node queries; polling covers the rest. A dropped stream (the server drops a client that falls
 * behind, or answers 429 when streams are capped) is resumed with backoff, sending the last event
 * id seen as Last-Event-ID so nothing in between is missed; a controller without the endpoint
 * (404) or a refused token ends it.
 */
let streaming = false;

/** Whether the event stream is open now: while it is, it says what changed and views need not poll. */
export function liveStreamOpen(): boolean {
  return streaming;
}

export function useLiveEvents(enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let stopped = false;
    const invalidate = throttle(() => {
      void queryClient.invalidateQueries({ predicate: (q) => ['jobs', 'job', 'nodes', 'diag', 'jobEvents', 'jobSteps'].includes(String(q.queryKey[0])) });
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
              if (seen.message) invalidate();
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

/** Reads server-sent event lines as they arrive in chunks: the last event id, and whether a message came. */
export class SseLines {
  private partial = '';

  push(chunk: string): { id: string | null; message: boolean } {
    const text = this.partial + chunk;
    const lines = text.split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? '';
    let id: string | null = null;
    let message = false;
    for (const line of lines) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:') || line.startsWith('event:')) message = true;
    }
    return { id, message };
  }
}

function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => { timer = null; fn(); }, ms);
  };
}
