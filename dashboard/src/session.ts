// Who is signed in and which environment is shown; pages read it through useSession().
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Need, Role } from './router';

export interface Me {
  id: string;
  email: string | null;
  name: string | null;
  role: Role;
  /** Each visible environment with the user's role there (a membership lowers it, never raises it). */
  environments: Array<{ id: string; name: string; role: Role }>;
  /** An admin lowered nowhere, with no token cap or limit: the API's decision (policy.ts isUnrestrictedAdmin). */
  unrestricted: boolean;
}

export interface Session {
  me: Me;
  signOut(): void;
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/**
 * Whether the signed-in user's role reaches `role`: buttons the API would refuse are not shown.
 * On a page of one environment (/env/:envId/…) their role there counts, as the API holds it;
 * 'installation' needs an unrestricted admin, as GET /api/auth/me says.
 */
export function can(me: Me, role: Need): boolean {
  if (role === 'installation') return me.unrestricted === true;
  const envId = /^\/env\/([^/?]+)/.exec(location.pathname)?.[1];
  const here = envId ? me.environments.find((e) => e.id === envId)?.role : undefined;
  return RANK[here ?? me.role] >= RANK[role];
}

/** What a page needs, in words: shown in its place to whoever cannot open it. */
export function needs(role: Need): string {
  return role === 'installation'
    ? 'an unrestricted admin (the admin role in every environment, with no token cap or environment limit)'
    : `the ${role} role`;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}
