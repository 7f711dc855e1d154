// Sign in; on a fresh install (no user yet) create the first admin instead, then sign in as them.
import { useEffect, useState } from 'preact/hooks';
import { get, post, setToken } from '../api';
import { navigate } from '../router';
import { ErrorNote } from '../components/status';

async function signIn(email: FormDataEntryValue | null, password: FormDataEntryValue | null) {
  const { token } = await post<{ token: string }>('/api/auth/login', { email, password });
  setToken(token);
  const next = new URLSearchParams(location.search).get('next');
  navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', true);
}

export function LoginPage() {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [firstRun, setFirstRun] = useState<boolean | null>(null);
  useEffect(() => {
    get<{ needsFirstAdmin: boolean }>('/api/auth/setup').then((r) => setFirstRun(r.needsFirstAdmin), () => setFirstRun(false));
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      if (firstRun) {
        await post('/api/auth/register', { email: form.get('email'), name: form.get('name') || undefined, password: form.get('password') });
      }
      await signIn(form.get('email'), form.get('password'));
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  if (firstRun === null) return <main id="main" class="login"><p role="status">Loading…</p></main>;
  return (
    <main id="main" class="login">
      <h1>{firstRun ? 'Create the first admin' : 'Sign in to Stevedore'}</h1>
      {firstRun && <p>This Stevedore has no user yet. The first account is its administrator.</p>}
      <form onSubmit={submit}>
        <label>Email <input name="email" type="email" autoComplete="username" required /></label>
        {firstRun && <label>Name <input name="name" autoComplete="name" maxLength={200} /></label>}
        <label>Password <input name="password" type="password" autoComplete={firstRun ? 'new-password' : 'current-password'} required minLength={firstRun ? 8 : undefined} /></label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : firstRun ? 'Create admin and sign in' : 'Sign in'}</button>
      </form>
    </main>
  );
}
