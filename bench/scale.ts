// bench/scale.ts - the controller with SERVERS servers and SERVICES services (one deployment each)
// in the store: its RSS, and the time of a full resync of the deployment reconciler.
//   DATABASE_URL=postgres://... npx tsx bench/scale.ts
//   SERVERS=1000 SERVICES=10000 ENVIRONMENTS=10 DRIFTED_EVERY=100 RESYNC_SEC=60 ANALYZE=1
// The controller is the real service (`bin/stevedore.js serve`, as `npm start` runs it) on a store
// seeded through the repositories. THE ONE THING SIMULATED is the observation source, what the
// servers report: every server is a socket-mode server whose Docker socket is a simulated Docker
// Engine API in this process (bench/support/simulated-docker.ts), answering each inspect with the
// container the deployment wants (every DRIFTED_EVERY-th one stopped: drift). The controller's
// Docker client, reconciler, queue, store and PostgreSQL are the real ones.
// Cycle 1 is the resync a new leader runs at start (first look: every deployment's conditions are
// written); cycle 2 the periodic resync (SCHEDULER_DRIFT_CHECK_SEC=RESYNC_SEC) once cycle 1 is
// over: the steady state. A cycle runs from the first inspect it causes to the last container
// inspected. The other periodic jobs (server health, metrics) are set to a day: they are not
// the reconciler. Floors measured in the same run: the RSS of the same service idle on an empty
// store; for the cycle, this process inspecting every container through dockerode against the
// same simulated socket, 8 at a time (the work queue's concurrency), and reading its row; for the
// API's latency during a cycle, the same reads while nothing is reconciled (IDLE_SEC after cycle 1
// settled, before cycle 2): GET /api/services/{id} and …/deployments of seeded services, at
// PROBE_RATE requests a second from a process of its own (bench/support/api-probe.ts).
// Cost per container: the controller's CPU time (user + system, /proc) and database transactions
// of a cycle divided by the containers it looked at.
import { shortSyntaxOf } from '../controller/model/volume-mount.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import Docker from 'dockerode';
import { createKnex, sequentialRowsRead, transactionsCommitted } from '../controller/store/knex.js';
import { DeploymentsRepository } from '../controller/store/repositories/deployments.js';
import { hashKeyOf } from '../controller/config-files/config-store.js';
import { renderDesired } from '../reconcilers/deployment/desired.js';
import { createTestDatabase, dropTestDatabases } from '../test/support/test-database.js';
import { seedStore, type SeededDeployment } from './support/seed-store.js';
import { startServiceProcess } from './support/service-process.js';
import { startSimulatedDocker } from './support/simulated-docker.js';
import { startApiProbe, type LatencySummary } from './support/api-probe.js';
import { cpuSeconds } from './support/process-stats.js';

const SERVERS = Number(process.env.SERVERS ?? 1000);
const SERVICES = Number(process.env.SERVICES ?? 10_000);
const ENVIRONMENTS = Number(process.env.ENVIRONMENTS ?? 10);
const DRIFTED_EVERY = Number(process.env.DRIFTED_EVERY ?? 100);
const RESYNC_SEC = Number(process.env.RESYNC_SEC ?? 60);
/** CYCLES=1 stops after the start-up resync (cycle 1): a big store's run in minutes. */
const CYCLES = Number(process.env.CYCLES ?? 2);
/** ANALYZE=0: no statistics after the seed (a store filled in one go, before autovacuum's first ANALYZE). */
const ANALYZE = process.env.ANALYZE !== '0';
const IDLE_SEC = Number(process.env.IDLE_SEC ?? 15);
const PROBE_RATE = Number(process.env.PROBE_RATE ?? 50);
/** TIMELINE=1 prints, every 2 s, inspects answered, CPU of the controller and of this process, reconciles by kind, queue depth. */
const TIMELINE = process.env.TIMELINE === '1';
const QUEUE_CONCURRENCY = 8;
const adminUrl = process.env.DATABASE_URL ?? (() => { throw new Error('DATABASE_URL is not set'); })();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
/** A performance.now() time of this process as wall-clock ms (the API probe's clock). */
const wall = (t: number) => performance.timeOrigin + t;
// the probe's summary crosses a process as JSON: a window with no answered request has null (NaN) figures
const latency = (l: LatencySummary) => (l.p99Ms == null ? `no request answered (${l.count} requests)` : `p50 ${l.p50Ms.toFixed(1)} ms, p99 ${l.p99Ms.toFixed(1)} ms, max ${l.maxMs.toFixed(0)} ms (${l.count} requests${l.errors ? `, ${l.errors} failed` : ''})`);
/** The tables most read by sequential scans between two readings, in rows per container. */
const scans = (a: Map<string, number>, b: Map<string, number>, n: number) => [...b].map(([t, rows]) => [t, (rows - (a.get(t) ?? 0)) / n] as const)
  .filter(([, r]) => r > 0).sort((x, y) => y[1] - x[1]).slice(0, 4).map(([t, r]) => `${t} ${r.toFixed(1)}`).join(', ') || 'none';
