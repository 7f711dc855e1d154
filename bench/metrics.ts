// bench/metrics.ts - the cost of metrics storage and collection:
//   (1) ingest: CPU (this process + the PostgreSQL backend) to store one cycle of SERVERS (1000)
//       servers' samples, each with 5 containers, in one insert; as % of one core at a 60 s cycle
//       (goal: under 20 %);
//   (2) ssh: controller CPU of one ssh collection (one batched read + parse) against the test
//       fleet, repeated SSH_READS times over its three servers, scaled to 1000 servers
//       (skipped without a fleet: FLEET_ID unset or SKIP_SSH=1);
//   (3) history: the store filled with SERVERS servers x DAYS (7) days at one sample a minute,
//       then a 7-day history of one server at 1-minute resolution (goal: under 100 ms), from the
//       repository to the JSON text the route sends.
//   DATABASE_URL=postgres://postgres@127.0.0.1:25444/postgres [FLEET_ID=4] npx tsx bench/metrics.ts
// The fill is done in SQL (generate_series), one day's partition at a time.
import { readFileSync } from 'node:fs';
import { createKnex } from '../controller/store/knex.js';
import { ServerSamplesRepository } from '../controller/store/repositories/server-samples.js';
import { columnarJson, stepFor } from '../controller/monitoring/history.js';
import { togglesOf } from '../controller/monitoring/metrics-toggles.js';
import { SshCollector } from '../controller/monitoring/ssh-collector.js';
import { mapLimit } from '../controller/servers/health.js';
import type { ServerSample } from '../controller/monitoring/server-sample.js';
import { createTestDatabase, dropTestDatabases } from '../test/support/test-database.js';

const SERVERS = Number(process.env.SERVERS ?? 1000);
const DAYS = Number(process.env.DAYS ?? 7);
const SSH_READS = Number(process.env.SSH_READS ?? 150);
const DAY = 86_400_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const uuidOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const ticks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ms (USER_HZ 100)
};
const nodeCpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

function cycle(at: Date): ServerSample[] {
  return Array.from({ length: SERVERS }, (_, i) => ({
    serverId: uuidOf(i), at, source: 'agent' as const, cpuPercent: Math.random() * 100,
    memoryUsedBytes: 2e9 + i, memoryTotalBytes: 8e9, swapUsedBytes: 0, swapTotalBytes: 2e9, diskUsedBytes: 4e10, diskTotalBytes: 1e11,
    load1: 0.5, load5: 0.4, load15: 0.3, openFds: 2000, tcpConnections: 40, processes: 180,
    containers: Array.from({ length: 5 }, (_, c) => ({ name: `svc-${c}`, cpuPercent: 1.5, memoryUsedBytes: 1e8, memoryLimitBytes: 1e9 })),
  }));
}

async function ingest(url: string) {
  const db = createKnex(url, 1);
  const repo = new ServerSamplesRepository(db);
  const { rows: [{ pid }] } = await db.raw('select pg_backend_pid() as pid');
  await repo.partitions.ensure(new Date(), 1);
  for (let i = 0; i < 3; i++) await repo.insertServerSamples(cycle(new Date(Date.now() - (i + 1) * 1000))); // warm-up
  const runs: Array<{ node: number; pg: number; wall: number }> = [];
  for (let i = 0; i < 10; i++) {
    const n0 = nodeCpuMs(), p0 = ticks(pid), w0 = performance.now();
    await repo.insertServerSamples(cycle(new Date(Date.now() - 10_000 - i * 1000)));
    runs.push({ node: nodeCpuMs() - n0, pg: ticks(pid) - p0, wall: performance.now() - w0 });
  }
  await db.destroy();
  const node = median(runs.map((r) => r.node)), pg = median(runs.map((r) => r.pg)), wall = median(runs.map((r) => r.wall));
  console.log(`ingest: one cycle of ${SERVERS} samples (5 containers each), median of 10: wall ${wall.toFixed(0)} ms, `
    + `CPU ${node.toFixed(0)} ms controller + ${pg.toFixed(0)} ms PostgreSQL = ${((node + pg) / 600).toFixed(2)} % of one core at a 60 s cycle`);
}

