// The frame of every signed-in page: skip link, header with the environment switcher and the
// signed-in user, the environment's navigation (from the route table), and the page's <main>.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { routes } from '../routes';
import { Link, navigate } from '../router';
import { can, useSession } from '../session';

export function Layout({ envId, title, path, children }: { envId?: string; title: string; path: string; children: ComponentChildren }) {
  const { me, signOut } = useSession();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Stevedore`;
    heading.current?.focus(); // a new page is announced to screen readers and keyboard focus starts there
  }, [path]);
  const envPages = routes.filter((r) => r.nav && can(me, r.role ?? 'viewer'));
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/" class="brand">Stevedore</Link>
        <Link href="/environments" class="all-envs">All environments</Link>
        <label class="env-switch">
          Environment
          <select value={envId ?? ''} onChange={(e) => navigate(`/env/${(e.target as HTMLSelectElement).value}`)}>
            {!envId && <option value="">Choose…</option>}
            {me.environments.map((e) => <option value={e.id}>{e.name}</option>)}
          </select>
        </label>
        <span class="user">{me.name ?? me.email} <span class="role">({me.role})</span></span>
        <button type="button" class="link" onClick={signOut}>Sign out</button>
      </header>
      {envId && (
        <nav aria-label="Environment pages" class="tabs">
          {envPages.map((r) => {
            const href = r.path.replace(':envId', envId);
            return <Link href={href} aria-current={href === path ? 'page' : undefined}>{r.nav!}</Link>;
          })}
        </nav>
      )}
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>{title}</h1>
        {children}
      </main>
    </>
  );
}
