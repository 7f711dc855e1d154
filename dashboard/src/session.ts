// Who is signed in and which environment is shown; pages read it through useSession().
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role } from './router';

export interface Me {
  id: string;
  email: string | null;
  name: string | null;
  role: Role;
  /** Each visible environment with the user's role there (a membership lowers it, never raises it). */
  environments: Array<{ id: string; name: string; role: Role }>;
}

export interface Session {
  me: Me;
  signOut(): void;
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/**
 * Whether the signed-in user's role reaches `role`: buttons the API would refuse are not shown.
 * On a page of one environment (/env/:envId/…) their role there counts, as the API holds it.
 */
export function can(me: Me, role: Role): boolean {
  const envId = /^\/env\/([^/?]+)/.exec(location.pathname)?.[1];
  const here = envId ? me.environments.find((e) => e.id === envId)?.role : undefined;
  return RANK[here ?? me.role] >= RANK[role];
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}
