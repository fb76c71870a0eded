import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { ApiError } from './api/client';
import { liveStreamOpen } from './lib/live';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // While /api/v1/events is open it says what changed (lib/live.ts invalidates the queries it
      // concerns): a slow poll catches the rest. Without it, polling keeps every view live.
      refetchInterval: () => (liveStreamOpen() ? 30_000 : 1500),
      refetchIntervalInBackground: false,
      staleTime: 500,
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
