// A small history router: the route table (routes.ts) maps paths like /env/:envId to page
// components; links push state, the back button pops it.
import type { ComponentChildren, ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type Role = 'viewer' | 'operator' | 'admin';
/**
 * What a page or a control needs: a role (in the page's environment), or 'installation': an
 * unrestricted admin, as the API's routes of the whole installation need (users, others' tokens,
 * system settings, new environments; docs/security.md).
 */
export type Need = Role | 'installation';

export interface Route {
  path: string;
  page: ComponentType<{ params: Record<string, string> }>;
  title: string;
  /** Shown in the environment's navigation with this label. */
  nav?: string;
  /** Lowest role that may open the page (default viewer), or 'installation'. */
  role?: Need;
  /** Reachable without signing in. */
  public?: boolean;
  /** Starts loading the page's data while the sign-in is still being checked (the API checks the role). */
  preload?: (params: Record<string, string>) => void;
}

const CHANGE = 'stevedore:navigate';

export function navigate(path: string, replace = false) {
  if (path === location.pathname + location.search) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', path);
  dispatchEvent(new Event(CHANGE));
}

export function useLocation(): string {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => setPath(location.pathname + location.search);
    addEventListener('popstate', update);
    addEventListener(CHANGE, update);
    return () => { removeEventListener('popstate', update); removeEventListener(CHANGE, update); };
  }, []);
  return path;
}

export function match(routes: Route[], pathname: string): { route: Route; params: Record<string, string> } | null {
  const parts = pathname.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (pattern.every((p, i) => (p.startsWith(':') ? (params[p.slice(1)] = decodeURIComponent(parts[i])) !== undefined : p === parts[i]))) return { route, params };
  }
  return null;
}

export function Link(props: { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a {...props} onClick={(e) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
      e.preventDefault();
      navigate(props.href);
    }} />
  );
}
