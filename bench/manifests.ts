// bench/manifests.ts - a manifests folder of 500 services across 20 servers.
//   DATABASE_URL=postgres://... npx tsx bench/manifests.ts
// Prints (1) the time to load, validate and diff the folder against a store that already
// holds it, and against an empty one (targets < 2 s), and (2) the time from saving a file in
// the watched folder to the start of the deploy plan it causes (target < 300 ms).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffStates } from '../controller/manifests/diff.js';
import { desiredStates } from '../controller/manifests/desired.js';
import { loadManifests } from '../controller/manifests/load.js';
import { readManifestDir } from '../controller/manifests/read-dir.js';
import { existingKeys, readSnapshot } from '../controller/manifests/snapshot.js';
import { startTestService } from '../test/support/test-service.js';
import { SETTLE_MS } from '../controller/manifests/watcher.js';

const SERVICES = 500;
const SERVERS = 20;
const doc = (kind: string, name: string, spec: string, env = true) =>
  `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}${env ? ', environment: bench' : ''}}\nspec:\n${spec}\n---\n`;

function writeFolder(dir: string, tagOf: (i: number) => string = () => 'v1') {
  writeFileSync(join(dir, 'env.yaml'), doc('Environment', 'bench', '  description: bench', false));
  writeFileSync(join(dir, 'servers.yaml'), Array.from({ length: SERVERS }, (_, i) => doc('Server', `s${i}`, `  hostname: 192.0.2.${i + 1}`)).join(''));
  writeFileSync(join(dir, 'images.yaml'), Array.from({ length: 10 }, (_, i) => doc('ContainerImage', `img${i}`, `  imageName: registry.local/bench/img${i}`)).join(''));
  for (let f = 0; f < 10; f++) {
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
    const desired = desiredStates(loaded.manifests, loaded.contentHash, { env: process.env, baseDir: dir });
    const changes = diffStates(desired.objects, snap.objects, { prune: false });
    return { t: performance.now() - t0, errors: loaded.errors.length + desired.errors.length, changes: changes.length, docs: loaded.manifests.length };
  }
  // The watcher applied the folder at start-up; measure against the populated store.
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await loadValidateDiff());
  const best = runs.map((r) => r.t).sort((a, b) => a - b);
  console.log(`load+validate+diff, ${runs[0].docs} documents (${SERVICES} services, ${SERVERS} servers), store in sync: `
    + `median ${best[2].toFixed(0)} ms, first ${runs[0].t.toFixed(0)} ms; ${runs[0].changes} changes, ${runs[0].errors} errors`);

  // A save of one file (one tag) to the start of the plan it causes.
  const before = (await s.db('deployment_plans').pluck('id')) as string[];
  const saved = Date.now();
  writeFolder(dir, (i) => (i === 7 ? 'v2' : 'v1'));
  const t0 = performance.now();
  let plan;
  while (!(plan = await s.db('deployment_plans').whereNotIn('id', before).whereNotNull('startedAt').first()) && performance.now() - t0 < 60_000) {
    await new Promise((r) => setTimeout(r, 20));
  }
  if (!plan) throw new Error('no plan started within 60 s');
  const toStart = new Date(plan.startedAt).getTime() - saved;
  // the floor: what any apply must do first, reading, validating and diffing the folder (measured above)
  console.log(`file save -> plan start: ${toStart} ms, ${(toStart / best[2]).toFixed(2)}x of load+validate+diff; load average ${load()} (goal < 300 ms; the first change of a quiet folder applies after ${SETTLE_MS} ms); plan '${plan.name}'`);

  const empty = await startTestService({ LOG_LEVEL: 'warn' });
  const t1 = performance.now();
  const files = await readManifestDir(dir);
  const snap = await readSnapshot(empty.services.db, empty.services.secretBox);
  const loaded = loadManifests(files, existingKeys(snap));
  const changes = diffStates(desiredStates(loaded.manifests, loaded.contentHash, { env: process.env, baseDir: dir }).objects, snap.objects, { prune: false });
  console.log(`load+validate+diff against an empty store: ${ms(t1)}; ${changes.length} creates`);
  await empty.stop();
} finally {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
}
