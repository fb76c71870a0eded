import { useEffect, useRef, useState } from 'react';
import { tokenStore } from '../api/client';
import type { Job } from '../api/types';

/** What the page keeps of a followed file: its last part, like a terminal's scrollback. */
const KEEP_CHARS = 200_000;

type Stream = 'output' | 'error';
type Status =
  | { kind: 'waiting' }
  | { kind: 'following' }
  | { kind: 'ended'; state: string }
  | { kind: 'none'; detail: string };

/**
 * The job's stdout or stderr, live like `tail -f`: GET /api/v1/jobs/{id}/output?follow=true read as
 * server-sent events with fetch (the token goes in a header, never in the URL). A dropped stream
 * resumes where it left off with Last-Event-ID (the byte offset after the last piece); a job that
 * has not started, ran on a simulated node or has no such file says so in words, never with made-up text.
 */
export function JobOutput({ job }: { job: Job }) {
  const [stream, setStream] = useState<Stream>('output');
  if (job.state === 'PENDING') return null;
  return (
    <div className="card" data-testid="job-output">
      <h2>Output</h2>
      <div role="tablist" aria-label="Which file" className="output-tabs">
        {(['output', 'error'] as const).map((s) => (
          <button key={s} type="button" role="tab" aria-selected={stream === s} className={stream === s ? 'tab active' : 'tab'}
            data-testid={`job-output-tab-${s}`} onClick={() => setStream(s)}>
            {s === 'output' ? 'Standard output' : 'Standard error'}
          </button>
        ))}
      </div>
      <FollowedFile key={`${job.jobId}-${stream}-${job.startTime ?? ''}`} jobId={String(job.id ?? job.jobId)} stream={stream} />
    </div>
  );
}

function FollowedFile({ jobId, stream }: { jobId: string; stream: Stream }) {
  const [text, setText] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'waiting' });
  const box = useRef<HTMLPreElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const abort = new AbortController();
    let stopped = false;
    let lastId: string | null = null;
    const append = (piece: string) => setText((t) => {
      const all = t + piece;
      return all.length > KEEP_CHARS ? all.slice(all.length - KEEP_CHARS) : all;
    });

    async function run() {
      let delay = 1000;
      while (!stopped) {
        try {
          const token = tokenStore.get();
          const response = await fetch(`/api/v1/jobs/${encodeURIComponent(jobId)}/${stream}?follow=true`, {
            headers: {
              Accept: 'text/event-stream',
              ...(token ? { Authorization: `Bearer ${token}` } : {}),
              ...(lastId ? { 'Last-Event-ID': lastId } : {}),
            },
            signal: abort.signal,
          });
          if (!response.ok) {
            const problem = await response.json().catch(() => ({}));
            if (response.status >= 500) throw new Error(problem.detail ?? `HTTP ${response.status}`);
            setStatus({ kind: 'none', detail: problem.detail ?? `HTTP ${response.status}` });
            return;
          }
          setStatus({ kind: 'following' });
          delay = 1000;
          const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
          const events = new SseEvents();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            for (const e of events.push(value)) {
              if (e.id) lastId = e.id;
              const data = e.data ? JSON.parse(e.data) : {};
              if (e.event === 'output') append(data.text ?? '');
              else if (e.event === 'end') { setStatus({ kind: 'ended', state: data.state }); return; }
              else if (e.event === 'notice') { setStatus({ kind: 'none', detail: data.detail }); return; }
            }
          }
        } catch {
          if (stopped) return;
        }
        setStatus({ kind: 'waiting' });
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 30000);
      }
    }
    void run();
    return () => { stopped = true; abort.abort(); };
  }, [jobId, stream]);

  useEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  return (
    <>
      <p className="muted" data-testid="job-output-status" aria-live="polite">
        {status.kind === 'waiting' && 'Connecting…'}
        {status.kind === 'following' && 'Live: new lines appear as the job writes them.'}
        {status.kind === 'ended' && `The job ended (${status.state}); this is all it wrote.`}
        {status.kind === 'none' && status.detail}
      </p>
      {(text || status.kind !== 'none') && (
        <pre ref={box} className="script job-output" data-testid="job-output-text" tabIndex={0}
          aria-label={stream === 'output' ? 'Standard output' : 'Standard error'}
          onScroll={(e) => { const el = e.currentTarget; stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24; }}>
          {text || (status.kind === 'ended' ? '(empty)' : '')}
        </pre>
      )}
    </>
  );
}

/** Server-sent events from text chunks: each complete event's name, id and data. */
export class SseEvents {
  private partial = '';
  private event = '';
  private id = '';
  private data: string[] = [];

  push(chunk: string): { event: string; id: string; data: string }[] {
    const lines = (this.partial + chunk).split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? '';
    const done: { event: string; id: string; data: string }[] = [];
    for (const line of lines) {
      if (line === '') {
        if (this.data.length || this.event) done.push({ event: this.event || 'message', id: this.id, data: this.data.join('\n') });
        this.event = ''; this.data = [];
      } else if (line.startsWith(':')) {
        continue;
      } else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') this.event = value;
        else if (field === 'data') this.data.push(value);
        else if (field === 'id') this.id = value;
      }
    }
    return done;
  }
}
