import Router, { type RouterMiddleware } from '@koa/router';
import { readonlyField, validationError } from '../../controller/errors/app-error.js';
import type { Services } from '../../controller/services.js';
import { recordRequest } from './audit-request.js';
import { authorize, authorizeRequest, authorizeResource } from './authorize.js';
import { hasBody, unsupportedContentType } from './content-type.js';
import { assertNotManifestOwned } from './manifest-ownership.js';
import { isRouteResult, koaPath, type RouteSpec } from './route.js';
import { object } from './schema.js';
import type { Ctx } from './types.js';
import { validateBody, validateQuery } from './validate.js';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when the request carries a body that json-body left unread (no content type, or not JSON). */
const unreadBody = (ctx: Ctx) => ctx.request.rawBody === undefined && hasBody(ctx);

/**
 * An action that takes no body (reveal, test, read-all, reset, ssh-key check…) refuses one that
 * carries fields, as any route refuses unknown fields, and one it cannot read (not JSON); no body
 * at all is what it expects. Signed webhooks (public) read their own.
 */
function assertNoBody(ctx: Ctx, body: unknown, spec: RouteSpec): void {
  if (spec.access === 'public' || spec.requestBody || !WRITE.has(spec.method)) return;
  if (unreadBody(ctx)) throw validationError('This operation takes no request body');
  if (body === undefined) return;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError('This operation takes no request body');
  const [field] = Object.keys(body);
  if (field !== undefined) throw validationError(`Unknown field '${field}'`, field, 'This operation takes no request body');
}

function bodyOf(ctx: Ctx, spec: RouteSpec): unknown {
  const body = ctx.request.body;
  if (!spec.body) {
    assertNoBody(ctx, body, spec);
    return body ?? {};
  }
  // Ignoring it would run the route as if nothing had been sent; reading it as JSON would guess.
  if (unreadBody(ctx)) throw unsupportedContentType(ctx.request.type);
  const value = body === undefined ? {} : body;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError('The request body must be a JSON object');
  }
  for (const field of spec.readOnly ?? []) if (field in value) throw readonlyField(field);
  return validateBody(spec.body, value);
}

/** Runs one route: authorize, load, validate, handle, answer, audit. */
function runner(spec: RouteSpec, services: Services) {
  const querySchema = spec.query ? { ...object(spec.query), additionalProperties: true } : null;
  return async function handleRoute(ctx: Ctx): Promise<void> {
    // the route template, for /metrics (never the path: ids would make a series per resource)
    ctx.state.route = spec.path;
    authorize(ctx, spec);
    const params = ctx.params;
    const resource = spec.load ? await spec.load(ctx, params) : undefined;
    authorizeResource(ctx, spec, resource);
    const body = bodyOf(ctx, spec);
    const query = querySchema ? validateQuery(querySchema, { ...ctx.query }) : ctx.query;
    await authorizeRequest(ctx, spec, { params, query, body, resource });
    if (WRITE.has(spec.method)) assertNotManifestOwned(spec, params, resource, body);
    const out = await spec.handler(ctx, { params, query, body, resource });
    if (spec.raw) return;
    const wrapped = isRouteResult(out);
    const resBody = wrapped ? out.body : out;
    ctx.status = (wrapped ? out.status : undefined) ?? spec.status ?? 200;
    if (wrapped && out.headers) for (const k in out.headers) ctx.set(k, out.headers[k]);
    if (ctx.status === 204) ctx.body = null;
    else ctx.body = resBody ?? null;
    if (WRITE.has(spec.method) && spec.audit !== false && ctx.status < 400 && !ctx.state.audit?.skip) {
      await recordRequest(services.audit, ctx, spec, resource, resBody);
    }
  };
}

export function mountRoutes(router: Router, specs: RouteSpec[], services: Services): void {
  for (const spec of specs) {
    // the exempt routes answer an environment-limited token with what it may see: they only read
    if (spec.envExempt && spec.access !== 'viewer' && spec.access !== 'authenticated' && spec.access !== 'public') {
      throw new Error(`${spec.operationId}: envExempt is for reading routes (viewer or any token), not ${spec.access}`);
    }
    const method = spec.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](spec.operationId, koaPath(spec.path), runner(spec, services) as unknown as RouterMiddleware);
  }
}
