import { useState } from 'preact/hooks';
import { post, setToken } from '../api';
import { navigate } from '../router';
import { ErrorNote } from '../components/status';

export function LoginPage() {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      const { token } = await post<{ token: string }>('/api/auth/login', { email: form.get('email'), password: form.get('password') });
      setToken(token);
      const next = new URLSearchParams(location.search).get('next');
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', true);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="login">
      <h1>Sign in to Stevedore</h1>
      <form onSubmit={submit}>
        <label>Email <input name="email" type="email" autoComplete="username" required /></label>
        <label>Password <input name="password" type="password" autoComplete="current-password" required /></label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
