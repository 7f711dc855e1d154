// bench/ingress.ts - the ingress proxy on the fleet (docs/ingress.md): requests per second through
// the server's Caddy proxy next to the same requests straight to the container's published port on
// the same server (the ratio), and how long a deploy's switch takes from "the new container is
// healthy" to "the proxy routes to it" (the figure each switch logs), over a few deploys.
//   FLEET_ID=0 npx tsx bench/ingress.ts [rounds=3]     (DURATION_S=5, CONCURRENCY=16)
// The client is this machine (the fleet's servers share its cores): both paths pay the same
// client cost, so the ratio is the proxy's own.
import http from 'node:http';
import os from 'node:os';
import { addService, cleanup, startWorld, type World } from '../test/e2e/deploy/deploy-world.js';
import { serverExec } from '../test/fleet/fleet.js';
import { until } from '../test/support/until.js';
import { caddyImage, HOST } from '../test/e2e/ingress/ingress-world.js';

const rounds = Number(process.argv[2] ?? 3);
const durationMs = Number(process.env.DURATION_S ?? 5) * 1000;
const concurrency = Number(process.env.CONCURRENCY ?? 16);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Keep-alive clients asking for `durationMs`: requests per second and errors. */
async function load(ip: string, port: number, host?: string): Promise<{ rps: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let ok = 0;
  let errors = 0;
  const end = Date.now() + durationMs;
  const one = () => new Promise<void>((resolve) => {
    const req = http.request({ host: ip, port, path: '/', agent, headers: host ? { Host: host } : {} }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 200) ok++; else errors++; resolve(); });
    });
    req.on('error', () => { errors++; resolve(); });
    req.end();
  });
  await Promise.all(Array.from({ length: concurrency }, async () => { while (Date.now() < end) await one(); }));
  agent.destroy();
  return { rps: ok / (durationMs / 1000), errors };
}

let w: World | undefined;
try {
  w = await startWorld({ INGRESS_PROXY_IMAGE: await caddyImage() });
  const ip = w.fleet.servers.find((s) => s.name === 's1')!.host;
  const web = await addService(w, 'web', { servers: ['s1'] });
  await w.admin.patch(`/api/services/${web.service.id}`, { ports: ['80'], drainSec: 1, ingress: { hosts: [HOST], port: 80, tls: 'off' } });
  const first = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, {});
  if (first.body.status !== 'succeeded') throw new Error(`first deploy ${first.body.status}`);
  const container = web.deployments[0].containerName;
  const direct = async () => Number((await serverExec('s1', ['docker', 'port', container, '80/tcp'])).trim().split('\n')[0]!.split(':').at(-1));
  await until('the proxy routing', async () => (await load(ip, 80, HOST).catch(() => ({ rps: 0, errors: 1 }))).rps > 0, { timeoutMs: 60_000, everyMs: 500 });

  console.log(`requests/s, ${concurrency} keep-alive clients for ${durationMs / 1000} s each, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const port = await direct();
    const straight = await load(ip, port);
    const proxied = await load(ip, 80, HOST);
    ratios.push(proxied.rps / straight.rps);
    console.log(`  round ${i + 1}: straight to :${port} ${straight.rps.toFixed(0)}/s (${straight.errors} errors), through the proxy ${proxied.rps.toFixed(0)}/s (${proxied.errors} errors), ratio ${(proxied.rps / straight.rps).toFixed(2)}`);
  }
  console.log(`proxy / straight, median of ${rounds}: ${median(ratios).toFixed(2)}`);

  const switches: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: i % 2 ? 'v1' : 'v2' });
    const log = (res.body.steps ?? []).map((s: { log: string }) => s.log).join('\n');
    const ms = Number(log.match(/route switched (\d+) ms after healthy/)?.[1] ?? NaN);
    switches.push(ms);
    console.log(`  deploy ${i + 1} (${res.body.status}): healthy → route switched in ${ms} ms`);
  }
  console.log(`healthy → route switched, median of ${rounds}: ${median(switches)} ms`);
} finally {
  await serverExec('s1', ['docker', 'rm', '-f', 'stevedore-proxy']).catch(() => undefined);
  await cleanup(w);
}
