import type { Role, Scope } from './actor.js';

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
