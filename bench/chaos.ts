/**
 * Chaos: random faults on the fleet while users keep working, with invariants checked after every
 * step and at the end (issue 40; docs/reliability.md holds the last long run's table).
 *
 * Two controller replicas (`bin/stevedore.js serve`) on a PostgreSQL primary and its streaming
 * standby (the host list of docs/replicas.md), a workload drawn at random (deploys, reverts,
 * manifest applies, config edits, canaries, Git pushes: bench/chaos/workload.ts) and, one after
 * the other, a fault drawn at random (bench/chaos/fault-list.ts) with a drawn hold time; then the
 * fault is restored, the time to recover measured (both replicas answer 200 and a probe deploy on
 * every server succeeds), the workload paused, and the invariants checked
 * (bench/chaos/invariants.ts). A seeded PRNG draws every choice: `--seed` replays a run's faults,
 * targets, holds and operations (timings are the machine's own).
 *
 *   bash /work/wt/fleet-slot.sh env TEST_PG_PORT=25462 npx tsx bench/chaos.ts --minutes 60
 *   npx tsx bench/chaos.ts --minutes 5 --seed 1234 --faults controller-kill,postgres-failover
 *
 * Options: --minutes N (default 60: how long faults are drawn, set-up not counted), --seed S
 * (default: drawn, printed first), --faults a,b (only these), --rss-bound MiB (default 600).
 * Without a fleet (no $FLEET_ROOT/fleet.json for FLEET_ID) it brings one up with
 * test/fleet/up.sh (FLEET_LOOP_DISK_MB=1024 unless set: a loop disk per server for disk-full)
 * and takes it down at the end. A fault whose available() is false here is skipped (netem
 * without the kernel's qdisc; disk-full on a fleet without loop disks, the suite's). Prints the faults (target, detail, hold, time to
 * recover) and each invariant held or broken with the evidence; exits 1 if any broke.
 * test/e2e/chaos/random-faults.test.ts runs it for 3 minutes with a fixed seed in `npm test`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { loadFleet } from '../test/fleet/fleet.js';
import type { FaultWorld, Injected } from './chaos/fault.js';
import { allFaults, faultNames } from './chaos/fault-list.js';
import { Invariants, type InvariantState, type Limits } from './chaos/invariants.js';
import { between, pickWith, shuffled, streams } from './chaos/random.js';
import { Workload } from './chaos/workload.js';
import { startWorld, stopWorld, type ChaosWorld } from './chaos/world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ChaosOptions {
  minutes: number;
  seed: number;
  /** Only these faults (by name); default all. */
  faults?: string[];
  limits?: Partial<Limits>;
  log?: (line: string) => void;
}

export interface FaultRow {
  n: number;
  /** Seconds since the faults began. */
  atS: number;
  name: string;
  target: string;
  detail: string;
  holdS: number;
  /** How long the restore itself took (a replica's start, a standby rebuilt). */
  restoreS: number | null;
  /** From the end of the restore to the first positive signal; null: not within the limit. */
  recoverS: number | null;
  error?: string;
}

export interface ChaosResult {
  seed: number;
  minutes: number;
  /** How long faults were drawn for, in minutes. */
  ranMinutes: number;
  faults: FaultRow[];
  invariants: InvariantState[];
  answers: Record<string, number>;
  /** Dropped connections excused because their replica was being killed. */
  excusedDrops: number;
  workload: Record<string, number>;
  peakRssMiB: Record<string, number>;
  limits: Limits;
  ok: boolean;
}

export const DEFAULT_LIMITS: Limits = { planBudgetMs: 300_000, rssBoundMiB: 600, recoveryLimitMs: 180_000 };

