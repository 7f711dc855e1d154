import crypto from 'node:crypto';
import type { Ctx } from '../http/types.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Gives every request an id (the caller's, when it is sane) and echoes it in X-Request-Id. */
export function requestId() {
  // not async: a pass-through that awaits nothing costs a promise and a turn per request
  return function requestIdMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const incoming = ctx.req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = id;
    ctx.state.clientIp = ctx.req.socket.remoteAddress ?? 'unknown';
    ctx.res.setHeader('X-Request-Id', id);
    return next();
  };
}
