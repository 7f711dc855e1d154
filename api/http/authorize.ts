import { forbiddenRole, forbiddenScope, unauthorized } from '../../controller/errors/app-error.js';
import type { RouteSpec } from './route.js';
import { ROLE_RANK, type Ctx, type Scope } from './types.js';
import { isLoweredSomewhere, roleIn, scopesFor } from '../../controller/auth/scopes.js';
import type { Role } from '../../controller/auth/actor.js';

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

/** Paths whose routes act on the whole installation, never in one environment. */
const GLOBAL_PATHS = /^\/api\/(admin|settings|users|auth|system)(\/|$)|^\/api\/environments$/;

/**
 * The environment a request acts in, once its resource is loaded: the path's {envId}, the
 * environment of /api/environments/{id}, or the loaded row's environmentId. 'global' for routes
 * of the whole installation and for routes with neither a path environment nor a resource (their
 * handlers name the environments of their body through `authorizeIn`: connections, sync batches,
 * manifests). undefined: the route has a resource that names no environment — refused below to a
 * caller whose role is lowered somewhere, rather than guessed.
 */
export function environmentOfRequest(spec: RouteSpec, params: Record<string, string>, resource: unknown): string | 'global' | undefined {
  if (params.envId) return params.envId;
  if (spec.path.startsWith('/api/environments/{id}')) return params.id;
  if (GLOBAL_PATHS.test(spec.path)) return 'global';
  // a row, or a pair whose first member is the service ({service, deployment})
  const row = (resource as { service?: unknown } | undefined)?.service ?? resource;
  const environmentId = (row as { environmentId?: unknown } | undefined)?.environmentId;
  if (typeof environmentId === 'string') return environmentId;
  return spec.load ? undefined : 'global';
}

/**
 * Per-environment roles: in an environment where the caller is a member, the lower of the
 * membership role and the global role is what the route's access is held against. Runs after
 * the resource is loaded (its environment is known only then).
 */
export function authorizeEnvironment(ctx: Ctx, spec: RouteSpec, params: Record<string, string>, resource: unknown): void {
  const actor = ctx.state.actor;
  if (!actor || !isRole(spec.access) || spec.access === 'viewer' || !isLoweredSomewhere(actor)) return;
  const envId = environmentOfRequest(spec, params, resource);
  if (envId === 'global') return;
  if (envId === undefined) {
    throw forbiddenRole('Your role is lowered in some environments and this resource names none, so it is refused',
      'Ask an admin to act on it');
  }
  authorizeIn(ctx, spec.access, envId);
}

/** The caller holds `needed` in this environment (their membership role there, capped by their own). */
export function authorizeIn(ctx: Ctx, needed: Role, environmentId: string): void {
  const actor = ctx.state.actor;
  if (!actor) throw unauthorized();
  const role = roleIn(actor, environmentId);
  if (ROLE_RANK[role] < ROLE_RANK[needed]) {
    throw forbiddenRole(`This operation needs the ${needed} role in this environment; yours there is ${role}`,
      'Ask an admin of this environment for a higher role');
  }
}

const isRole = (a: string): a is Role => a in ROLE_RANK;
