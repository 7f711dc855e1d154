/**
 * Soak: the real service (bin/stevedore.js serve) on a fresh database of the PostgreSQL at
 * DATABASE_URL, with one service deployed to the test fleet's servers, under mixed load for
 * DURATION_S seconds (default 1800): reads (services, plans, events, health), writes (vars
 * created and deleted, service env patched) and a deploy alternating v1/v2 every DEPLOY_EVERY_S.
 * Prints the service's RSS at start (after warm-up), its peak and at the end, and the count of
 * answers by status. Goal: no 5xx (503 only during a database outage), RSS flat after warm-up.
 *
 *   FLEET_ID=7 bash test/fleet/up.sh; set -a; . /tmp/stevedore-fleet-7/fleet.env; set +a
 *   DURATION_S=180 npx tsx bench/soak.ts      (CONCURRENCY=8 DEPLOY_EVERY_S=20)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { startServiceProcess } from './support/service-process.js';
import { loadFleet } from '../test/fleet/fleet.js';

const DURATION_S = Number(process.env.DURATION_S ?? 1800);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const DEPLOY_EVERY_S = Number(process.env.DEPLOY_EVERY_S ?? 20);
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL the soak may create a database in (the fleet\'s: fleet.env)');

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY + 2 });

function request(port: number, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({
      host: '127.0.0.1', port, method, path, agent,
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...(payload && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
        resolve({ status: res.statusCode!, body: parsed });
      });
    });
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: null })); // 0: no answer (connection refused/reset)
    req.end(payload);
  });
}

/** Resident set size of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

async function main() {
  const fleet = loadFleet();
  const service = await startServiceProcess({
    adminUrl: adminUrl!, prefix: 'stevedore_soak', env: { SCHEDULER_HEALTH_CHECK_SEC: '10', SCHEDULER_DRIFT_CHECK_SEC: '30' },
  });
  const { port, child } = service;
  const statuses = new Map<string, number>();
  const count = (label: string, status: number) => {
    const key = `${label} ${status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  };
  let deploys = 0;
  const plans = new Map<string, number>();
  try {
    await request(port, 'POST', '/api/auth/register', undefined, { email: 'soak@example.test', password: 'soak-password' });
    const jwt = (await request(port, 'POST', '/api/auth/login', undefined, { email: 'soak@example.test', password: 'soak-password' })).body.token;
    const env = (await request(port, 'POST', '/api/environments', jwt, { name: 'soak' })).body;
    await request(port, 'PUT', `/api/environments/${env.id}/ssh-key`, jwt, { privateKey: fs.readFileSync(fleet.servers[0].privateKeyPath, 'utf8') });
    const image = (await request(port, 'POST', `/api/environments/${env.id}/container-images`, jwt, { imageName: fleet.images.webV1.replace(/:v1$/, '') })).body;
    const svc = (await request(port, 'POST', `/api/environments/${env.id}/services`, jwt, { name: 'soak', containerImageId: image.id, imageTag: 'v1', env: { GREETING: 'soak' } })).body;
    const tag = crypto.randomBytes(3).toString('hex');
    for (const f of fleet.servers) {
      const server = (await request(port, 'POST', `/api/environments/${env.id}/servers`, jwt, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user })).body;
      await request(port, 'POST', `/api/services/${svc.id}/deployments`, jwt, { serverId: server.id, containerName: `soak-${tag}-${f.name}` });
    }
    const first = await request(port, 'POST', `/api/services/${svc.id}/deploy?wait=true`, jwt, { imageTag: 'v1', strategy: 'parallel' });
    console.log(`first deploy: ${first.body?.status}`);

    const reads = [`/api/environments/${env.id}/services`, `/api/services/${svc.id}`, `/api/environments/${env.id}/deployment-plans`,
      '/health', `/api/environments/${env.id}/servers`, `/api/environments/${env.id}/vars`, '/api/notifications'];
    const rss = { start: 0, peak: 0, end: 0 };
    const end = Date.now() + DURATION_S * 1000;
    const warmUpEnd = Date.now() + Math.min(30, DURATION_S / 6) * 1000;
    const sampler = setInterval(() => {
      const r = rssMiB(child.pid!);
      if (!rss.start && Date.now() >= warmUpEnd) rss.start = r;
      rss.peak = Math.max(rss.peak, r);
      rss.end = r;
    }, 1000);
    const worker = async (n: number) => {
      for (let i = 0; Date.now() < end; i++) {
        if (i % 10 === 9) {
          const key = `SOAK_${n}_${i}`;
          const made = await request(port, 'POST', `/api/environments/${env.id}/vars`, jwt, { key, value: 'x'.repeat(100) });
          count('POST var', made.status);
          if (made.body?.id) count('DELETE var', (await request(port, 'DELETE', `/api/vars/${made.body.id}`, jwt)).status);
        } else if (i % 10 === 5) {
          count('PATCH service', (await request(port, 'PATCH', `/api/services/${svc.id}`, jwt, { env: { GREETING: 'soak', N: String(i) } })).status);
        } else {
          const path = reads[i % reads.length];
          count(`GET ${path.replace(/[0-9a-f-]{36}/g, ':id')}`, (await request(port, 'GET', path, jwt)).status);
        }
      }
    };
    const deployer = async () => {
      for (let v = 2; Date.now() < end; v = v === 2 ? 1 : 2) {
        const res = await request(port, 'POST', `/api/services/${svc.id}/deploy?wait=true`, jwt, { imageTag: `v${v}`, strategy: 'rolling' });
        count('POST deploy', res.status);
        deploys++;
        const st = String(res.body?.status ?? 'none');
        plans.set(st, (plans.get(st) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, Math.min(DEPLOY_EVERY_S * 1000, Math.max(0, end - Date.now()))));
      }
    };
    await Promise.all([...Array.from({ length: CONCURRENCY }, (_, n) => worker(n)), deployer()]);
    clearInterval(sampler);
    rss.end = rssMiB(child.pid!);
    rss.start ||= rss.end;
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    const byStatus = new Map<number, number>();
    for (const [k, n] of statuses) {
      const st = Number(k.split(' ').at(-1));
      byStatus.set(st, (byStatus.get(st) ?? 0) + n);
    }
    console.log(`soak ${DURATION_S}s, ${CONCURRENCY} clients + 1 deployer: ${total} requests, ${deploys} deploys (${[...plans].map(([s, n]) => `${n} ${s}`).join(', ')})`);
    console.log(`RSS MiB: start ${rss.start} (after warm-up), peak ${rss.peak}, end ${rss.end}`);
    console.log(`answers by status: ${[...byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    const errors = [...statuses].filter(([k]) => Number(k.split(' ').at(-1)) >= 400 || k.endsWith(' 0'));
    if (errors.length) console.log(`errors: ${errors.map(([k, n]) => `${k} x${n}`).join('; ')}`);
  } finally {
    agent.destroy();
    await service.stop();
  }
}

await main();
