import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
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

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(() => tokenStore.get());
  const queryClient = useQueryClient();

  const signOut = useCallback(() => {
    tokenStore.clear();
    setToken(null);
    queryClient.clear();
  }, [queryClient]);

  useEffect(() => onUnauthorized(signOut), [signOut]);

  const whoami = useQuery({ queryKey: ['whoami', token], queryFn: api.whoami, enabled: !!token, refetchInterval: false });

  const signIn = useCallback(async (username: string, password: string) => {
    const answer = await api.signIn(username, password);
    tokenStore.set(answer.token);
    queryClient.clear();
    setToken(answer.token);
  }, [queryClient]);

  const value = useMemo<Auth>(() => ({
    token, me: whoami.data, operator: isOperator(whoami.data?.roles), signIn, signOut,
  }), [token, whoami.data, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
