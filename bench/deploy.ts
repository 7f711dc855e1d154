// bench/deploy.ts - deploy one small service (the fleet's web image) through the API to 1 and then
// 3 fleet servers, and side by side by hand: ssh + `docker compose up -d` (or docker-compose) on
// each server, sequentially. Prints medians and the ratios.
//   DATABASE_URL=postgres://... FLEET_ID=0 npx tsx bench/deploy.ts [rounds=3]
// The API deploy does more than the hand one: it pulls, writes the compose and env files, records
// every step, and waits until Docker reports the container healthy. So the hand deploy is timed
// twice: `up -d` alone, and `up -d` followed by waiting for healthy (polled over the same ssh).
// The floor of the 3-server parallel ratio is the same ratio by hand: three hand deploys (+ wait
// healthy) at once against one, in the same run. The test fleet's three servers share this
// machine's cores, so three of anything at once cost more than one; each timed line also says how
// busy the machine's CPUs were meanwhile (/proc/stat).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { addService, cleanup, startWorld, type World } from '../test/e2e/deploy/deploy-world.js';
import { serverExec } from '../test/fleet/fleet.js';
import { dropTestDatabases } from '../test/support/test-database.js';

const run = promisify(execFile);
const rounds = Number(process.argv[2] ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

/** Busy and total jiffies of all the machine's CPUs so far (iowait counts as idle). */
function cpuJiffies(): { busy: number; total: number } {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

/** Times fn and prints the figure at once (a run cut short still says what it measured), with how busy the CPUs were. */
async function time(label: string, fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  const before = cpuJiffies();
  await fn();
  const ms = performance.now() - t;
  const after = cpuJiffies();
  const busy = (after.busy - before.busy) / Math.max(1, after.total - before.total);
  console.log(`  ${label}: ${s(ms)}; CPUs ${(busy * 100).toFixed(0)} % busy`);
  return ms;
}

const ssh = (w: World, server: string, line: string) =>
  run('ssh', ['-F', `${w.fleet.root}/ssh_config`, server, line], { maxBuffer: 1 << 20 });
const composeCli = 'if docker compose version >/dev/null 2>&1; then docker compose "$@"; else docker-compose "$@"; fi';

async function handSetup(w: World, server: string, name: string) {
  const dir = `/srv/bench-hand/${name}`;
  const yml = `services:\n  ${name}:\n    image: ${w.fleet.images.webV1}\n    container_name: ${name}\n    restart: unless-stopped\n`;
  await serverExec(server, ['sh', '-c', `mkdir -p ${dir} && printf '%s' '${yml}' > ${dir}/docker-compose.yml`]);
}

/** By hand: ssh in, point the file at the tag, compose up -d; optionally wait for healthy. */
async function handDeploy(w: World, server: string, name: string, tag: string, waitHealthy: boolean) {
  const dir = `/srv/bench-hand/${name}`;
  const wait = waitHealthy ? ` && until [ "$(docker inspect -f '{{.State.Health.Status}}' ${name})" = healthy ]; do sleep 0.2; done` : '';
  await ssh(w, server, `cd ${dir} && sed -i 's#web:v[0-9]#web:${tag}#' docker-compose.yml && sh -c '${composeCli}' _ up -d${wait}`);
}

async function main() {
  console.log(`load average at start ${load()}`);
  const w = await startWorld({ LOG_LEVEL: 'warn' });
  try {
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: true });
    const one = await addService(w, 'bench1', { servers: ['s1'] });
    const three = await addService(w, 'bench3', { servers: ['s1', 's2', 's3'] });
    const names = ['s1', 's2', 's3'];
    // one hand container per server (a few: the web image's 1 s health check costs a runc exec
    // per container per second); every timed deploy, by hand or through the API, flips its
    // container's or service's tag, so none is a no-op (the same tag twice would be)
    const hand = (n: string) => `hand-${w.tag}-${n}`;
    const current = new Map<string, string>();
    const flip = (n: string) => {
      const next = current.get(n) === 'v2' ? 'v1' : 'v2';
      current.set(n, next);
      return next;
    };
    for (const n of names) await handSetup(w, n, hand(n));
    /** An API deploy that must succeed (a failed one would time nothing worth comparing). */
    const deployed = async (serviceId: string, body: Record<string, unknown>) => {
      const res = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, body);
      if (res.body.status !== 'succeeded') throw new Error(`api deploy ${res.body.status}`);
    };
    // warm-up: every image pulled on every server, compose detected, connections open
    console.log('warming up (every image on every server, connections open) ...');
    for (const tag of ['v2', 'v1']) {
      await w.admin.post(`/api/services/${one.service.id}/deploy?wait=true`, { imageTag: tag });
      await w.admin.post(`/api/services/${three.service.id}/deploy?wait=true`, { imageTag: tag, strategy: 'parallel' });
      current.set('api1', tag).set('api3', tag);
      for (const n of names) {
        current.set(n, tag);
        await handDeploy(w, n, hand(n), tag, true);
      }
    }
    const r = { api1: [] as number[], api3: [] as number[], api3rolling: [] as number[], hand1: [] as number[], hand3: [] as number[], hand1h: [] as number[], hand3h: [] as number[], hand3hp: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      for (let twice = 0; twice < 2; twice++) {
        r.api1.push(await time('API, 1 server', () => deployed(one.service.id, { imageTag: flip('api1') })));
        r.api3.push(await time('API, 3 servers (parallel)', () => deployed(three.service.id, { imageTag: flip('api3'), strategy: 'parallel' })));
        r.hand1.push(await time('hand, 1 server', () => handDeploy(w, 's1', hand('s1'), flip('s1'), false)));
        r.hand3.push(await time('hand, 3 servers', async () => { for (const n of names) await handDeploy(w, n, hand(n), flip(n), false); }));
        r.hand1h.push(await time('hand + healthy, 1 server', () => handDeploy(w, 's1', hand('s1'), flip('s1'), true)));
        r.hand3h.push(await time('hand + healthy, 3 servers', async () => { for (const n of names) await handDeploy(w, n, hand(n), flip(n), true); }));
        r.hand3hp.push(await time('hand + healthy, 3 servers at once', () => Promise.all(names.map((n) => handDeploy(w, n, hand(n), flip(n), true)))));
      }
      r.api3rolling.push(await time('API, 3 servers (rolling)', () => deployed(three.service.id, { imageTag: flip('api3'), strategy: 'rolling' })));
    }
    const m = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, median(v)])) as Record<keyof typeof r, number>;
    console.log(`deploy of one small service (median of ${rounds * 2} runs, rolling: ${rounds}); load average ${load()}`);
    console.log(`  API, 1 server:                         ${s(m.api1)}`);
    console.log(`  API, 3 servers (parallel):             ${s(m.api3)}   ratio to 1 server ${(m.api3 / m.api1).toFixed(2)}x (goal <= 1.3x)`);
    console.log(`  API, 3 servers (rolling):              ${s(m.api3rolling)}   ratio to 1 server ${(m.api3rolling / m.api1).toFixed(2)}x`);
    console.log(`  hand, 1 server (ssh + compose up -d):  ${s(m.hand1)}   API/hand ${(m.api1 / m.hand1).toFixed(2)}x`);
    console.log(`  hand, 3 servers sequential:            ${s(m.hand3)}   API/hand ${(m.api3 / m.hand3).toFixed(2)}x`);
    console.log(`  hand + wait healthy, 1 server:         ${s(m.hand1h)}   API/hand ${(m.api1 / m.hand1h).toFixed(2)}x (goal <= 1.1x)`);
    console.log(`  hand + wait healthy, 3 servers:        ${s(m.hand3h)}   API/hand ${(m.api3 / m.hand3h).toFixed(2)}x`);
    console.log(`  hand + wait healthy, 3 servers at once: ${s(m.hand3hp)}   ratio to 1 server ${(m.hand3hp / m.hand1h).toFixed(2)}x: this machine's floor for the API's ${(m.api3 / m.api1).toFixed(2)}x`);
  } finally {
    for (const n of ['s1', 's2', 's3']) {
      await serverExec(n, ['sh', '-c', `for d in /srv/bench-hand/*-${w.tag}-${n}; do (cd "$d" && (docker compose down 2>/dev/null || docker-compose down)); rm -rf "$d"; done`]).catch(() => undefined);
    }
    await cleanup(w);
    await dropTestDatabases();
  }
}

await main();
process.exit(0);
