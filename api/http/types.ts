import type Koa from 'koa';

// Roles and the caller belong to the controller (controller/auth/actor.ts); the API names them here too.
export type { Actor, Role, Scope } from '../../controller/auth/actor.js';
export { ROLE_RANK } from '../../controller/auth/actor.js';
import type { Actor } from '../../controller/auth/actor.js';

export interface AuditNote {
  action?: string;
  resourceType?: string;
  resourceId?: string | null;
  environmentId?: string | null;
  details?: Record<string, unknown>;
  skip?: boolean;
}

export interface AppState {
  requestId: string;
  actor?: Actor;
  /** Set when a bearer token was sent but is not valid, or could not be checked (store down); thrown only on protected routes. */
  authError?: unknown;
  /** Filled by handlers that want to say more in the audit entry than the route's default. */
  audit?: AuditNote;
  /** Real client address (X-Forwarded-For is not trusted). */
  clientIp: string;
  /** Set when the caller passed a route's `self` rule (their own account): no further role check applies. */
  asSelf?: boolean;
  /** The matched route's template (/api/services/{id}), for /metrics labels. */
  route?: string;
}

export interface AppRequest extends Koa.Request {
  body?: unknown;
  rawBody?: Buffer;
}

export type Ctx = Koa.ParameterizedContext<AppState> & { request: AppRequest; params: Record<string, string> };
