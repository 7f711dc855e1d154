import type Koa from 'koa';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { unauthorized } from '../../controller/errors/app-error.js';
import type { RouteSpec } from '../http/route.js';
import type { Ctx } from '../http/types.js';
import { INVALID_PARAMS, invalidParams } from './invalid-params.js';
import { replayThrough } from './replay.js';
import { mcpServerFor, type McpDeps } from './server.js';
import { buildToolCatalog } from './tool-catalog.js';

export const MCP_PATH = '/mcp';

/** The body the MCP transport itself answers a method it does not serve with (DECISIONS.md, errors). */
const METHOD_NOT_ALLOWED = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };

/** The SDK's DNS-rebinding protection (Host header, port-agnostic) as a check that answers or passes. */
function hostCheck(allowedHosts: string[]) {
  if (!allowedHosts.length) return () => null;
  const check = hostHeaderValidation(allowedHosts) as unknown as (req: unknown, res: unknown, next: () => void) => void;
  return (host: string | undefined): { status: number; body: unknown } | null => {
    let refused: { status: number; body: unknown } | null = null;
    check({ headers: { host } }, { status: (status: number) => ({ json: (body: unknown) => { refused = { status, body }; } }) }, () => {});
    return refused;
  };
}

export interface McpEndpointOptions {
  version: string;
  allowedHosts: string[];
  specs: RouteSpec[];
  /** The app the tools replay their routes through (its callback is taken on first use). */
  app: Koa<any, any>;
}

/**
 * POST /mcp: the Streamable HTTP transport of the MCP SDK, stateless (a new server and transport
 * per request), behind the app's request id, rate limit and authentication and before its
 * idempotency layer (the envelope itself is not idempotency-managed; the replayed calls are).
 * GET and DELETE (there are no sessions to resume or end) answer 405.
 */
export function mcpEndpoint(opts: McpEndpointOptions) {
  const catalog = buildToolCatalog(opts.specs);
  const specsByRoute = new Map(opts.specs.map((s) => [`${s.method} ${s.path}`, s]));
  const refuseHost = hostCheck(opts.allowedHosts);
  let deps: McpDeps | null = null;
  return async function mcpEndpointMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('Allow', 'POST');
      ctx.body = METHOD_NOT_ALLOWED;
      return;
    }
    const refused = refuseHost(ctx.get('host') || undefined);
    if (refused) {
      ctx.status = refused.status;
      ctx.body = refused.body;
      return;
    }
    const actor = ctx.state.actor;
    if (!actor) throw ctx.state.authError ?? unauthorized('The MCP endpoint needs a bearer token');
    deps ??= { version: opts.version, catalog, specsByRoute, replay: replayThrough(opts.app.callback()) };

    const server = mcpServerFor({
      actor, authorization: ctx.get('Authorization'), clientIp: ctx.state.clientIp, requestId: ctx.state.requestId,
    }, deps);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      // a request whose params its method's schema refuses is answered -32602 before the server sees it
      const deliver = transport.onmessage!;
      transport.onmessage = (message, extra) => {
        const invalid = invalidParams(message);
        if (invalid === null || !('id' in message)) return deliver(message, extra);
        transport.send({ jsonrpc: '2.0', id: message.id, error: { code: INVALID_PARAMS, message: invalid } })
          .catch((err: unknown) => transport.onerror?.(err as Error));
      };
      const request = new Request(`http://${ctx.get('host') || 'localhost'}${ctx.url}`, {
        method: 'POST',
        headers: Object.entries(ctx.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v]])) as [string, string][],
      });
      const response = await transport.handleRequest(request, { parsedBody: ctx.request.body });
      ctx.status = response.status;
      response.headers.forEach((value, name) => ctx.set(name, value));
      ctx.body = await response.text();
    } finally {
      await server.close();
    }
  };
}
