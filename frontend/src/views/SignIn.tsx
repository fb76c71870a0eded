import { useState, type FormEvent } from 'react';
import { useAuth } from '../lib/auth';
import { ErrorBox } from './common';

export function SignIn() {
  const { signIn } = useAuth();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username, password);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin" id="main">
      <form onSubmit={submit} className="card" data-testid="signin-form" aria-labelledby="signin-title">
        <h1 id="signin-title">Gantry</h1>
        <p className="muted">Sign in to see the cluster and your jobs.</p>
        <label htmlFor="username">Username</label>
        <input id="username" data-testid="signin-username" autoComplete="username" required autoFocus
          value={username} onChange={(e) => setUsername(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input id="password" type="password" data-testid="signin-password" autoComplete="current-password" required
          value={password} onChange={(e) => setPassword(e.target.value)} />
        <ErrorBox error={error} testId="signin-error" />
        <button type="submit" className="primary" disabled={busy} data-testid="signin-submit">{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
