// bench/manifests.ts - a manifests folder of 500 services across 20 servers.
//   DATABASE_URL=postgres://... npx tsx bench/manifests.ts
// Prints (1) the time to load, validate and diff the folder against a store that already
// holds it, and against an empty one (targets < 2 s), and (2) the time from saving a file in
// the watched folder to the start of the deploy plan it causes (target < 300 ms): the median of
// SAVES (default 7) saves of one file of the folder, each changing one service's tag.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffStates } from '../controller/manifests/diff.js';
import { desiredStates } from '../controller/manifests/desired.js';
import { loadManifests } from '../controller/manifests/load.js';
import { contentHash, readManifestDir } from '../controller/manifests/read-dir.js';
import { existingKeys, readSnapshot } from '../controller/manifests/snapshot.js';
import { startTestService } from '../test/support/test-service.js';
import { QUIET_MS, SETTLE_MS } from '../controller/manifests/watcher.js';

const SERVICES = 500;
const SERVERS = 20;
const doc = (kind: string, name: string, spec: string, env = true) =>
  `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}${env ? ', environment: bench' : ''}}\nspec:\n${spec}\n---\n`;

function writeFolder(dir: string, tagOf: (i: number) => string = () => 'v1') {
  writeFileSync(join(dir, 'env.yaml'), doc('Environment', 'bench', '  description: bench', false));
  writeFileSync(join(dir, 'servers.yaml'), Array.from({ length: SERVERS }, (_, i) => doc('Server', `s${i}`, `  hostname: 192.0.2.${i + 1}`)).join(''));
  writeFileSync(join(dir, 'images.yaml'), Array.from({ length: 10 }, (_, i) => doc('ContainerImage', `img${i}`, `  imageName: registry.local/bench/img${i}`)).join(''));
  for (let f = 0; f < 10; f++) writeServices(dir, f, tagOf);
}

/** services-<f>.yaml: 50 services. */
function writeServices(dir: string, f: number, tagOf: (i: number) => string = () => 'v1') {
  const docs = [];
  for (let i = f * 50; i < (f + 1) * 50; i++) {
    docs.push(doc('Service', `svc${i}`, [
      `  image: img${i % 10}`, `  imageTag: ${tagOf(i)}`, '  env: {LOG_LEVEL: info, PORT: "80"}', `  ports: ["127.0.0.1:${10000 + i}:80"]`,
      ...(i % 50 ? [`  dependsOn: [svc${f * 50}]`] : []),
      '  deployments:', `    - server: s${i % SERVERS}`, `    - server: s${(i + 1) % SERVERS}`,
    ].join('\n')));
  }
  writeFileSync(join(dir, `services-${f}.yaml`), docs.join(''));
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;
const dir = mkdtempSync(join(tmpdir(), 'bench-manifests-'));
writeFolder(dir);
const svc = await startTestService({ MANIFESTS_DIR: dir, LOG_LEVEL: 'warn' });
const s = svc.services;
try {
  async function loadValidateDiff() {
    const t0 = performance.now();
    const files = await readManifestDir(dir);
    const snap = await readSnapshot(s.db, s.secretBox);
    const loaded = loadManifests(files, existingKeys(snap));
    const desired = desiredStates(loaded.manifests, loaded.contentHash, { origin: 'folder', env: process.env, baseDir: dir });
    const changes = diffStates(desired.objects, snap.objects, { prune: false });
    return { t: performance.now() - t0, errors: loaded.errors.length + desired.errors.length, changes: changes.length, docs: loaded.manifests.length };
  }
  // The watcher applied the folder at start-up; measure against the populated store.
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await loadValidateDiff());
  const best = runs.map((r) => r.t).sort((a, b) => a - b);
  console.log(`load+validate+diff, ${runs[0].docs} documents (${SERVICES} services, ${SERVERS} servers), store in sync: `
    + `median ${best[2].toFixed(0)} ms, first ${runs[0].t.toFixed(0)} ms; ${runs[0].changes} changes, ${runs[0].errors} errors`);

  // Saves of one file (one service's tag each time), each to the start of the plan it causes.
  const SAVES = Number(process.env.SAVES ?? 7);
  let queriesRun = 0;
  s.db.on('query', () => queriesRun++);
  const times: number[] = [];
  let plan;
  for (let k = 1; k <= SAVES; k++) {
    // A steady state: the folder quiet again, the last apply done, no plan running and the
    // controller idle (the start-up apply's plan of 1,000 deployments and the first look at each
    // take seconds; a save's plan fails on the unreachable 192.0.2.x servers within a second or so).
    await new Promise((r) => setTimeout(r, QUIET_MS + 750));
    for (const t0 = performance.now(); performance.now() - t0 < 120_000;) {
      const queries = queriesRun;
      await new Promise((r) => setTimeout(r, 500));
      if (queriesRun - queries < 20 && !(await s.db('deployment_plans').whereIn('status', ['pending', 'running']).first())) break;
    }
    const before = (await s.db('deployment_plans').select('id')).map((p: { id: string }) => p.id);
    const f = k % 10;
    const saved = Date.now();
    writeServices(dir, f, (i) => (i === f * 50 + k ? `v${k + 1}` : 'v1'));
    const t0 = performance.now();
    const name = `manifests ${contentHash(await readManifestDir(dir)).replace(/^sha256:/, '').slice(0, 12)}`; // the plan of this save, not of another
    while (!(plan = await s.db('deployment_plans').whereNotIn('id', before).where({ name }).whereNotNull('startedAt').first()) && performance.now() - t0 < 60_000) {
      await new Promise((r) => setTimeout(r, 5));
    }
    if (!plan) throw new Error('no plan started within 60 s');
    times.push(new Date(plan.startedAt).getTime() - saved);
    writeServices(dir, f); // back to v1 for the next saves (applied during the pause)
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  // the floor: what an apply without its caches must do first, reading, validating and diffing the folder (measured above)
  console.log(`file save -> plan start: median ${median} ms of ${SAVES} saves of one file (${times.join(', ')} ms), ${(median / best[2]).toFixed(2)}x of load+validate+diff; `
    + `load average ${load()} (goal < 300 ms; the first change of a quiet folder applies after ${SETTLE_MS} ms); plan '${plan!.name}'`);

  const empty = await startTestService({ LOG_LEVEL: 'warn' });
  const t1 = performance.now();
  const files = await readManifestDir(dir);
  const snap = await readSnapshot(empty.services.db, empty.services.secretBox);
  const loaded = loadManifests(files, existingKeys(snap));
  const changes = diffStates(desiredStates(loaded.manifests, loaded.contentHash, { origin: 'folder', env: process.env, baseDir: dir }).objects, snap.objects, { prune: false });
  console.log(`load+validate+diff against an empty store: ${ms(t1)}; ${changes.length} creates`);
  await empty.stop();
} finally {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
}
