/**
 * API throughput benchmark: starts the real service (bin/stevedore.js serve) on a fresh database
 * of the PostgreSQL at DATABASE_URL, creates an admin, an environment, a registry and an svc_pat_
 * token, then drives 100 concurrent keep-alive clients for DURATION_S seconds against each target
 * and prints requests/s and p50/p99 latency.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/api.ts   (CONCURRENCY=100 DURATION_S=10)
 */
import http from 'node:http';
import { startServiceProcess } from './support/service-process.js';
import { cpuSeconds } from './support/process-stats.js';

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 100);
const DURATION_S = Number(process.env.DURATION_S ?? 10);
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL the benchmark may create a database in');

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(port: number, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({
      host: '127.0.0.1', port, method, path, agent,
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...(payload && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function load(port: number, path: string, token: string, seconds = DURATION_S) {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  async function worker() {
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      const res = await request(port, 'GET', path, token);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (res.status !== 200) errors++;
    }
  }
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(1);
  return { requests: latencies.length, rps: Math.round(latencies.length / elapsed), p50: pct(0.5), p99: pct(0.99), errors };
}

async function main() {
  const service = await startServiceProcess({
    adminUrl: adminUrl!, prefix: 'stevedore_bench',
    env: { RATE_LIMIT_PER_MINUTE: process.env.RATE_LIMIT_PER_MINUTE ?? '0' },
  });
  const { port, child } = service;
  try {
    await request(port, 'POST', '/api/auth/register', undefined, { email: 'bench@example.test', password: 'bench-password' });
    const jwt = (await request(port, 'POST', '/api/auth/login', undefined, { email: 'bench@example.test', password: 'bench-password' })).body.token;
    const me = (await request(port, 'GET', '/api/auth/me', jwt)).body;
    const env = (await request(port, 'POST', '/api/environments', jwt, { name: 'bench' })).body;
    for (let i = 0; i < 5; i++) {
      await request(port, 'POST', `/api/environments/${env.id}/registries`, jwt, { name: `reg-${i}`, type: 'generic', registryUrl: 'https://r.example.test', token: 't0ken-value' });
    }
    const pat = (await request(port, 'POST', '/api/admin/tokens', jwt, { name: 'bench', ownerUserId: me.id })).body.token;
    const targets: [string, string, string][] = [
      ['GET settings/general (JWT)', `/api/environments/${env.id}/settings/general`, jwt],
      ['GET registries list (svc_pat_)', `/api/environments/${env.id}/registries`, pat],
    ];
    console.log(`concurrency ${CONCURRENCY}, ${DURATION_S}s per target`);
    for (const [label, path, token] of targets) {
      await load(port, path, token, 2); // warm-up: JIT, database connections, caches
      const cpu0 = cpuSeconds(child.pid!);
      const r = await load(port, path, token);
      // Service CPU per request does not depend on what else the machine runs: capacity ≈ cores / it.
      const cpuUs = Math.round(((cpuSeconds(child.pid!) - cpu0) / r.requests) * 1e6);
      console.log(`${label.padEnd(32)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  `
        + `(${r.requests} requests, ${r.errors} non-200, service CPU ${cpuUs} µs/request)`);
    }
  } finally {
    agent.destroy();
    await service.stop();
  }
}

await main();
