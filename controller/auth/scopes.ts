import type { Role, Scope } from './actor.js';

/** Scopes by role (DECISIONS.md, Authentication). */
export function scopesFor(role: Role): Scope[] {
  const scopes: Scope[] = ['*:read'];
  if (role === 'operator' || role === 'admin') scopes.push('services:write');
  if (role === 'admin') scopes.push('admin:*', 'tokens:manage');
  return scopes;
}

/** The caller's role in one environment: their membership role there, capped by the global one. */
export function roleIn(actor: { role: Role; environmentRoles: Record<string, Role> }, environmentId: string): Role {
  return minRole(actor.role, actor.environmentRoles[environmentId]);
}

/** Whether a membership anywhere lowers the caller's role below the global one. */
export function isLoweredSomewhere(actor: { role: Role; environmentRoles: Record<string, Role> }): boolean {
  return Object.values(actor.environmentRoles).some((r) => minRole(actor.role, r) !== actor.role);
}

export function minRole(a: Role, b: Role | null | undefined): Role {
  const order: Role[] = ['viewer', 'operator', 'admin'];
  if (!b) return a;
  return order[Math.min(order.indexOf(a), order.indexOf(b))];
}
