import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, onUnauthorized, tokenStore } from '../api/client';
import type { WhoAmI } from '../api/types';
import { isOperator } from './cluster';

interface Auth {
  token: string | null;
  me: WhoAmI | undefined;
  operator: boolean;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => void;
}

/** What one tab tells the others on the 'gantry.auth' channel; never the token (it is in localStorage). */
type AuthMessage = { type: 'signed-in' } | { type: 'signed-out' };
const CHANNEL = 'gantry.auth';

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(() => tokenStore.get());
  const queryClient = useQueryClient();

  // Opened and closed by the effect below (StrictMode's second run in development gets a new one).
  const channel = useRef<BroadcastChannel | null>(null);

  /** Signs this tab out; `tell` also the other tabs of this browser (a sign-out or a revoked token ends them all). */
  const signOut = useCallback((tell = true) => {
    tokenStore.clear();
    setToken(null);
    queryClient.clear();
    if (tell) channel.current?.postMessage({ type: 'signed-out' } satisfies AuthMessage);
  }, [queryClient]);

  useEffect(() => onUnauthorized(() => signOut()), [signOut]);

  // Another tab signed in or out: follow it (the token itself is read from the shared storage).
  useEffect(() => {
    if (typeof BroadcastChannel !== 'function') return undefined;
    const open = new BroadcastChannel(CHANNEL);
    channel.current = open;
    const follow = (event: MessageEvent<AuthMessage>) => {
      if (event.data?.type === 'signed-out') signOut(false);
      else if (event.data?.type === 'signed-in') { queryClient.clear(); setToken(tokenStore.get()); }
    };
    open.addEventListener('message', follow);
    return () => { open.close(); if (channel.current === open) channel.current = null; };
  }, [signOut, queryClient]);

  // The same news from the storage itself: the browser tells every other tab when the token changes,
  // so a tab follows even when it missed the channel's message (it was opened or woken just then).
  useEffect(() => {
    const changed = (event: StorageEvent) => {
      if (event.key !== null && event.key !== tokenStore.key) return;
      const stored = tokenStore.get();
      if (stored === null) signOut(false);
      else { setToken((current) => { if (current !== stored) queryClient.clear(); return stored; }); }
    };
    window.addEventListener('storage', changed);
    return () => window.removeEventListener('storage', changed);
  }, [signOut, queryClient]);

  const whoami = useQuery({ queryKey: ['whoami', token], queryFn: api.whoami, enabled: !!token, refetchInterval: false });

  const signIn = useCallback(async (username: string, password: string) => {
    const answer = await api.signIn(username, password);
    tokenStore.set(answer.token);
    queryClient.clear();
    setToken(answer.token);
    channel.current?.postMessage({ type: 'signed-in' } satisfies AuthMessage);
  }, [queryClient]);

  const value = useMemo<Auth>(() => ({
    token, me: whoami.data, operator: isOperator(whoami.data?.roles), signIn, signOut: () => signOut(),
  }), [token, whoami.data, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
