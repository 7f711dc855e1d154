import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Actor } from '../http/types.js';
import { canonicalJson, idempotencyKeyFor } from './idempotency-key.js';
import type { ReplayRequest, ReplayResponse } from './replay.js';
import type { CatalogTool } from './tool-catalog.js';

/** Who called POST /mcp: every replayed sub-call carries the same token, address and request id. */
export interface McpCaller {
  actor: Actor;
  authorization: string;
  clientIp: string;
  requestId: string;
}

export type Replay = (r: ReplayRequest) => Promise<ReplayResponse>;

/** A replayed GET for the caller (resources and capabilities use it too). */
export function getFor(caller: McpCaller, replay: Replay, url: string): Promise<ReplayResponse> {
  return replay({ method: 'GET', url, headers: headersOf(caller), clientIp: caller.clientIp });
}

function headersOf(caller: McpCaller, idempotencyKey?: string | null): Record<string, string> {
  return {
    authorization: caller.authorization,
    'x-request-id': caller.requestId,
    ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
  };
}

const queryValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The HTTP request a tool call stands for: path parameters, query string, canonical JSON body, key. */
export function requestOf(tool: CatalogTool, args: Record<string, unknown>, now = Date.now()) {
  const path = tool.spec.path.replace(/\{(\w+)\}/g, (_m, param: string) => {
    const arg = tool.pathArgs.find(([p]) => p === param)![1];
    return encodeURIComponent(String(args[arg]));
  });
  const query = new URLSearchParams();
  for (const k of [...tool.queryArgs].sort()) if (args[k] !== undefined) query.set(k, queryValue(args[k]));
  const url = query.size ? `${path}?${query}` : path;
  if (!tool.write) return { method: tool.spec.method, url, body: undefined, idempotencyKey: null };
  const body: Record<string, unknown> = {};
  for (const k of tool.bodyArgs) if (args[k] !== undefined) body[k] = args[k];
  // Canonical bytes: the idempotency middleware hashes the body, and a repeat must hash alike.
  return { method: tool.spec.method, url, body: canonicalJson(body), idempotencyKey: idempotencyKeyFor(tool.name, args, now) };
}

/** Runs the tool as its route, with the caller's token and address, and turns the answer into a tool result. */
export async function callTool(tool: CatalogTool, args: Record<string, unknown>, caller: McpCaller, replay: Replay): Promise<CallToolResult> {
  const r = requestOf(tool, args);
  const res = await replay({ method: r.method, url: r.url, body: r.body, headers: headersOf(caller, r.idempotencyKey), clientIp: caller.clientIp });
  const meta = {
    'stevedore/status': res.status,
    'stevedore/route': tool.route,
    ...(r.idempotencyKey && { 'stevedore/idempotencyKey': r.idempotencyKey }),
    ...(res.headers['idempotent-replayed'] === 'true' && { 'stevedore/idempotentReplayed': true }),
  };
  if (res.status >= 400) return errorResult(res, meta);
  const body = tool.project ? tool.project(res.body) : res.body;
  return resultOf(body, meta);
}

function resultOf(body: unknown, meta: Record<string, unknown>): CallToolResult {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  const structured = body && typeof body === 'object' && !Array.isArray(body) ? { structuredContent: body as Record<string, unknown> } : {};
  return { content: [{ type: 'text', text }], ...structured, _meta: meta };
}

/** An API error as the tool's error: the envelope's code and message, so an agent can act on them. */
function errorResult(res: ReplayResponse, meta: Record<string, unknown>): CallToolResult {
  const envelope = res.body && typeof res.body === 'object'
    ? res.body as Record<string, unknown>
    : { code: 'INTERNAL', message: String(res.body ?? `HTTP ${res.status}`) };
  return {
    isError: true,
    content: [{ type: 'text', text: `${envelope.code}: ${envelope.message}\n${JSON.stringify(envelope)}` }],
    structuredContent: envelope,
    _meta: meta,
  };
}
