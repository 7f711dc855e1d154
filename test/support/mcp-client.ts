import http from 'node:http';
import { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface ConnectOptions {
  headers?: Record<string, string>;
  /** Connect from this local address (any 127.x.y.z works on Linux), so the server sees a distinct client IP. */
  localAddress?: string;
}

/** fetch over node:http from a chosen local address (global fetch cannot bind one). */
function fetchFrom(localAddress: string) {
  return (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => new Promise((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const req = http.request(url, { method: init.method ?? 'GET', headers, localAddress }, (res) => {
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
      const empty = res.statusCode === 202 || res.statusCode === 204;
      resolve(new Response(empty ? null : Readable.toWeb(res) as ReadableStream, { status: res.statusCode, headers: out }));
    });
    req.on('error', reject);
    req.end(typeof init.body === 'string' ? init.body : undefined);
  });
}

/**
 * An MCP client of the official SDK connected to a running service over real HTTP
 * (initialize included). `token` null connects without Authorization.
 */
export async function connectMcp(baseUrl: string, token: string | null, opts: ConnectOptions = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { ...(token && { authorization: `Bearer ${token}` }), ...opts.headers } },
    ...(opts.localAddress && { fetch: fetchFrom(opts.localAddress) }),
  });
  const client = new Client({ name: 'stevedore-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Names of the tools the server lists for this client, sorted. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

/** The JSON a tool answered (its text content). */
export function toolJson(result: unknown): any {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  const text = content[0].text;
  return JSON.parse(text.includes('\n') && /^[A-Z_]+: /.test(text) ? text.slice(text.indexOf('\n') + 1) : text);
}

/** Waits, when the 60 s idempotency bucket is about to turn, for the next one (derived keys change at the turn). */
export async function awayFromBucketEdge(marginMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}
