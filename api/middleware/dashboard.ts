import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Asset } from '../../dashboard/build.js';
import type { Ctx } from '../http/types.js';

// Everything the API owns; any other GET is the dashboard (its own router picks the page).
// (/.well-known/acme-challenge/ is the ACME HTTP-01 answer: api/routes/certificates.ts)
const NOT_DASHBOARD = /^\/(api|mcp|health|\.well-known\/acme-challenge)(\/|$)/;

/**
 * Serves the dashboard bundle at `/`: files under /assets/ as built, every other page path the
 * same index.html (a client-side route). Gzipped when the browser accepts it; the bundle is
 * content-stable per process, so a short cache with revalidation is enough.
 */
export function dashboard(assets: () => Promise<Map<string, Asset>>) {
  const serve = async (ctx: Ctx, next: () => Promise<unknown>) => {
    const files = await assets();
    const file = ctx.path.startsWith('/assets/') ? files.get(ctx.path) : files.get('/index.html');
    if (!file) return next();
    // a nonce new on every page: the <style> elements the dashboard's own scripts create carry it
    // (dashboard/src/style-nonce.ts, for xterm.js); a <style> in markup never does (docs/security.md)
    const page = file.contentType.startsWith('text/html');
    const nonce = page ? randomBytes(16).toString('base64') : null;
    ctx.set('Content-Security-Policy', `default-src 'self'; img-src 'self' data:; style-src 'self'${nonce ? ` 'nonce-${nonce}'` : ''}; frame-ancestors 'none'`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = file.contentType;
    const body = nonce ? Buffer.from(file.body.toString('utf8').replace('__STYLE_NONCE__', nonce)) : file.body;
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = nonce ? gzipSync(body) : file.gzip;
    } else {
      ctx.body = body;
    }
  };
  // not async: API requests pass through without a promise of their own
  return function dashboardMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || NOT_DASHBOARD.test(ctx.path)) return next();
    return serve(ctx, next);
  };
}
