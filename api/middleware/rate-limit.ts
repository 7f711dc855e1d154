import { AppError } from '../../controller/errors/app-error.js';
import type { Ctx } from '../http/types.js';

interface Window { start: number; count: number }

/**
 * One global per-IP limit over a fixed one-minute window, with the RateLimit-* headers. Kept in
 * memory: each replica limits what reaches it, which is what protects that replica.
 */
export function rateLimit(perMinute: () => number, now: () => number = Date.now) {
  const windows = new Map<string, Window>();
  let lastSweep = now();
  // not async (a throw here still reaches the error envelope: koa-compose turns it into a rejection)
  return function rateLimitMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const limit = perMinute();
    if (limit <= 0 || ctx.path === '/health') return next();
    const t = now();
    if (t - lastSweep > 60_000) {
      for (const [ip, w] of windows) if (t - w.start >= 60_000) windows.delete(ip);
      lastSweep = t;
    }
    let w = windows.get(ctx.state.clientIp);
    if (!w || t - w.start >= 60_000) {
      w = { start: t, count: 0 };
      windows.set(ctx.state.clientIp, w);
    }
    w.count++;
    const reset = Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000));
    ctx.set('RateLimit-Limit', String(limit));
    ctx.set('RateLimit-Remaining', String(Math.max(0, limit - w.count)));
    ctx.set('RateLimit-Reset', String(reset));
    if (w.count > limit) {
      throw new AppError('RATE_LIMITED', 'Too many requests from this address', { details: { retryAfter: reset } });
    }
    return next();
  };
}
