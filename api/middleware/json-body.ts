import getRawBody from 'raw-body';
import { validationError } from '../../controller/errors/app-error.js';
import type { Ctx } from '../http/types.js';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads JSON bodies with a size limit and keeps the exact bytes in ctx.request.rawBody (incoming
 * webhooks sign those bytes). Other content types (multipart uploads) are left to their route.
 */
export function jsonBody(limit = '1mb') {
  return async function jsonBodyMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const type = ctx.request.type;
    if (!WITH_BODY.has(ctx.method) || (type && type !== 'application/json' && !type.endsWith('+json'))) return next();
    const raw = await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined });
    ctx.request.rawBody = raw;
    if (raw.length > 0) {
      try {
        ctx.request.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw validationError('The request body is not valid JSON');
      }
    }
    await next();
  };
}
