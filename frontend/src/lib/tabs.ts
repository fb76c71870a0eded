/**
 * What the browser's tabs of this dashboard share, so that any number of them stays responsive. A
 * browser opens at most six HTTP/1.1 connections to one server, and each long-lived stream (the event
 * stream, a followed output file) holds one for as long as it is open: with a stream or two per tab a
 * fourth tab never loads and every request of the first waits behind them, Cancel included. So the
 * tabs elect one of them to hold the event stream and pass its messages to the others
 * ({@link leadOne}, {@link TabChannel}), and followed output files take one of a few slots
 * ({@link trySlot}), leaving connections free for the requests people make.
 *
 * Both rest on the Web Locks API, which browsers offer to secure contexts (https, and http on
 * localhost); elsewhere {@link locksAvailable} is false and the callers fall back to streaming only
 * from the tab in front.
 */

/** Whether this browser shares locks between the dashboard's tabs (Web Locks, in secure contexts). */
export function locksAvailable(): boolean {
  return typeof navigator !== 'undefined' && !!navigator.locks && typeof navigator.locks.request === 'function';
}

/**
 * Runs {@code lead} in one tab at a time: it waits while another tab holds {@code name}, runs once
 * this tab holds it, and gives it up when {@code lead} ends or {@code signal} aborts (the tab closing
 * gives it up too, and the next waiting tab leads). {@code lead} must end when the signal aborts.
 */
export function leadOne(name: string, signal: AbortSignal, lead: () => Promise<void>): void {
  navigator.locks.request(name, { signal }, async () => {
    if (!signal.aborted) await lead();
  }).catch(() => { /* aborted while waiting: this tab closed or signed out first */ });
}

/**
 * One of {@code count} slots named {@code prefix}-0, -1, ... if one is free now: its release, else
 * null (also when the browser has no Web Locks). The slot is held until released.
 */
export function trySlot(prefix: string, count: number): Promise<(() => void) | null> {
  if (!locksAvailable()) return Promise.resolve(null);
  return (async () => {
    for (let i = 0; i < count; i++) {
      const release = await tryLock(`${prefix}-${i}`);
      if (release) return release;
    }
    return null;
  })();
}

function tryLock(name: string): Promise<(() => void) | null> {
  return new Promise((resolve) => {
    let release: () => void = () => {};
    const released = new Promise<void>((r) => { release = r; });
    navigator.locks.request(name, { ifAvailable: true }, async (lock) => {
      if (!lock) { resolve(null); return; }
      resolve(release);
      await released;
    }).catch(() => resolve(null));
  });
}

/** A BroadcastChannel between this dashboard's tabs, or one that goes nowhere where there is none. */
export class TabChannel<T> {
  private readonly channel: BroadcastChannel | null;

  constructor(name: string, onMessage: (message: T) => void) {
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : null;
    this.channel?.addEventListener('message', (event: MessageEvent<T>) => onMessage(event.data));
  }

  /** Whether other tabs can hear this one. */
  get shared(): boolean {
    return this.channel !== null;
  }

  post(message: T): void {
    this.channel?.postMessage(message);
  }

  close(): void {
    this.channel?.close();
  }
}

/** Whether the tab is in front (a browser without the Page Visibility API counts every tab so). */
export function tabVisible(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}
