import { useSyncExternalStore } from 'react';

/**
 * Hash routing (#/jobs?state=PENDING): the controller serves only index.html at '/', so a
 * reload of any view still lands on the app. Filters live in the hash's query string.
 */
export interface Route { path: string; segments: string[]; query: URLSearchParams }

function read(): string { return window.location.hash.replace(/^#/, '') || '/'; }

function subscribe(callback: () => void): () => void {
  window.addEventListener('hashchange', callback);
  return () => window.removeEventListener('hashchange', callback);
}

export function parseRoute(hash: string): Route {
  const [path, search = ''] = hash.split('?', 2);
  const clean = path.startsWith('/') ? path : `/${path}`;
  return { path: clean, segments: clean.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, read, () => '/');
  return parseRoute(hash);
}

export function href(path: string, query?: Record<string, string | number | boolean | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '' && v !== false) params.set(k, String(v));
  }
  const qs = params.toString();
  return `#${path}${qs ? `?${qs}` : ''}`;
}

export function navigate(path: string, query?: Record<string, string | number | boolean | undefined | null>, replace = false): void {
  const target = href(path, query);
  if (replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}
