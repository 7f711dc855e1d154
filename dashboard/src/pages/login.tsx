// Sign in; on a fresh install (no user yet) create the first admin instead, then sign in as them.
import { useEffect, useState } from 'preact/hooks';
import { get, post, setToken } from '../api';
import { navigate } from '../router';
import { ErrorNote } from '../components/status';
import { sameOriginPath } from '../../../controller/auth/same-origin-path';

/** Where to go once signed in: the `next` of the address when it is a page of this dashboard, else the start page. */
const nextPage = () => sameOriginPath(new URLSearchParams(location.search).get('next') ?? '/', location.origin) ?? '/';

async function signIn(email: FormDataEntryValue | null, password: FormDataEntryValue | null) {
  const { token } = await post<{ token: string }>('/api/auth/login', { email, password });
  setToken(token);
  navigate(nextPage(), true);
}

export function LoginPage() {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [firstRun, setFirstRun] = useState<boolean | null>(null);
  const [modes, setModes] = useState({ passwordLogin: true, sso: false });
  useEffect(() => {
    get<{ needsFirstAdmin: boolean; passwordLogin: boolean; sso: boolean }>('/api/auth/setup').then((r) => {
      setModes({ passwordLogin: r.passwordLogin, sso: r.sso });
      setFirstRun(r.needsFirstAdmin);
    }, () => setFirstRun(false));
    // a single sign-on that failed comes back here with its reason
    const failed = new URLSearchParams(location.hash.slice(1)).get('oidc_error');
    if (failed) {
      setError(new Error(`Single sign-on failed: ${failed}`));
      history.replaceState(null, '', location.pathname + location.search);
    }
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
      {modes.sso && !firstRun && (
        <p><a class="button" href={`/api/auth/oidc/login?next=${encodeURIComponent(nextPage())}`}>Sign in with single sign-on</a></p>
      )}
      {!modes.passwordLogin && <ErrorNote error={error} />}
      {modes.passwordLogin && <form onSubmit={submit}>
        <label>Email <input name="email" type="email" autoComplete="username" required /></label>
        {firstRun && <label>Name <input name="name" autoComplete="name" maxLength={200} /></label>}
        <label>Password <input name="password" type="password" autoComplete={firstRun ? 'new-password' : 'current-password'} required minLength={firstRun ? 8 : undefined} /></label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : firstRun ? 'Create admin and sign in' : 'Sign in'}</button>
      </form>}
    </main>
  );
}
