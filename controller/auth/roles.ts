/** Roles, scopes and the caller identity: the controller's vocabulary, which the API enforces. */
export type Role = 'viewer' | 'operator' | 'admin';
export type Scope = '*:read' | 'services:write' | 'admin:*' | 'tokens:manage';
export const ROLE_RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/** Who is calling, after the bearer token was checked. */
export interface Actor {
  type: 'user' | 'service_account';
  id: string;
  name: string;
  /** The effective role: min(owner's role, the token's role cap). */
  role: Role;
  tokenType: 'jwt' | 'api_token';
  tokenId: string | null;
  /** null: every environment; otherwise the only environments this token may touch. */
  environmentIds: string[] | null;
}

/** Scopes by role (DECISIONS.md, Authentication). */
export function scopesFor(role: Role): Scope[] {
  const scopes: Scope[] = ['*:read'];
  if (role === 'operator' || role === 'admin') scopes.push('services:write');
  if (role === 'admin') scopes.push('admin:*', 'tokens:manage');
  return scopes;
}

export function minRole(a: Role, b: Role | null | undefined): Role {
  const order: Role[] = ['viewer', 'operator', 'admin'];
  if (!b) return a;
  return order[Math.min(order.indexOf(a), order.indexOf(b))];
}