const perContainer = (cpuSec: number, n: number) => `${((cpuSec / n) * 1e6).toFixed(0)} µs of controller CPU per container`;

async function call(port: number, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** VmRSS and VmHWM (peak) of a process, in kB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Docker's inspect document of the container a seeded deployment wants (running, or stopped). */
function inspectDocument(x: SeededDeployment, hashKey: Buffer, running: boolean): object {
  const d = renderDesired({
    service: { ...x.service, volumes: shortSyntaxOf(x.service.volumes) }, deployment: x.deployment, serverName: x.serverName, imageName: x.imageName, imageTag: x.deployment.imageTag!,
    mode: 'direct', sources: { vars: {}, secrets: {} }, files: [], hashKey,
  });
  return {
    Id: crypto.createHash('sha256').update(x.deployment.id).digest('hex'), Name: `/${d.containerName}`, Image: `sha256:${'a'.repeat(64)}`,
    RestartCount: 0, Mounts: [],
    Config: { Image: d.image, Labels: d.labels, Env: Object.entries(d.env ?? {}).map(([k, v]) => `${k}=${v}`), Cmd: d.command },
    HostConfig: { PortBindings: {}, RestartPolicy: { Name: d.restart ?? '' } },
    State: { Running: running, Status: running ? 'running' : 'exited', StartedAt: '2026-11-26T00:00:00Z' },
  };
}

/** The RSS of the service idle on an empty store (the floor of the RSS figure). */
async function idleRss(): Promise<number> {
  const svc = await startServiceProcess({ adminUrl, prefix: 'bench_scale_idle', startTimeoutMs: 300_000 });
  try {
    await sleep(3000);
    return memoryOf(svc.child.pid!).rss;
  } finally {
    await svc.stop();
  }
}

async function main() {
  console.log(`scale bench: ${SERVERS} servers, ${SERVICES} services in ${ENVIRONMENTS} environments; load average ${load()}`);
  const floorRss = await idleRss();
  const url = await createTestDatabase();
  const db = createKnex(url, 4);
  const secretsKey = crypto.randomBytes(32);
  const socketPath = `${os.tmpdir()}/stevedore-scale-${process.pid}.sock`;
  let t = performance.now();
  const seeded = await seedStore(db, { environments: ENVIRONMENTS, servers: SERVERS, services: SERVICES, dockerSocketPath: socketPath });
  console.log(`seeded in ${sec(performance.now() - t)}`);
  if (ANALYZE) {
    // a store that grew to this size over weeks has statistics; one filled in one go has none
    // until autovacuum's first ANALYZE (30-60 s), and is planned with sequential scans until then
    t = performance.now();
    await db.raw('ANALYZE');
    console.log(`analyzed in ${sec(performance.now() - t)} (ANALYZE=0: measure the store before its first statistics)`);
  }
  const hashKey = hashKeyOf(secretsKey);
  const documents = new Map(seeded.map((x, n) => [x.deployment.containerName, inspectDocument(x, hashKey, n % DRIFTED_EVERY !== 0)]));
  // what the simulated servers were asked: inspects per container and when
  const seen = new Map<string, number>();
  const times: number[] = [];
  // cycle 2: the inspects of each container before it, and how many containers were inspected since
  let before: Map<string, number> | null = null;
  let inspectedAgain = 0;
  // Docker answers an inspect by name or by id
  const nameOfId = new Map([...documents].map(([name, doc]) => [(doc as { Id: string }).Id, name]));
  const docker = await startSimulatedDocker(socketPath, (nameOrId) => {
    const name = nameOfId.get(nameOrId) ?? nameOrId;
    const doc = documents.get(name) ?? null;
    if (doc) {
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      times.push(performance.now());
      // counted as they come: a scan of every container per poll would grow with the square of the fleet
      if (before && n === before.get(name)! + 1) inspectedAgain++;
    }
    return doc;
  });
  const deployments = new DeploymentsRepository(db);
  const svc = await startServiceProcess({
    adminUrl, prefix: 'bench_scale', databaseUrl: url, startTimeoutMs: 600_000,
    env: {
      SECRETS_KEY: secretsKey.toString('base64'), SCHEDULER_DRIFT_CHECK_SEC: String(RESYNC_SEC),
      SCHEDULER_HEALTH_CHECK_SEC: '86400', SCHEDULER_METRICS_SEC: '86400',
    },
  });
  const pid = svc.child.pid!;
  let peakSampled = 0;
  let peakAt = '';
  const started = performance.now();
  const sampler = setInterval(() => {
    const rss = memoryOf(pid).rss;
    // when the peak came: how long after start, how many inspects answered by then
    if (rss > peakSampled) peakAt = `${sec(performance.now() - started)} after start, after ${times.length} inspects`;
    peakSampled = Math.max(peakSampled, rss);
  }, 250);
  let last = { at: performance.now(), inspects: 0, cpu: cpuSeconds(pid), own: process.cpuUsage() };
  const timeline = TIMELINE ? setInterval(() => void (async () => {
    const metrics = await fetch(`http://127.0.0.1:${svc.port}/metrics`).then((r) => r.text(), () => '');
    const done = [...metrics.matchAll(/^stevedore_reconcile_duration_seconds_count\{kind="([^"]+)",result="([^"]+)"\} (\d+)/gm)].map((m) => `${m[1]}:${m[2]}=${m[3]}`).join(' ');
    const depth = [...metrics.matchAll(/^stevedore_work_queue_depth\{state="([^"]+)"\} (\d+)/gm)].map((m) => `${m[1]}=${m[2]}`).join(' ');
    const now = { at: performance.now(), inspects: times.length, cpu: cpuSeconds(pid), own: process.cpuUsage() };
    const s = (now.at - last.at) / 1000;
    const own = (now.own.user + now.own.system - last.own.user - last.own.system) / 1e6;
    console.log(`  t=${sec(now.at - started)} inspects/s ${((now.inspects - last.inspects) / s).toFixed(0)}, controller CPU ${(100 * (now.cpu - last.cpu) / s).toFixed(0)}%, `
      + `bench CPU ${(100 * own / s).toFixed(0)}%, queue ${depth}, reconciles ${done}`);
    last = now;
  })(), 2000) : null;
  let probe: Awaited<ReturnType<typeof startApiProbe>> | null = null;
  try {
    // the API's readers: an admin's token, and reads of services spread over the store
    await call(svc.port, 'POST', '/api/auth/register', undefined, { email: 'bench@example.test', password: 'bench-password' });
    const { token } = await call(svc.port, 'POST', '/api/auth/login', undefined, { email: 'bench@example.test', password: 'bench-password' });
    const probed = Array.from({ length: 50 }, (_, i) => seeded[Math.floor((i * seeded.length) / 50)]!.service.id);
    probe = await startApiProbe({
      token, ratePerSec: PROBE_RATE,
      urls: probed.flatMap((id) => [`http://127.0.0.1:${svc.port}/api/services/${id}`, `http://127.0.0.1:${svc.port}/api/services/${id}/deployments`]),
    });
    const probeFrom = Date.now();
    // cycle 1: the new leader's resync at start
    await until('the first inspect', () => times.length > 0, 120_000);
    const c1Start = times[0]!;
    const cpuCycle1 = cpuSeconds(pid);
    const xactCycle1 = await transactionsCommitted(db);
    const seqCycle1 = await sequentialRowsRead(db);
    await until('cycle 1 (every container inspected)', () => seen.size === SERVICES, 20 * 60_000);
    const c1 = times.at(-1)! - c1Start;
    const cpu1 = cpuSeconds(pid) - cpuCycle1;
    const during1 = await probe.window(Math.max(probeFrom, wall(c1Start)), wall(times.at(-1)!));
    console.log(`cycle 1 (start-up resync) ${sec(c1)}; event streams open ${docker.openEventStreams()}; RSS ${mb(memoryOf(pid).rss)}, `
      + `peak ${mb(memoryOf(pid).peak)} (idle on an empty store ${mb(floorRss)}); load average ${load()}`);
    // quiet: no inspect for 2 s (cycle 1 is over, its conditions written)
    await until('cycle 1 to settle', () => performance.now() - times.at(-1)! > 2000, 20 * 60_000);
    const perDeployment1 = ((await transactionsCommitted(db)) - xactCycle1) / SERVICES;
    const seq1 = scans(seqCycle1, await sequentialRowsRead(db), SERVICES);
    const observed = (await Promise.all(seeded.map((x) => x.deployment.environmentId).filter((e, i, a) => a.indexOf(e) === i)
      .map((e) => deployments.listByEnvironment(e)))).flat();
    const recorded = observed.filter((d) => d.observedGeneration === d.generation).length;
    const driftedConditions = observed.flatMap((d) => d.conditions.filter((c) => c.type === 'Drifted' && c.status === 'True'));
    const drifted = driftedConditions.length;
    const driftReasons = [...new Set(driftedConditions.map((c) => `${c.reason}: ${c.message}`))].slice(0, 3).join('; ') || 'none';
    const rssAfter1 = memoryOf(pid).rss;
    // the floor of the API's latency: the same reads while nothing is reconciled
    before = new Map(seen);
    const from = times.length;
    const idleFrom = Date.now();
    const [cpuIdle0, xactIdle0] = [cpuSeconds(pid), await transactionsCommitted(db)];
    await sleep(IDLE_SEC * 1000);
    const idleSec = (Date.now() - idleFrom) / 1000;
    const idleCpuRate = (cpuSeconds(pid) - cpuIdle0) / idleSec;
    const idleXactRate = ((await transactionsCommitted(db)) - xactIdle0) / idleSec;
    const idle = await probe.window(idleFrom, Date.now());
    // cycle 2 inside the idle window: the idle rates include part of it, and are not subtracted
    const idleOverlapped = times.length > from;
    if (idleOverlapped) console.log(`WARNING: cycle 2 began within the idle window (RESYNC_SEC too short): the idle figures are not idle`);
    const idleShare = idleOverlapped ? 0 : 1;
    console.log(`database transactions per deployment in cycle 1 (from its first inspect): ${perDeployment1.toFixed(2)}; ${perContainer(cpu1, SERVICES)}; rows read by sequential scans per container: ${seq1}`);
    console.log(`API during cycle 1: ${latency(during1)}; idle after it (${IDLE_SEC} s): ${latency(idle)}; p99 ${(during1.p99Ms / idle.p99Ms).toFixed(2)}x of idle`);
    if (CYCLES === 1) {
      console.log(`after cycle 1: observedGeneration recorded on ${recorded}/${SERVICES}, Drifted on ${drifted} (${driftReasons}); `
        + `RSS peak ${mb(memoryOf(pid).peak)} (sampled ${mb(peakSampled)}, ${peakAt}), after cycle 1 ${mb(rssAfter1)}; load average ${load()}`);
      return;
    }
    // cycle 2: the periodic resync
    const xactBefore = await transactionsCommitted(db);
    const seqBefore = await sequentialRowsRead(db);
    await until('cycle 2 to start', () => times.length > from, (RESYNC_SEC + 60) * 1000);
    const c2Start = times[from]!;
    const cpuCycle2 = cpuSeconds(pid);
    await until('cycle 2 (every container inspected again)', () => inspectedAgain === SERVICES, 20 * 60_000);
    const c2 = times.at(-1)! - c2Start;
    const inspects2 = times.length - from;
    // what the controller spends besides (the probe's requests, background jobs), at its idle rate, is not the cycle's
    const cpu2 = cpuSeconds(pid) - cpuCycle2 - idleShare * idleCpuRate * (c2 / 1000);
    const during2 = await probe.window(wall(c2Start), wall(times.at(-1)!));
    await until('cycle 2 to settle', () => performance.now() - times.at(-1)! > 2000, 20 * 60_000);
    const perDeployment = ((await transactionsCommitted(db)) - xactBefore - idleShare * idleXactRate * ((performance.now() - c2Start) / 1000)) / SERVICES;
    const seq2 = scans(seqBefore, await sequentialRowsRead(db), SERVICES);
    const steady = memoryOf(pid).rss;
    const { peak } = memoryOf(pid);
    const loadAfter = load();
    clearInterval(sampler);
    await probe.stop();
    await svc.stop();
    // the floor of a cycle: inspect every container and read its row, 8 at a time, nothing else
    const client = new Docker({ socketPath });
    const names = [...documents.keys()];
    const byName = new Map(seeded.map((x) => [x.deployment.containerName, x.deployment.id]));
    t = performance.now();
    await Promise.all(Array.from({ length: QUEUE_CONCURRENCY }, async (_, w) => {
      for (let i = w; i < names.length; i += QUEUE_CONCURRENCY) {
        await client.getContainer(names[i]!).inspect();
        await deployments.findById(byName.get(names[i]!)!);
      }
    }));
    const floor = performance.now() - t;

    console.log(`after cycle 1: observedGeneration recorded on ${recorded}/${SERVICES}, Drifted on ${drifted} (${driftReasons}; simulated stopped: ${Math.ceil(SERVICES / DRIFTED_EVERY)})`);
    console.log(`controller RSS: peak ${mb(peak)} (sampled ${mb(peakSampled)}, ${peakAt}), after cycle 1 ${mb(rssAfter1)}, steady after cycle 2 ${mb(steady)} `
      + `— idle on an empty store ${mb(floorRss)}, peak ${(peak / floorRss).toFixed(2)}x of it (goal: peak < 400 MB at 100,000)`);
    console.log(`full resync: cycle 1 (start-up, first look) ${sec(c1)}, cycle 2 (periodic) ${sec(c2)} — floor (inspect + read row, `
      + `${QUEUE_CONCURRENCY} at a time) ${sec(floor)}, cycle 2 ${(c2 / floor).toFixed(2)}x of it (goal: a cycle < 60 s); `
      + `${(inspects2 / SERVICES).toFixed(2)} inspects per container in cycle 2`);
    console.log(`API during cycle 2: ${latency(during2)}; idle: p99 ${idle.p99Ms.toFixed(1)} ms; p99 ${(during2.p99Ms / idle.p99Ms).toFixed(2)}x of idle (goal: ≤ 1.5x)`);
    const less = idleOverlapped ? 'the idle rate not known, so not subtracted' : 'less its idle rate';
    console.log(`cost per container in cycle 2: ${perContainer(cpu2, SERVICES)} (${less}), ${(c2 / SERVICES * 1000).toFixed(0)} µs of wall time, `
      + `${perDeployment.toFixed(2)} database transactions (${less}); rows read by sequential scans: ${seq2}; load average ${loadAfter}`);
  } finally {
    clearInterval(sampler);
    if (timeline) clearInterval(timeline);
    await probe?.stop();
    await svc.stop().catch(() => undefined);
    await docker.stop();
    await db.destroy();
    await dropTestDatabases();
  }
}

await main();
process.exit(0);
