import type { Role, Scope, Ctx } from './types.js';
import type { Schema } from './schema.js';
import type { IdentityRef, Reach } from '../../controller/auth/policy.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route:
 * - 'public': no token (login, register, /health, signed webhooks);
 * - 'authenticated': any valid token, no scope (auth/me);
 * - a role: the minimum role, which implies the scope (viewer *:read, operator services:write,
 *   admin admin:*), or `scope` when the route needs a different one (tokens:manage).
 */
export type Access = 'public' | 'authenticated' | Role;

export interface RouteInput<B = any, Q = any, R = any> {
  params: Record<string, string>;
  query: Q;
  body: B;
  /** What `load` returned (the resource the path names), when the route has one. */
  resource: R;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<B = any, Q = any, R = any> {
  method: HttpMethod;
  /** OpenAPI-style path: /api/environments/{envId}/settings/{module}. */
  path: string;
  operationId: string;
  summary: string;
  /**
   * What the summary leaves out, for the OpenAPI document (side effects, when which status). The
   * document adds who may call the operation, so this never repeats the role.
   */
  description?: string;
  tag: string;
  access: Access;
  scope?: Scope;
  /**
   * Environment-limited tokens may only use routes whose path names an environment they hold.
   * Set true for routes exempt from that rule (environment list and get, auth/me).
   */
  envExempt?: boolean;
  query?: Record<string, Schema>;
  body?: Schema;
  /** A non-JSON request body (multipart upload), as the OpenAPI requestBody; the handler reads it. */
  requestBody?: Record<string, unknown>;
  /** Body fields that are read-only: supplying one is 422 READONLY_FIELD. */
  readOnly?: string[];
  /**
   * Where the request acts, which is where the caller must hold `access` (the one rule,
   * controller/auth/policy.ts; checked by api/http/authorize.ts). Omitted: the path's environment
   * ({envId}, /api/environments/{id}); else, for the installation's own paths (/api/admin,
   * /api/users, /api/settings, /api/system, /api/auth), the whole installation; else the loaded
   * resource's environment (a resource that names none: the installation); else, with nothing
   * loaded, the installation. 'installation': the whole installation although the path names an
   * environment (memberships are roles; register-host adds the controller's own machine). A
   * function: the environments the validated body or query names (a connection, a sync batch, a
   * manifests apply, the environments a new token reaches), run after validation.
   */
  actsIn?: 'installation' | ((ctx: Ctx, input: RouteInput<B, Q, R>) => Reach | Promise<Reach>);
  /**
   * The user the path's `param` names may call this route themselves, with any role, sending only
   * `fields` of the body when given (a user renames themselves, changes their own password).
   * Everyone else needs `access` where the route acts. Decided before anything is loaded.
   */
  self?: { param: string; fields?: string[] };
  /**
   * Whose identity or credential the request creates or changes (a token's owner): another's
   * than the caller's own needs an unrestricted admin (policy.ts, identityRefusal); 'anyone': the
   * request reads or changes every identity's. Run after validation, with the loaded resource.
   */
  identity?: (ctx: Ctx, input: RouteInput<B, Q, R>) => IdentityRef | 'anyone';
  /** Loads the resource the path names (throws NOT_FOUND) before the body is validated. */
  load?: (ctx: Ctx, params: Record<string, string>) => Promise<R>;
  /** Success status and schema for the OpenAPI document. */
  status?: number;
  response?: Schema;
  /** Media type of the success response when it is not JSON (a Mermaid export: text/plain). */
  responseType?: string;
  /**
   * Success answers besides `status`, each with its own body: a dry run's 200 preview, the
   * finished plan of `?wait=true`. Without a response schema the answer has no body.
   */
  alsoAnswers?: Record<number, { description: string; response?: Schema; responseType?: string }>;
  /** Other statuses this route can answer besides the usual auth and validation ones. */
  errors?: number[];
  /** Audit action; writes default to the operationId. false: not audited (e.g. login). */
  audit?: string | false;
  /** Handlers that stream (SSE) take over ctx and return nothing. */
  raw?: boolean;
  handler: (ctx: Ctx, input: RouteInput<B, Q, R>) => Promise<unknown | RouteResult>;
}

/** Identity function that gives a route literal its types. */
export function route<B = any, Q = any, R = any>(spec: RouteSpec<B, Q, R>): RouteSpec<B, Q, R> {
  return spec;
}

export const result = (status: number, body?: unknown, headers?: Record<string, string>): RouteResult & { __result: true } =>
  ({ status, body, headers, __result: true });

export const isRouteResult = (v: unknown): v is RouteResult =>
  !!v && typeof v === 'object' && (v as { __result?: boolean }).__result === true;

export const koaPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');
