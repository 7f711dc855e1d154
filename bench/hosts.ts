// bench/hosts.ts - health-check the test fleet through the ssh pool.
//   FLEET_ID=0 npx tsx bench/hosts.ts [seconds=5]
// Prints health checks per second (exec + Docker ping per check, all servers in parallel) and the
// median latency of `exec true` on a reused pooled connection vs on a fresh connection.
import { DockerClients } from '../controller/hosts/docker-client.js';
import { SshDriver } from '../controller/hosts/ssh-driver.js';
import { SshPool } from '../controller/hosts/ssh-pool.js';
import { loadFleet, privateKeyOf, toHostServer, type FleetServer } from '../test/fleet/fleet.js';

const seconds = Number(process.argv[2] ?? 5);
const fleet = loadFleet();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

function poolFor(servers: FleetServer[]): SshPool {
  const pool = new SshPool();
  for (const s of servers) pool.register(toHostServer(s), privateKeyOf(s));
  return pool;
}

async function healthChecksPerSecond(): Promise<{ perSecond: number; checks: number }> {
  const pool = poolFor(fleet.servers);
  const driver = new SshDriver(pool);
  const docker = new DockerClients(pool);
  const check = (id: string) => Promise.all([driver.exec(id, ['true']), docker.for(id).ping()]);
  await Promise.all(fleet.servers.map((s) => check(s.name))); // connect outside the measurement
  let checks = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(fleet.servers.map(async (s) => {
    while (performance.now() < end) { await check(s.name); checks++; }
  }));
  await pool.close();
  return { perSecond: checks / seconds, checks };
}

async function reusedLatency(s: FleetServer, n: number): Promise<number[]> {
  const pool = poolFor([s]);
  const driver = new SshDriver(pool);
  await driver.exec(s.name, ['true']);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await driver.exec(s.name, ['true']);
    out.push(performance.now() - t);
  }
  await pool.close();
  return out;
}

async function freshLatency(s: FleetServer, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const pool = poolFor([s]);
    const t = performance.now();
    await new SshDriver(pool).exec(s.name, ['true']);
    out.push(performance.now() - t);
    await pool.close();
  }
  return out;
}

const hc = await healthChecksPerSecond();
console.log(`health checks (exec true + docker ping) on ${fleet.servers.length} servers for ${seconds}s: ${hc.checks} checks, ${hc.perSecond.toFixed(0)} checks/s`);
const reused: number[] = [];
const fresh: number[] = [];
for (const s of fleet.servers) {
  reused.push(...await reusedLatency(s, 100));
  fresh.push(...await freshLatency(s, 10));
}
const r = median(reused);
const f = median(fresh);
console.log(`exec true, reused connection: median ${fmt(r)} (n=${reused.length})`);
console.log(`exec true, fresh connection:  median ${fmt(f)} (n=${fresh.length})`);
console.log(`speed-up: ${(f / r).toFixed(1)}x  target: reused < 20 ms and >= 10x -> ${r < 20 && f / r >= 10 ? 'OK' : 'MISSED'}`);
process.exit(r < 20 && f / r >= 10 ? 0 : 1);
