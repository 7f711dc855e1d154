import { AppError } from '../../controller/errors/app-error.js';
import { RETRY_AFTER_SEC, toAppError } from './error-mapping.js';
import type { Logger } from '../../controller/logger.js';
import type { Ctx } from '../http/types.js';

/**
 * Every failure leaves in the spec's envelope {code, message, field?, hint?, requestId}. A 5xx
 * the code did not expect says nothing of internals to the client; the log keeps the stack.
 */
export function errorEnvelope(logger: Logger, onUnexpected?: (err: unknown, ctx: Ctx) => void) {
  const fail = (ctx: Ctx, raw: unknown) => {
    let err = toAppError(raw);
    if (!err) {
      logger.error('unhandled error', { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path,
        error: raw instanceof Error ? raw.stack : String(raw) });
      err = new AppError('INTERNAL', 'Internal server error');
      onUnexpected?.(raw, ctx);
    } else if (err.status >= 500) {
      logger.warn('request failed', { requestId: ctx.state.requestId, code: err.code, msg: err.message });
    }
    ctx.status = err.status;
    if (err.code === 'RATE_LIMITED' && err.details?.retryAfter) ctx.set('Retry-After', String(err.details.retryAfter));
    if (err.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SEC));
    ctx.body = {
      ...(err.details ?? {}),
      code: err.code,
      message: err.message,
      ...(err.field && { field: err.field }),
      ...(err.hint && { hint: err.hint }),
      requestId: ctx.state.requestId,
    };
  };
  // not async: one promise (next's) with two handlers, instead of an async frame held per request
  return function errorEnvelopeMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    return next().then(() => {
      if (ctx.status === 404 && ctx.body == null) fail(ctx, new AppError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`));
    }, (raw) => fail(ctx, raw));
  };
}
