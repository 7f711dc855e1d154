/**
 * MCP overhead benchmark: the median latency of a read tool call (list_servers) next to the same
 * API call (GET /api/environments/{envId}/servers), one request at a time over keep-alive HTTP.
 * Starts the real service (MCP_ENABLED=true) on a fresh database of the PostgreSQL at DATABASE_URL.
 * The goal: the tool call within 2 ms of the API call.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/mcp.ts   (N=400 WARMUP=50)
 *
 * Three figures: the API call; the tool call as raw JSON-RPC over HTTP (what the server adds: a
 * new MCP server per request, the transport and the in-process replay of the route); and the
 * same tool call through the SDK's Client (adds the client library's own work).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startWithRoles } from '../test/support/fixtures.js';
import { connectMcp } from '../test/support/mcp-client.js';

const N = Number(process.env.N ?? 400);
const WARMUP = Number(process.env.WARMUP ?? 50);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(url: URL, method: string, token: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method, agent,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body && { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) }),
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function median(label: string, once: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await once();
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await once();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const p50 = ms[Math.floor(ms.length / 2)];
  console.log(`${label.padEnd(44)} median ${p50.toFixed(2)} ms   p90 ${ms[Math.floor(ms.length * 0.9)].toFixed(2)} ms`);
  return p50;
}

const w = await startWithRoles({ MCP_ENABLED: 'true', LOG_LEVEL: 'warn' });
try {
  const token = w.admin.token!;
  for (let i = 0; i < 5; i++) {
    await w.svc.services.servers.insert({ environmentId: w.envId, name: `bench-${i}`, hostname: `10.0.0.${i + 1}`, sshPort: 22, sshUser: 'root', dockerMode: 'ssh' } as never);
  }
  const apiUrl = new URL(`/api/environments/${w.envId}/servers`, w.svc.url);
  const mcpUrl = new URL('/mcp', w.svc.url);
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_servers', arguments: { envId: w.envId } } });
  const check = async (r: Promise<{ status: number; text: string }>) => {
    const { status, text } = await r;
    if (status !== 200 || text.includes('"isError":true')) throw new Error(`unexpected answer ${status}: ${text.slice(0, 200)}`);
  };
  const client = await connectMcp(w.svc.url, token);

  const api = await median('API  GET /api/environments/{envId}/servers', () => check(send(apiUrl, 'GET', token)));
  const raw = await median('MCP  tools/call list_servers (JSON-RPC)', () => check(send(mcpUrl, 'POST', token, call)));
  const sdk = await median('MCP  tools/call list_servers (SDK Client)', async () => {
    const r = await client.callTool({ name: 'list_servers', arguments: { envId: w.envId } });
    if (r.isError) throw new Error(JSON.stringify(r));
  });
  console.log(`server-side overhead of the tool call: ${(raw - api).toFixed(2)} ms (goal: within 2 ms); with the SDK client: ${(sdk - api).toFixed(2)} ms`);
  await client.close();
} finally {
  agent.destroy();
  await w.svc.stop();
}
process.exit(0);