/** Until both replicas answer from the database and a deploy of `probe` on every server succeeds. */
async function recover(w: ChaosWorld, limitMs: number, probeTag: () => string): Promise<{ ms: number } | { why: string }> {
  const t0 = Date.now();
  let why = 'nothing tried';
  while (Date.now() - t0 < limitMs) {
    if (!w.replicas.every((r) => r.running)) {
      why = 'a replica is not running';
      await sleep(250);
      continue;
    }
    const answers = await Promise.all(w.replicas.map((r) => w.api(r).get(`/api/environments/${w.envs.main.id}`)));
    if (answers.some((a) => a.status !== 200)) {
      why = `replicas answered ${answers.map((a) => a.status).join(', ')}`;
      await sleep(250);
      continue;
    }
    const api = w.api(w.replicas[Math.floor(Math.random() * w.replicas.length)]!);
    const left = Math.max(5000, limitMs - (Date.now() - t0));
    const res = await api.post(`/api/services/${w.services.probe.id}/deploy?wait=true`, { imageTag: probeTag(), strategy: 'parallel' }, left);
    if (res.body?.status === 'succeeded') return { ms: Date.now() - t0 };
    why = `the probe deploy answered ${res.status} ${res.body?.status ?? res.text.slice(0, 200)}`;
    await sleep(500);
  }
  return { why };
}

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  const unknown = (o.faults ?? []).filter((f) => !faultNames().includes(f));
  if (unknown.length) throw new Error(`no such fault: ${unknown.join(', ')} (faults: ${faultNames().join(', ')})`);
  log(`chaos: seed ${o.seed}, ${o.minutes} min, faults ${(o.faults ?? faultNames()).join(', ')}`);
  const fleet = loadFleet();
  const random = streams(o.seed);
  const world: FaultWorld = { fleet, random: random.faults, pick: (xs) => pickWith(random.faults, xs), log };
  // longer runs hold their faults longer: past the plan leases, the SSH timeouts, the leader retry
  const hold = o.minutes >= 10 ? [3000, 30_000] : [2000, 8000];
  let w: ChaosWorld | undefined;
  let active: Injected | null = null;
  let sampler: NodeJS.Timeout | undefined;
  const rows: FaultRow[] = [];
  let workload: Workload | undefined;
  try {
    w = await startWorld(fleet, log);
    const ww = w;
    sampler = setInterval(() => ww.replicas.forEach((r) => r.sampleRss()), 1000);
    const inv = new Invariants(w, limits, log);
    await inv.baselineUntouchable();
    await inv.checkAll('start', 0);
    const faults = allFaults({ replicas: w.replicas, pair: w.pair }).filter((f) => !o.faults || o.faults.includes(f.name));
    const here: string[] = [];
    for (const f of faults) if (await f.available(world).catch(() => false)) here.push(f.name);
    log(`faults that can run here: ${here.join(', ')}${here.length < faults.length ? `; not here: ${faults.filter((f) => !here.includes(f.name)).map((f) => f.name).join(', ')}` : ''}`);
    let bag: typeof faults = [];
    let probe = 0;
    const probeTag = () => (++probe % 2 ? 'v2' : 'v1');
    workload = new Workload(w, random.workload);
    workload.start();
    const began = Date.now();
    const end = began + o.minutes * 60_000;
    let lastRestoredAt = began;
    for (let n = 1; Date.now() < end; n++) {
      await sleep(between(random.faults, 2000, 6000));
      // from a bag refilled with a seeded shuffle of every fault: a short run still meets each one
      // (what cannot run now waits for the next bag: a fault never available here never blocks one)
      const availableIn = async (xs: typeof faults) => {
        const out = [];
        for (const f of xs) if (await f.available(world).catch(() => false)) out.push(f);
        return out;
      };
      if (bag.length === 0) bag = shuffled(random.faults, faults);
      let available = await availableIn(bag);
      if (!available.length) {
        bag = shuffled(random.faults, faults);
        available = await availableIn(bag);
      }
      if (!available.length) {
        log('no fault can run now');
        continue;
      }
      const fault = available[0]!;
      bag.splice(bag.indexOf(fault), 1);
      const holdMs = Math.round(between(random.faults, hold[0]!, hold[1]!));
      const row: FaultRow = { n, atS: Math.round((Date.now() - began) / 1000), name: fault.name, target: '', detail: '', holdS: holdMs / 1000, restoreS: null, recoverS: null };
      rows.push(row);
      const injectedAt = Date.now();
      try {
        active = await fault.inject(world);
        row.target = active.target;
        row.detail = active.detail ?? '';
        log(`#${n} ${fault.name} on ${row.target}${row.detail ? ` (${row.detail})` : ''}, held ${row.holdS} s`);
        await sleep(holdMs);
      } catch (err) {
        row.error = `inject failed: ${String(err).slice(0, 300)}`;
        log(`#${n} ${fault.name}: ${row.error}`);
      }
      if (active) {
        const t = Date.now();
        for (let attempt = 0; ; attempt++) {
          try {
            await active.restore();
            break;
          } catch (err) {
            if (attempt === 2) throw new Error(`restoring ${fault.name} on ${row.target} failed: ${String(err)}`);
            await sleep(1000);
          }
        }
        active = null;
        row.restoreS = (Date.now() - t) / 1000;
      }
      lastRestoredAt = Date.now();
      const rec = await recover(w, limits.recoveryLimitMs, probeTag);
      if ('ms' in rec) row.recoverS = rec.ms / 1000;
      if (fault.name.startsWith('postgres-')) inv.databaseAway.push([injectedAt, Date.now()]);
      const step = `#${n} ${fault.name} ${row.target}`;
      inv.note('recovery', step, 'ms' in rec ? [] : [`not recovered ${limits.recoveryLimitMs / 1000} s after the restore: ${rec.why}`]);
      log(`#${n} ${fault.name}: ${'ms' in rec ? `recovered in ${row.recoverS} s` : `NOT recovered: ${rec.why}`}`);
      await workload.pause();
      await inv.checkAll(step, lastRestoredAt);
      const broken = inv.broken.map((s) => s.name);
      if (broken.length) log(`  broken so far: ${broken.join(', ')}`);
      workload.start();
    }
    const ranMinutes = (Date.now() - began) / 60_000;
    await workload.pause();
    await inv.checkAll('end', lastRestoredAt);
    return {
      seed: o.seed, minutes: o.minutes, ranMinutes, faults: rows, invariants: [...inv.states.values()],
      answers: Object.fromEntries([...w.answers.byStatus].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      excusedDrops: inv.excusedDrops, workload: Object.fromEntries([...workload.counts].sort()),
      peakRssMiB: Object.fromEntries(w.replicas.map((r) => [r.name, r.peakRssMiB])), limits, ok: inv.broken.length === 0,
    };
  } finally {
    if (sampler) clearInterval(sampler);
    await workload?.pause().catch(() => undefined);
    if (active) await (active as Injected).restore().catch((e) => log(`restore at the end: ${String(e)}`));
    await stopWorld(w, log);
  }
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** The run as printed: the faults, then the invariants with their evidence, then the figures. */
export function formatResult(r: ChaosResult): string {
  const lines: string[] = [];
  lines.push(`seed ${r.seed}; faults drawn for ${r.ranMinutes.toFixed(1)} of ${r.minutes} min; ${r.faults.length} faults`);
  lines.push('');
  lines.push(`${pad('#', 4)}${pad('at', 7)}${pad('fault', 19)}${pad('target', 26)}${pad('hold', 7)}${pad('restore', 9)}${pad('recover', 9)}detail`);
  for (const f of r.faults) {
    lines.push(`${pad(String(f.n), 4)}${pad(`${f.atS}s`, 7)}${pad(f.name, 19)}${pad(f.target || '-', 26)}${pad(`${f.holdS}s`, 7)}`
      + `${pad(f.restoreS === null ? '-' : `${f.restoreS.toFixed(1)}s`, 9)}${pad(f.recoverS === null ? 'NO' : `${f.recoverS.toFixed(1)}s`, 9)}${f.error ?? f.detail}`);
  }
  const byFault = new Map<string, number[]>();
  for (const f of r.faults) if (f.recoverS !== null) byFault.set(f.name, [...(byFault.get(f.name) ?? []), f.recoverS]);
  lines.push('');
  lines.push('time to recover by fault (s): ' + [...byFault].map(([name, xs]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return `${name} n=${xs.length} median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} max ${sorted.at(-1)!.toFixed(1)}`;
  }).join('; '));
  lines.push('');
  for (const s of r.invariants) {
    lines.push(`${s.held ? 'held  ' : 'BROKEN'}  ${pad(s.name, 10)} ${s.description} (${s.checks} checks)`);
    for (const e of s.evidence) lines.push(`          ${e}`);
  }
  lines.push('');
  lines.push(`answers by status: ${Object.entries(r.answers).map(([k, v]) => `${k === '0' ? 'none' : k}: ${v}`).join(', ')} (no answer excused by the replica's own kill: ${r.excusedDrops})`);
  lines.push(`workload: ${Object.entries(r.workload).map(([k, v]) => `${k} x${v}`).join(', ')}`);
  lines.push(`peak RSS MiB: ${Object.entries(r.peakRssMiB).map(([k, v]) => `replica ${k} ${v}`).join(', ')} (bound ${r.limits.rssBoundMiB})`);
  lines.push(r.ok ? 'every invariant held' : `BROKEN: ${r.invariants.filter((s) => !s.held).map((s) => s.name).join(', ')}`);
  return lines.join('\n');
}

const run = promisify(execFile);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const minutes = Number(opt('minutes') ?? 60);
  const seed = opt('seed') !== undefined ? Number(opt('seed')) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isFinite(minutes) || minutes <= 0 || !Number.isInteger(seed)) throw new Error('usage: bench/chaos.ts [--minutes N] [--seed S] [--faults a,b] [--rss-bound MiB]');
  const faults = opt('faults')?.split(',').filter(Boolean);
  const rss = opt('rss-bound');
  console.log(`seed ${seed}`);
  const fleetJson = join(process.env.FLEET_ROOT ?? `/tmp/stevedore-fleet-${process.env.FLEET_ID ?? '0'}`, 'fleet.json');
  const ownFleet = !existsSync(fleetJson);
  if (ownFleet) {
    console.log(`no fleet at ${fleetJson}: bringing one up (test/fleet/up.sh)`);
    // with a loop disk per server (its Docker root) for the disk-full fault: docs/testing.md
    await run('bash', ['test/fleet/up.sh'], { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, FLEET_LOOP_DISK_MB: process.env.FLEET_LOOP_DISK_MB ?? '1024' } });
  }
  let result: ChaosResult | undefined;
  try {
    const t = Date.now();
    result = await runChaos({ minutes, seed, faults, limits: rss ? { rssBoundMiB: Number(rss) } : {}, log: (l) => console.log(`[${((Date.now() - t) / 1000).toFixed(0)}s] ${l}`) });
    console.log(`\n${formatResult(result)}`);
  } finally {
    if (ownFleet) await run('bash', ['test/fleet/down.sh']).catch((e) => console.error(`fleet down: ${String(e)}`));
  }
  process.exit(result?.ok ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
