import { forbiddenRole, forbiddenScope, unauthorized } from '../../controller/errors/app-error.js';
import type { RouteSpec } from './route.js';
import { ROLE_RANK, type Ctx, type Scope } from './types.js';
import { scopesFor } from '../../controller/auth/scopes.js';

const SCOPE_OF_ROLE = { viewer: '*:read', operator: 'services:write', admin: 'admin:*' } as const;

/**
 * The outcome order of a protected route: 401, then FORBIDDEN_SCOPE (environment limits,
 * Authentication rule 4), then FORBIDDEN_ROLE. Returns before anything is loaded or validated.
 */
export function authorize(ctx: Ctx, spec: RouteSpec): void {
  if (spec.access === 'public') return;
  const actor = ctx.state.actor;
  if (!actor) throw ctx.state.authError ?? unauthorized();

  if (actor.environmentIds && !spec.envExempt) {
    const envId = ctx.params.envId;
    if (envId === undefined) {
      throw forbiddenScope('This token is limited to some environments and this route names none',
        'Use a token without environment limits, or a route under /api/environments/{envId}');
    }
    if (!actor.environmentIds.includes(envId)) {
      throw forbiddenScope('This token is not allowed to access this environment');
    }
  }

  if (spec.access === 'authenticated') return;
  const needed: Scope = spec.scope ?? SCOPE_OF_ROLE[spec.access];
  if (ROLE_RANK[actor.role] < ROLE_RANK[spec.access] || !scopesFor(actor.role).includes(needed)) {
    throw forbiddenRole(`This operation needs the ${spec.access} role (scope ${needed})`,
      actor.role === 'viewer' ? 'Ask an admin for an operator or admin role' : undefined);
  }
}
