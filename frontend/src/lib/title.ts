import { useEffect } from 'react';

/** The page title of a view ("Jobs · Gantry"): tabs, history and screen readers tell views apart. */
export function pageTitle(view: string): string {
  return view ? `${view} · Gantry` : 'Gantry';
}

export function useTitle(view: string): void {
  useEffect(() => {
    document.title = pageTitle(view);
  }, [view]);
}
