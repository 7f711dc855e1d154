/**
 * bench/images.ts - the update check of 200 images against a local registry: the real service
 * (child process, fresh database of the PostgreSQL at DATABASE_URL) and a real docker-registry on
 * loopback holding 200 repositories with two tags each. Times POST /api/registries/{id}/check-updates
 * (every image: tags, digests, status, bounded concurrency) and prints the figure. Goal: < 2 s.
 * Then one more round through a counting proxy in front of the registry (requests per image by
 * kind, TCP connections opened, most requests in flight) with the database's transactions
 * counted (pg_stat_database), to see what a check costs besides the clock.
 *   DATABASE_URL=postgres://… npx tsx bench/images.ts   (IMAGES=200 ROUNDS=3; SERVICE_NODE_ARGS=--cpu-prof profiles the service)
 */
import knexFactory from 'knex';
import { startCountingProxy } from './support/counting-proxy.js';
import { startServiceProcess } from './support/service-process.js';
import { startLocalRegistry } from '../test/support/local-registry.js';
import { mapBounded } from '../controller/images/map-bounded.js';

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL the benchmark may create a database in');
const IMAGES = Number(process.env.IMAGES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

async function main() {
  const [reg, service] = await Promise.all([startLocalRegistry(), startServiceProcess({ adminUrl: adminUrl!, prefix: 'stevedore_bench_images', nodeArgs: process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) })]);
  try {
    const base = `http://127.0.0.1:${service.port}`;
    let token = '';
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = await res.json().catch(() => null) as any;
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    await call('POST', '/api/auth/register', { email: 'bench@example.test', password: 'bench-password' });
    token = (await call('POST', '/api/auth/login', { email: 'bench@example.test', password: 'bench-password' })).token;
    const env = await call('POST', '/api/environments', { name: 'bench-images' });
    const registry = await call('POST', `/api/environments/${env.id}/registries`, { name: 'local', type: 'generic', registryUrl: reg.url });
    const names = Array.from({ length: IMAGES }, (_, i) => `bench/app-${i}`);
    await mapBounded(names, 8, async (repo) => {
      await reg.push(repo, '1.0.0');
      await reg.push(repo, '1.1.0');
      await call('POST', `/api/environments/${env.id}/container-images`, { imageName: `${reg.host}/${repo}`, registryConnectionId: registry.id });
    });
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      const out = await call('POST', `/api/registries/${registry.id}/check-updates`);
      times.push(performance.now() - t0);
      if (out.checked !== IMAGES || out.failed !== 0 || out.updatesAvailable !== IMAGES) throw new Error(`unexpected result: ${JSON.stringify({ ...out, items: undefined })}`);
    }
    const best = Math.min(...times);
    console.log(`update check of ${IMAGES} images (tags + digests, concurrency 16): ${times.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')}; best ${(best / 1000).toFixed(2)} s (goal < 2 s)`);

    // what one round costs: registry requests and connections through the proxy, database transactions
    const proxy = await startCountingProxy(reg.url);
    const stats = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
    try {
      await call('PATCH', `/api/registries/${registry.id}`, { registryUrl: proxy.url });
      await call('POST', `/api/registries/${registry.id}/check-updates`); // a new client for the changed row: its first requests
      proxy.reset();
      const commits = async () => {
        await new Promise((r) => setTimeout(r, 1200)); // statistics reach pg_stat_database within a second
        await stats.raw('select pg_stat_clear_snapshot()');
        const { rows } = await stats.raw('select xact_commit from pg_stat_database where datname = ?', [service.database]);
        return Number(rows[0].xact_commit);
      };
      const before = await commits();
      const t0 = performance.now();
      await call('POST', `/api/registries/${registry.id}/check-updates`);
      const proxied = performance.now() - t0;
      const xacts = (await commits()) - before;
      const c = proxy.counts();
      const per = Object.entries(c.requests).map(([k, n]) => `${k} ${(n / IMAGES).toFixed(2)}`).join(', ');
      console.log(`per image: registry requests ${per}; database transactions ${(xacts / IMAGES).toFixed(1)}; `
        + `${c.connections} registry connections for ${Object.values(c.requests).reduce((a, b) => a + b, 0)} requests, `
        + `at most ${c.maxInFlight} in flight (round through the proxy: ${(proxied / 1000).toFixed(2)} s)`);
    } finally {
      await stats.destroy();
      await proxy.stop();
    }
  } finally {
    await service.stop();
    await reg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
