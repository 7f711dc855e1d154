import { forbiddenRole, forbiddenScope, unauthorized } from '../../controller/errors/app-error.js';
import type { RouteInput, RouteSpec } from './route.js';
import { ROLE_RANK, type Actor, type Ctx, type Role, type Scope } from './types.js';
import { identityRefusal, refusal, scopesFor, type Reach } from '../../controller/auth/policy.js';

const SCOPE_OF_ROLE = { viewer: '*:read', operator: 'services:write', admin: 'admin:*' } as const;

/** The installation's own paths: routes there act on the whole installation, never in one environment. */
const INSTALLATION_PATHS = /^\/api\/(admin|settings|users|auth|system)(\/|$)/;

/**
 * Where a route acts, as far as its spec alone says (the OpenAPI document's x-acts-in):
 * 'environment' (the path names it), 'installation', 'resource' (the loaded row's environment)
 * or 'request' (the environments the body or query names, resolved by the route's actsIn). A
 * route's actsIn function adds to the path's or the resource's environment; where neither names
 * one, it decides alone.
 */
export function actsIn(spec: RouteSpec): 'environment' | 'installation' | 'resource' | 'request' {
  const resolver = typeof spec.actsIn === 'function';
  if (spec.actsIn === 'installation') return 'installation';
  if (spec.path.includes('{envId}') || spec.path.startsWith('/api/environments/{id}')) return 'environment';
  if (resolver && !spec.load) return 'request';
  if (INSTALLATION_PATHS.test(spec.path) && !resolver) return 'installation';
  return spec.load ? 'resource' : 'installation';
}

const isRole = (a: string): a is Role => a in ROLE_RANK;

/** The caller is the user the route's `self` parameter names, sending only the fields they may. */
function callsAsSelf(ctx: Ctx, spec: RouteSpec, actor: Actor): boolean {
  if (!spec.self || actor.type !== 'user' || ctx.params[spec.self.param] !== actor.id) return false;
  const allowed = spec.self.fields;
  if (!allowed) return true;
  const body = ctx.request.body;
  const fields = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const other = fields.find((f) => !allowed.includes(f));
  if (other === undefined) return true;
  if (isRole(spec.access) && ROLE_RANK[actor.role] >= ROLE_RANK[spec.access]) return false; // may still pass as an admin
  throw forbiddenRole(`You may change only ${allowed.join(', ')} of your own account, not ${other}`);
}

function throwIf(e: Error | null): void {
  if (e) throw e;
}

/**
 * Before anything is loaded or validated: 401, then FORBIDDEN_SCOPE (environment limits,
 * Authentication rule 4), then FORBIDDEN_ROLE (the role, and the one rule wherever the spec
 * alone says the route acts). A caller refused here learns nothing of their body or the resource.
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
  if (callsAsSelf(ctx, spec, actor)) {
    ctx.state.asSelf = true;
    return;
  }
  const needed: Scope = spec.scope ?? SCOPE_OF_ROLE[spec.access];
  if (ROLE_RANK[actor.role] < ROLE_RANK[spec.access] || !scopesFor(actor.role).includes(needed)) {
    throw forbiddenRole(`This operation needs the ${spec.access} role (scope ${needed})`,
      actor.role === 'viewer' ? 'Ask an admin for an operator or admin role' : undefined);
  }
  const where = actsIn(spec);
  if (where === 'installation') throwIf(ruleFor(actor, spec, 'installation'));
  else if (where === 'environment') throwIf(ruleFor(actor, spec, [ctx.params.envId ?? ctx.params.id]));
}

/** The one rule for this route's role; viewer routes only read, and environment limits are rule 4's. */
function ruleFor(actor: Actor, spec: RouteSpec, reach: Reach): Error | null {
  if (!isRole(spec.access) || spec.access === 'viewer') return null;
  return refusal(actor, spec.access, reach);
}

/** The environment a loaded resource lives in: its row's, or its service's ({service, deployment}); null: none. */
function environmentOfResource(resource: unknown): string | null {
  const row = (resource as { service?: unknown } | undefined)?.service ?? resource;
  const environmentId = (row as { environmentId?: unknown } | undefined)?.environmentId;
  return typeof environmentId === 'string' ? environmentId : null;
}

/** Once the resource is loaded: the rule where a resource route acts (a row of no environment: the installation). */
export function authorizeResource(ctx: Ctx, spec: RouteSpec, resource: unknown): void {
  const actor = ctx.state.actor;
  if (!actor || ctx.state.asSelf || actsIn(spec) !== 'resource') return;
  const environmentId = environmentOfResource(resource);
  // a row of no environment (a token) is placed by the route's own actsIn, after validation
  if (environmentId === null && typeof spec.actsIn === 'function') return;
  throwIf(ruleFor(actor, spec, environmentId === null ? 'installation' : [environmentId]));
}

/** Once the body and query are valid: the environments the request names, and whose identity it touches. */
export async function authorizeRequest(ctx: Ctx, spec: RouteSpec, input: RouteInput): Promise<void> {
  const actor = ctx.state.actor;
  if (!actor || ctx.state.asSelf) return;
  if (typeof spec.actsIn === 'function') throwIf(ruleFor(actor, spec, await spec.actsIn(ctx, input)));
  if (spec.identity) throwIf(identityRefusal(actor, spec.identity(ctx, input)));
}

/** Words for the OpenAPI document: who may call the operation, and where they must hold the role. */
export function accessText(spec: RouteSpec): string {
  if (spec.access === 'public') return 'No token needed.';
  if (spec.access === 'authenticated') return 'Any valid token.';
  const scope = spec.scope ?? SCOPE_OF_ROLE[spec.access];
  const self = spec.self ? ` The user the path names may call it themselves${spec.self.fields ? ` (${spec.self.fields.join(', ')} only)` : ''}.` : '';
  const also = typeof spec.actsIn === 'function' && actsIn(spec) !== 'request' ? ' The request may name more (its body): the role is needed there too.' : '';
  const others = spec.identity ? ' Acting on another identity than the caller\'s own needs an unrestricted admin.' : '';
  if (spec.access === 'viewer') return `Needs the viewer role or higher (scope ${scope}).${self}`;
  const where = {
    installation: spec.access === 'admin'
      ? 'an unrestricted admin: the admin role in every environment, with no environment limits'
      : `the ${spec.access} role in every environment`,
    environment: `the ${spec.access} role or higher in the path's environment`,
    resource: `the ${spec.access} role or higher in the resource's environment (the whole installation for a resource of none)`,
    request: `the ${spec.access} role or higher in every environment the request names`,
  }[actsIn(spec)];
  return `Needs ${where} (scope ${scope}).${also}${self}${others}`;
}
