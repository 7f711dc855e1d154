import { authorize } from '../http/authorize.js';
import type { RouteSpec } from '../http/route.js';
import type { Actor, Ctx } from '../http/types.js';

/**
 * Whether the route's own access check lets this caller through, asked of authorize() itself so
 * MCP registration can never disagree with the replayed call. An environment-limited token is
 * tried with one of its environments: it reaches a route that names {envId} (rule 4).
 */
export function reachable(actor: Actor, spec: RouteSpec): boolean {
  let envId: string | undefined;
  if (spec.path.includes('{envId}')) {
    // unlimited: any environment will do; limited to none: no route under an environment
    envId = actor.environmentIds === null ? 'any-environment' : actor.environmentIds[0];
    if (envId === undefined) return false;
  }
  const probe = { state: { actor, clientIp: '', requestId: '' }, params: envId ? { envId } : {} } as unknown as Ctx;
  try {
    authorize(probe, spec);
    return true;
  } catch {
    return false;
  }
}
