// GET /metrics in Prometheus's text format, and the HTTP figures it serves: each answer counted
// and timed by method, route template and status. Unmatched paths share one label (`none`), the
// dashboard's pages another (`dashboard`), so a scan of random paths cannot grow the series.
import { constantTimeEqual } from '../../controller/crypto/constant-time.js';
import type Koa from 'koa';
import type { Metrics } from '../../controller/metrics/metrics.js';
import { AppError, unauthorized } from '../../controller/errors/app-error.js';

export function requestMetrics(m: Metrics): Koa.Middleware {
  const record = (ctx: Koa.Context, started: number) => {
    const route = (ctx.state as { route?: string }).route
      ?? (ctx.path === '/metrics' ? '/metrics' : ctx.path === '/mcp' ? '/mcp' : ctx.path.startsWith('/api/') ? 'none' : 'dashboard');
    m.httpSeries(ctx.method, route, ctx.status).answered((performance.now() - started) / 1000);
  };
  // not async: next's promise with two handlers, no async frame held per request
  return (ctx, next) => {
    const started = performance.now();
    return next().then(() => record(ctx, started), (e) => {
      record(ctx, started);
      throw e;
    });
  };
}

/** `token`: METRICS_TOKEN; when set, the scrape must send it as a bearer token (compared in constant time). */
export function metricsEndpoint(m: Metrics, token: string | null): Koa.Middleware {
  const expected = token ? `Bearer ${token}` : null;
  const serve: Koa.Middleware = async (ctx) => {
    // refusals in the API's error envelope (the error middleware outside this one writes it)
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError('NOT_FOUND', 'GET /metrics only', { status: 405 });
    }
    if (expected && !constantTimeEqual(ctx.get('authorization'), expected)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      throw unauthorized('GET /metrics needs the METRICS_TOKEN as a bearer token');
    }
    ctx.set('Content-Type', m.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await m.text();
  };
  // not async: every other path passes through without a promise of its own
  return (ctx, next) => (ctx.path === '/metrics' ? serve(ctx, next) : next());
}
