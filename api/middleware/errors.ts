import { AppError, isAppError } from '../../controller/errors/app-error.js';
import type { Logger } from '../../controller/logger.js';
import type { Ctx } from '../http/types.js';

/** Maps what koa and its helpers throw (status-carrying errors) onto the spec's codes. */
function fromHttpError(err: { status?: number; expose?: boolean; message?: string }): AppError | null {
  switch (err.status) {
    case 400: return new AppError('VALIDATION_ERROR', err.expose && err.message ? err.message : 'Malformed request');
    case 413: return new AppError('VALIDATION_ERROR', 'The request body is too large', { status: 413 });
    case 415: return new AppError('VALIDATION_ERROR', 'Unsupported content type; send application/json', { status: 415 });
    case 404: return new AppError('NOT_FOUND', 'Not found');
    case 405: return new AppError('NOT_FOUND', 'Method not allowed on this path', { status: 405 });
    default: return null;
  }
}

/**
 * Every failure leaves in the spec's envelope {code, message, field?, hint?, requestId}. A 5xx
 * the code did not expect says nothing of internals to the client; the log keeps the stack.
 */
export function errorEnvelope(logger: Logger) {
  return async function errorEnvelopeMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) throw new AppError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
    } catch (raw) {
      let err = isAppError(raw) ? raw : fromHttpError(raw as { status?: number });
      if (!err) {
        logger.error('unhandled error', { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path,
          error: raw instanceof Error ? raw.stack : String(raw) });
        err = new AppError('INTERNAL', 'Internal server error');
      } else if (err.status >= 500) {
        logger.warn('request failed', { requestId: ctx.state.requestId, code: err.code, msg: err.message });
      }
      ctx.status = err.status;
      if (err.code === 'RATE_LIMITED' && err.details?.retryAfter) ctx.set('Retry-After', String(err.details.retryAfter));
      ctx.body = {
        ...(err.details ?? {}),
        code: err.code,
        message: err.message,
        ...(err.field && { field: err.field }),
        ...(err.hint && { hint: err.hint }),
        requestId: ctx.state.requestId,
      };
    }
  };
}
