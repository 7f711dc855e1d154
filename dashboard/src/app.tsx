// The shell: finds the page for the address, makes sure someone is signed in, and wraps the page
// in the layout.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { currentToken, get, onSignedOut, setToken } from './api';
import { Layout } from './components/layout';
import { ErrorNote } from './components/status';
import { match, navigate, useLocation } from './router';
import { routes } from './routes';
import { can, needs, SessionContext, type Me } from './session';

export function App() {
  const path = useLocation();
  const pathname = path.split('?')[0];
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const found = match(routes, pathname);
  // the first page's data load runs alongside the sign-in check instead of after it
  useState(() => { if (found && !found.route.public && currentToken()) found.route.preload?.(found.params); });

  useEffect(() => onSignedOut(() => { setMe(null); navigate('/login', true); }), []);
  useEffect(() => {
    if (me || found?.route.public) return;
    if (!currentToken()) { navigate(`/login?next=${encodeURIComponent(path)}`, true); return; }
    get<Me>('/api/auth/me').then(setMe, setError);
  }, [me, found?.route.public, path]);

  const session = useMemo(() => me && { me, signOut: () => { setToken(null); setMe(null); navigate('/login'); } }, [me]);

  if (!found) return <NotFound />;
  const { route, params } = found;
  const Page = route.page;
  if (route.public) return <Page params={{ ...params, onSignedIn: '' }} />;
  if (error) return <main id="main"><h1>Stevedore</h1><ErrorNote error={error} /></main>;
  if (!session) return <p class="loading" role="status">Loading…</p>;
  return (
    <SessionContext.Provider value={session}>
      <Layout envId={params.envId} title={route.title} path={pathname}>
        {can(session.me, route.role ?? 'viewer') ? <Page key={pathname} params={params} /> : <p data-needs={route.role}>This page needs {needs(route.role ?? 'viewer')}.</p>}
      </Layout>
    </SessionContext.Provider>
  );
}

function NotFound() {
  return <main id="main"><h1>Not found</h1><p><a href="/">Back to the environments</a></p></main>;
}