async function ssh() {
  if (!process.env.FLEET_ID || process.env.SKIP_SSH === '1') { console.log('ssh: skipped (no FLEET_ID)'); return; }
  const { startTestService } = await import('../test/support/test-service.js');
  const { bootstrapAdmin, createEnvironment } = await import('../test/support/fixtures.js');
  const { loadFleet, privateKeyOf } = await import('../test/fleet/fleet.js');
  const fleet = loadFleet();
  const svc = await startTestService({ SCHEDULER_METRICS_SEC: '86400', SCHEDULER_HEALTH_CHECK_SEC: '86400', LOG_LEVEL: 'warn' });
  try {
    const admin = await bootstrapAdmin(svc.http);
    const envId = (await createEnvironment(admin)).id;
    await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) });
    const ids: string[] = [];
    for (const f of fleet.servers) {
      ids.push((await admin.post(`/api/environments/${envId}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user })).body.id);
    }
    const collector = new SshCollector(svc.services.hosts);
    const toggles = togglesOf(undefined);
    for (const id of ids) await collector.collect({ id }, toggles, 30_000); // connect, docker root
    const reads = Array.from({ length: SSH_READS }, (_, i) => ids[i % ids.length]!);
    const n0 = nodeCpuMs(), w0 = performance.now();
    let failed = 0;
    await mapLimit(reads, 16, (id) => collector.collect({ id }, toggles, 30_000).catch(() => { failed++; }));
    const cpu = nodeCpuMs() - n0, wall = performance.now() - w0;
    const per = cpu / SSH_READS;
    // the transport's share: the same number of `true` over the same connections
    const b0 = nodeCpuMs();
    await mapLimit(reads, 16, (id) => svc.services.hosts.exec(id, ['true'], { timeoutMs: 30_000 }).catch(() => undefined));
    const bare = (nodeCpuMs() - b0) / SSH_READS;
    console.log(`ssh: a bare exec (\`true\`) over the same pooled connections costs ${bare.toFixed(2)} ms controller CPU`);
    console.log(`ssh: ${SSH_READS} collections over ${ids.length} fleet servers (${failed} failed) in ${(wall / 1000).toFixed(1)} s wall: `
      + `${per.toFixed(2)} ms controller CPU each -> 1000 servers ${(per * 1000).toFixed(0)} ms = ${(per * 1000 / 600).toFixed(2)} % of one core at a 60 s cycle`);
  } finally {
    await svc.stop();
  }
}

async function history(url: string) {
  const db = createKnex(url, 1); // one connection: its backend is the one whose CPU is measured
  const repo = new ServerSamplesRepository(db);
  const end = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  const start = new Date(end.getTime() - DAYS * DAY);
  await repo.partitions.ensure(start, DAYS + 1);
  const t0 = performance.now();
  for (let d = 0; d < DAYS + 1; d++) {
    const from = new Date(Math.max(start.getTime(), Math.floor(start.getTime() / DAY) * DAY + d * DAY));
    const to = new Date(Math.min(end.getTime(), Math.floor(start.getTime() / DAY) * DAY + (d + 1) * DAY));
    if (from >= to) continue;
    await db.raw(`
      INSERT INTO server_samples (server_id, at, source, cpu_percent, memory_used_bytes, memory_total_bytes, disk_used_bytes,
        disk_total_bytes, load1, load5, load15, open_fds, tcp_connections, processes)
      SELECT ('00000000-0000-4000-8000-' || lpad(s::text, 12, '0'))::uuid, t, 'agent', random() * 100, 2e9, 8e9, 4e10, 1e11,
        0.5, 0.4, 0.3, 2000, 40, 180
      FROM generate_series(?::timestamptz, ?::timestamptz - interval '1 second', interval '1 minute') t
      CROSS JOIN generate_series(0, ? - 1) s`, [from.toISOString(), to.toISOString(), SERVERS]);
  }
  // what the partitions pass does for finished days, and autovacuum (insert threshold) for today
  await repo.partitions.vacuumPast(end);
  await db.raw('VACUUM (ANALYZE) server_samples');
  const { rows: [{ n }] } = await db.raw('select count(*)::bigint as n from server_samples');
  const { rows: [{ size }] } = await db.raw(`select pg_size_pretty(sum(pg_total_relation_size(inhrelid))) as size from pg_inherits where inhparent = 'server_samples'::regclass`);
  console.log(`history: filled ${n} samples (${SERVERS} servers x ${DAYS} days, 1/min, ${size}) in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const times: number[] = [];
  const cpu: number[] = [];
  const pgCpu: number[] = [];
  const { rows: [{ pid }] } = await db.raw('select pg_backend_pid() as pid');
  let points = 0;
  for (let i = 0; i < 11; i++) {
    const server = uuidOf((i * 97) % SERVERS);
    const n0 = nodeCpuMs(), p0 = ticks(pid), w0 = performance.now();
    const stepSec = stepFor(start, end, 60);
    const body = columnarJson(start, end, stepSec, await repo.history({ serverIds: [server], from: start, to: end, stepSec }));
    times.push(performance.now() - w0);
    cpu.push(nodeCpuMs() - n0 + ticks(pid) - p0);
    pgCpu.push(ticks(pid) - p0);
    points = JSON.parse(body).timestamps.length;
  }
  console.log(`history: 7 days of one server at 1-minute resolution (${points} points): median ${median(times.slice(1)).toFixed(0)} ms, `
    + `max ${Math.max(...times.slice(1)).toFixed(0)} ms (first, cold: ${times[0]!.toFixed(0)} ms), repository to the JSON text the route sends; `
    + `CPU per query (controller + PostgreSQL backend) median ${median(cpu.slice(1)).toFixed(0)} ms `
    + `(backend ${median(pgCpu.slice(1)).toFixed(0)} ms); load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
  await db.destroy();
}

const url = await createTestDatabase();
try {
  if (process.env.SKIP_INGEST !== '1') await ingest(url);
  await ssh();
  if (process.env.SKIP_HISTORY !== '1') await history(url);
} finally {
  await dropTestDatabases();
}
process.exit(0);
