import { useEffect, useRef, useState } from 'react';
import { tokenStore } from '../api/client';
import type { Job } from '../api/types';
import { locksAvailable, tabVisible, trySlot } from '../lib/tabs';

/** What the page keeps of a followed file: its last part, like a terminal's scrollback. */
const KEEP_CHARS = 200_000;

type Stream = 'output' | 'error';
type Status =
  | { kind: 'waiting' }
  | { kind: 'following' }
  | { kind: 'polling' }
  | { kind: 'ended'; state: string }
  | { kind: 'none'; detail: string };

/**
 * The job's stdout or stderr, live like `tail -f`: GET /api/v1/jobs/{id}/output?follow=true read as
 * server-sent events with fetch (the token goes in a header, never in the URL), or, when the browser's
 * tabs already follow as many files as they may (lib/tabs), read from the last offset every few
 * seconds; a tab at the back reads nothing until it comes to the front. A dropped stream resumes
 * where it left off (the byte offset after the last piece); a job that
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
      <FollowedFile key={`${job.jobId}-${stream}-${job.startTime ?? ''}`} jobId={String(job.id ?? job.jobId)} stream={stream}
        jobState={job.state} />
    </div>
  );
}

/** How many output files the browser's tabs follow as streams at once (lib/tabs); the others poll. */
const OUTPUT_SLOTS = 2;
/** How often a file without a stream slot is read again. */
const POLL_MS = 2000;

function FollowedFile({ jobId, stream, jobState }: { jobId: string; stream: Stream; jobState: string }) {
  const [text, setText] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'waiting' });
  const box = useRef<HTMLPreElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const abort = new AbortController();
    let stopped = false;
    // Bytes of the file received so far: a stream resumes, and a poll reads on, from there.
    let offset = 0;
    const decoder = new TextDecoder();
    const append = (piece: string) => setText((t) => {
      const all = t + piece;
      return all.length > KEEP_CHARS ? all.slice(all.length - KEEP_CHARS) : all;
    });
    const headers = (accept: string) => {
      const token = tokenStore.get();
      return { Accept: accept, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    };
    const path = `/api/v1/jobs/${encodeURIComponent(jobId)}/${stream}`;
    // Resolves when the tab comes to the front (at once if it is), or when the page leaves the job.
    const inFront = () => new Promise<void>((resolve) => {
      if (tabVisible()) { resolve(); return; }
      const seen = () => { if (tabVisible() || stopped) { document.removeEventListener('visibilitychange', seen); resolve(); } };
      document.addEventListener('visibilitychange', seen);
      abort.signal.addEventListener('abort', seen, { once: true });
    });
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    /** Follows the file as a stream until it ends ('done'), drops ('again') or the tab goes to the back. */
    async function follow(): Promise<'done' | 'again'> {
      const mine = new AbortController();
      const hidden = () => { if (!tabVisible()) mine.abort(); };
      document.addEventListener('visibilitychange', hidden);
      abort.signal.addEventListener('abort', () => mine.abort(), { once: true });
      try {
        const response = await fetch(`${path}?follow=true&offset=${offset}`, { headers: headers('text/event-stream'), signal: mine.signal });
        if (!response.ok) return refused(response);
        setStatus({ kind: 'following' });
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        const events = new SseEvents();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return 'again';
          for (const e of events.push(value)) {
            if (e.id && /^\d+$/.test(e.id)) offset = Number(e.id);
            const data = e.data ? JSON.parse(e.data) : {};
            if (e.event === 'output') append(data.text ?? '');
            else if (e.event === 'end') { setStatus({ kind: 'ended', state: data.state }); return 'done'; }
            else if (e.event === 'notice') { setStatus({ kind: 'none', detail: data.detail }); return 'done'; }
          }
        }
      } catch (error) {
        if (mine.signal.aborted && !stopped) return 'again'; // the tab went to the back: read on once in front
        throw error;
      } finally {
        document.removeEventListener('visibilitychange', hidden);
      }
    }

    /** Reads what the file gained since the last read; 'done' once the job ended and all of it is read. */
    async function poll(): Promise<'done' | 'again'> {
      const response = await fetch(`${path}?offset=${offset}`, { headers: headers('text/plain'), signal: abort.signal });
      if (!response.ok) return refused(response);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const running = response.headers.get('Gantry-Job-Running') !== 'false';
      const next = Number(response.headers.get('Gantry-Output-Next-Offset'));
      offset = Number.isFinite(next) && next >= offset ? next : offset + bytes.length;
      append(decoder.decode(bytes, { stream: running }));
      if (!running && bytes.length === 0) { setStatus({ kind: 'ended', state: '' }); return 'done'; }
      setStatus({ kind: 'polling' });
      return 'again';
    }

    async function refused(response: Response): Promise<'done' | 'again'> {
      const problem = await response.json().catch(() => ({}));
      if (response.status >= 500) throw new Error(problem.detail ?? `HTTP ${response.status}`);
      setStatus({ kind: 'none', detail: problem.detail ?? `HTTP ${response.status}` });
      return 'done';
    }

    async function run() {
      let delay = 1000;
      while (!stopped) {
        await inFront();
        if (stopped) return;
        try {
          // A stream while one of the browser's few slots is free (or, where tabs cannot share, in the tab in
          // front); else a read every few seconds, so open tabs never take every connection the browser has.
          const release = await trySlot('gantry-output', OUTPUT_SLOTS) ?? (locksAvailable() ? null : () => {});
          let outcome: 'done' | 'again';
          if (release) {
            try { outcome = await follow(); } finally { release(); }
          } else {
            outcome = await poll();
          }
          if (outcome === 'done') return;
          delay = 1000;
          if (!release) await pause(POLL_MS);
        } catch {
          if (stopped) return;
          setStatus({ kind: 'waiting' });
          await pause(delay);
          delay = Math.min(delay * 2, 30000);
        }
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
        {status.kind === 'polling' && 'Live: read again every few seconds (other tabs are following output).'}
        {status.kind === 'ended' && `The job ended (${status.state || jobState}); this is all it wrote.`}
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
