/**
 * The API next to its floor, in the same run: a minimal Koa + pg app (bench/floor/koa-pg.ts, one
 * SELECT per request, no authentication) and Stevedore's authenticated
 * `GET /api/environments/{envId}/settings/general` (JWT), each loaded by wrk at 100 and at 10
 * connections, alternating, ROUNDS times. Prints req/s, p99 and the CPU each process spent per
 * request, and the ratios; the goals (issue 31) are p99 ≤ 1.3× the floor's and CPU per request
 * ≤ 1.25× the floor's (req/s is shown too). On a shared machine only the ratios of one round mean
 * anything: run several rounds and read the spread.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/api-floor.ts   (ROUNDS=3 DURATION_S=10 CONNECTIONS=100,10)
 *   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the service process.
 */
import { spawn } from 'node:child_process';
import { startServiceProcess } from './support/service-process.js';
import { cpuSeconds, freePort } from './support/process-stats.js';
import { wrk, type WrkResult } from './support/wrk.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION_S = Number(process.env.DURATION_S ?? 10);
const CONNECTIONS = (process.env.CONNECTIONS ?? '100,10').split(',').map(Number);
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL the benchmark may create a database in');

async function call(port: number, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The floor app as a child process of its own (its own event loop, like the service's). */
async function startFloor(databaseUrl: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'bench/floor/koa-pg.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the floor app exited (${code})`)));
  });
  return {
    port,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

/** wrk against a target, with the CPU its process spent per request (independent of the machine's load). */
async function measure(t: { url: string; pid: number }, connections: number, headers: Record<string, string>) {
  const cpu0 = cpuSeconds(t.pid);
  const r = await wrk(t.url, { connections, seconds: DURATION_S, headers });
  return { ...r, cpuUs: Math.round(((cpuSeconds(t.pid) - cpu0) / Math.max(1, r.requests)) * 1e6) };
}

const fmt = (r: WrkResult & { cpuUs: number }) => `${String(Math.round(r.rps)).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(1).padStart(6)} ms  p99 ${r.p99Ms.toFixed(1).padStart(6)} ms  CPU ${String(r.cpuUs).padStart(4)} µs/request${r.errors ? `  ${r.errors} errors` : ''}`;

async function main() {
  const service = await startServiceProcess({
    adminUrl: adminUrl!, prefix: 'stevedore_bench',
    env: { RATE_LIMIT_PER_MINUTE: '0' },
  });
  const dbUrl = new URL(adminUrl!);
  dbUrl.pathname = '/' + service.database;
  const floor = await startFloor(dbUrl.toString());
  const ratios: Record<number, { rps: number[]; p99: number[]; cpu: number[] }> = {};
  try {
    const { port } = service;
    await call(port, 'POST', '/api/auth/register', undefined, { email: 'bench@example.test', password: 'bench-password' });
    const { token } = await call(port, 'POST', '/api/auth/login', undefined, { email: 'bench@example.test', password: 'bench-password' });
    const env = await call(port, 'POST', '/api/environments', token, { name: 'bench' });
    await call(port, 'PATCH', `/api/environments/${env.id}/settings/general`, token, { sshUser: 'deploy' });
    const path = `/api/environments/${env.id}/settings/general`;
    const [viaApi, viaFloor] = await Promise.all([call(port, 'GET', path, token), call(floor.port, 'GET', path)]);
    if (JSON.stringify(viaApi) !== JSON.stringify({ ...viaApi, ...viaFloor })) throw new Error(`the floor answers differently: ${JSON.stringify(viaFloor)}`);
    const headers = { authorization: `Bearer ${token}` };
    const targets = [
      { name: 'floor (Koa + pg)', url: `http://127.0.0.1:${floor.port}${path}`, pid: floor.pid },
      { name: 'stevedore (JWT)', url: `http://127.0.0.1:${port}${path}`, pid: service.child.pid! },
    ];
    // warm-up: JIT, pool connections, caches
    for (const t of targets) await wrk(t.url, { connections: 10, seconds: 2, headers });
    console.log(`GET …/settings/general, wrk ${DURATION_S}s per run, ${ROUNDS} round(s); floor pid ${floor.pid}, service pid ${service.child.pid}`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const connections of CONNECTIONS) {
        const f = await measure(targets[0], connections, headers);
        const s = await measure(targets[1], connections, headers);
        const rps = s.rps / f.rps;
        const p99 = s.p99Ms / f.p99Ms;
        const cpu = s.cpuUs / f.cpuUs;
        (ratios[connections] ??= { rps: [], p99: [], cpu: [] }).rps.push(rps);
        ratios[connections].p99.push(p99);
        ratios[connections].cpu.push(cpu);
        console.log(`round ${round}, ${connections} connections`);
        console.log(`  ${targets[0].name.padEnd(18)} ${fmt(f)}`);
        console.log(`  ${targets[1].name.padEnd(18)} ${fmt(s)}`);
        console.log(`  ratio              ${rps.toFixed(2)}× req/s  ${p99.toFixed(2)}× p99 (goal ≤ 1.30)  ${cpu.toFixed(2)}× CPU/request (goal ≤ 1.25)`);
      }
    }
    const range = (v: number[]) => `${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}`;
    console.log('summary (spread over rounds)');
    for (const c of CONNECTIONS) {
      console.log(`  ${String(c).padStart(3)} connections: req/s ${range(ratios[c].rps)}× the floor, p99 ${range(ratios[c].p99)}×, CPU/request ${range(ratios[c].cpu)}×`);
    }
  } finally {
    await floor.stop();
    await service.stop();
  }
}

await main();
