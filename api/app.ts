import Koa from 'koa';
import Router from '@koa/router';
import type { Services } from '../controller/services.js';
import { requestId } from './middleware/request-id.js';
import { errorEnvelope } from './middleware/errors.js';
import { rateLimit } from './middleware/rate-limit.js';
import { jsonBody } from './middleware/json-body.js';
import { authenticate } from './middleware/authenticate.js';
import { idempotency } from './middleware/idempotency.js';
import { mountRoutes } from './http/mount.js';
import { routeIndex } from './http/route-index.js';
import { allRoutes } from './routes/index.js';
import { buildOpenApi } from './openapi/build-openapi.js';
import { route, type RouteSpec } from './http/route.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { rememberRouteTable } from './mcp/route-table.js';
import { dashboard } from './middleware/dashboard.js';
import { metricsEndpoint, requestMetrics } from './middleware/metrics.js';
import { dashboardAssets } from '../dashboard/build.js';
import { webSocketUpgrades, type WebSocketUpgrades } from './http/websocket.js';

/** Every route spec with the router that serves them and the OpenAPI document that describes them. */
export function buildRouter(s: Services): { router: Router; specs: RouteSpec[]; document: ReturnType<typeof buildOpenApi> } {
  const specs = allRoutes(s);
  const openapi = route({
    method: 'GET', path: '/api/openapi.json', operationId: 'getOpenApi', tag: 'system', access: 'public',
    summary: 'This OpenAPI 3.0.3 document',
    response: {
      type: 'object', description: 'An OpenAPI 3.0.3 document', required: ['openapi', 'info', 'paths'], additionalProperties: true,
      properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
    },
    handler: async () => document,
  });
  const document = buildOpenApi([...specs, openapi], s.config.version);

  const router = new Router();
  mountRoutes(router, [...specs, openapi], s);
  rememberRouteTable(s, [...specs, openapi]);
  return { router, specs: [...specs, openapi], document };
}

/** The whole middleware chain, in order, in one place. */
export function createApp(s: Services): Koa & { websockets: WebSocketUpgrades } {
  const app = new Koa({ proxy: false });
  app.silent = true; // errorEnvelope logs what matters; koa's default logger would print stacks.
  const { router, specs } = buildRouter(s);

  app.use(requestId());
  app.use(requestMetrics(s.metrics)); // outside the error envelope: it sees the status that was answered
  // unexpected failures (500) also go to the error tracker when one is configured
  app.use(errorEnvelope(s.logger, (err, ctx) => s.errorTracking.capture(err, {
    requestId: ctx.state.requestId, route: `${ctx.method} ${(ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.path}`,
  })));
  app.use(rateLimit(() => s.config.rateLimitPerMinute));
  app.use(metricsEndpoint(s.metrics, s.config.metricsToken)); // GET /metrics, before the web UI takes every other GET
  app.use(dashboard(dashboardAssets)); // every GET outside /api, /mcp and /health: the web UI
  app.use(jsonBody('1mb'));
  app.use(authenticate({ jwtSecret: s.config.jwtSecret, users: s.users, apiTokens: s.apiTokens, environmentMembers: s.environmentMembers }));
  // Off: not registered at all, so /mcp is the router's 404. Before idempotency: the envelope is not managed, its replays are.
  if (s.config.mcpEnabled) app.use(mcpEndpoint({ version: s.config.version, allowedHosts: s.config.mcpAllowedHosts, specs, app }));
  app.use(idempotency(s.idempotencyKeys, s.secretBox));
  app.use(routeIndex(specs, (group, members) => mountRoutes(group, members, s)));
  app.use(router.allowedMethods({ throw: true }));
  // WebSocket routes (exec) through the same chain: http/websocket.ts
  return Object.assign(app, { websockets: webSocketUpgrades(app.callback()) });
}
