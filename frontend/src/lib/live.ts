import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { tokenStore } from '../api/client';

/**
 * Live updates from GET /api/v1/events when the controller serves it (looked up in the public
 * OpenAPI document first, so a controller without it costs no failed request). EventSource
 * cannot send a bearer header and the token must stay out of URLs, so the stream is read
 * with fetch. Every message invalidates the job and node queries; polling covers the rest.
 */
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
      const doc = await fetch('/v3/api-docs', { signal: abort.signal }).then((r) => (r.ok ? r.json() : null)).catch(() => null);
      if (!doc?.paths?.['/api/v1/events']) return;
      let delay = 1000;
      while (!stopped) {
        try {
          const token = tokenStore.get();
          const response = await fetch('/api/v1/events', {
            headers: { Accept: 'text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
            signal: abort.signal,
          });
          if (!response.ok || !response.body) return;
          delay = 1000;
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            if (value.includes('data:') || value.includes('event:')) invalidate();
          }
        } catch {
          if (stopped) return;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 30000);
      }
    }
    void run();
    return () => { stopped = true; abort.abort(); };
  }, [enabled, queryClient]);
}

function throttle(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => { timer = null; fn(); }, ms);
  };
}
