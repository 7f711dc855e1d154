// bench/converge.ts - how fast Stevedore converges, on the test fleet, with default settings
// (only driftPolicy heal):
//   (1) a container stopped by hand (`docker stop` inside the server): time until drift is
//       reported (drift.detected received) and until it runs again (targets 2 s and 5 s);
//   (2) a no-op re-apply of a manifests folder of SERVICES services (default 500): plans created
//       and containers touched (ids and StartedAt before and after; target: none).
//   FLEET_ID=0 DATABASE_URL=postgres://... npx tsx bench/converge.ts [rounds=3]
//   SERVICES=500 (part 2; fewer for a quick look), SKIP_STOP=1 / SKIP_APPLY=1 to run one part.
// Times are taken against the server's clock right after `docker stop` returned, so the time the
// bench itself needs to reach the server does not count.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addService, cleanup, startWorld, type World } from '../test/e2e/deploy/deploy-world.js';
import { loadFleet, privateKeyOf, serverExec } from '../test/fleet/fleet.js';
import { bootstrapAdmin } from '../test/support/fixtures.js';
import { startTestService } from '../test/support/test-service.js';
import type { StreamEvent } from '../controller/events/event-bus.js';
import { getCondition, type Condition } from '../controller/model/conditions.js';
import { HEAL_COOLDOWN_MS } from '../reconcilers/deployment/reconcile-drift.js';

const rounds = Number(process.argv[2] ?? 3);
const SERVICES = Number(process.env.SERVICES ?? 500);
const DEFAULTS = { SCHEDULER_DRIFT_CHECK_SEC: '300', SCHEDULER_HEALTH_CHECK_SEC: '60', LOG_LEVEL: 'debug' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function stopAndHeal(): Promise<void> {
  const w: World = await startWorld(DEFAULTS);
  const received: Array<StreamEvent & { at: number }> = [];
  const unsubscribe = w.s.events.subscribe((e) => received.push({ ...e, at: Date.now() }));
  try {
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'heal' });
    const { service, deployments } = await addService(w, 'conv', { servers: ['s1'] });
    const d = deployments[0]!;
    console.log('deploying the service to s1 ...');
    const deployed = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, {});
    if (deployed.body.status !== 'succeeded') throw new Error(`first deploy ${deployed.body.status}`);
    await until('the docker events watch of s1', async () => w.svc.logs.some((l) => l.includes('docker events watch open') && l.includes(w.servers.s1!)));
    console.log('deployed; the docker events watch of s1 is open');
    const r = { reported: [] as number[], running: [] as number[], cleared: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      const from = received.length;
      const stoppedAt = Number((await serverExec('s1', ['sh', '-c', `docker stop ${d.containerName} >/dev/null && date +%s%3N`])).trim());
      const detected = await until('drift.detected', async () => received.slice(from).find((e) => e.type === 'drift.detected' && e.data.deploymentId === d.id));
      const cleared = await until('Drifted to clear', async () => {
        const c = getCondition(((await w.s.deployments.findById(d.id))!.conditions ?? []) as Condition[], 'Drifted');
        return c?.status === 'False' && new Date(c.lastTransitionTime).getTime() > stoppedAt && c;
      });
      const started = new Date((await serverExec('s1', ['docker', 'inspect', '--format', '{{.State.StartedAt}}', d.containerName])).trim()).getTime();
      r.reported.push(detected.at - stoppedAt);
      r.running.push(started - stoppedAt);
      r.cleared.push(new Date(cleared.lastTransitionTime).getTime() - stoppedAt);
      console.log(`  round ${i + 1}: drift reported ${r.reported.at(-1)} ms, running again ${r.running.at(-1)} ms, Drifted cleared ${r.cleared.at(-1)} ms`);
      // a deployment healed a moment ago is not healed again before the cooldown (crash loops)
      if (i < rounds - 1) await sleep(HEAL_COOLDOWN_MS);
    }
    const plans = await w.s.db('deployment_plans').where({ environmentId: w.envId, trigger: 'drift-heal' }).count({ n: '*' });
    console.log(`hand stop, ${rounds} rounds (heal plans: ${plans[0]!.n}): drift reported median ${median(r.reported)} ms (target < 2000), `
      + `running again median ${median(r.running)} ms (target < 5000), Drifted cleared median ${median(r.cleared)} ms`);
  } finally {
    unsubscribe();
    await cleanup(w);
  }
}

const doc = (kind: string, name: string, spec: string, env = true) =>
  `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}${env ? ', environment: converge' : ''}}\nspec:\n${spec}\n---\n`;

function writeFolder(dir: string, tag: string): void {
  const fleet = loadFleet();
  writeFileSync(join(dir, 'env.yaml'), doc('Environment', 'converge', [
    '  sshPrivateKey:', '    valueFrom: {env: CONVERGE_SSH_PRIVATE_KEY}',
    '  settings:', '    general: {sshUser: root}', '    operations: {driftPolicy: heal}',
  ].join('\n'), false));
  writeFileSync(join(dir, 'servers.yaml'), fleet.servers.map((f) => doc('Server', f.name, `  hostname: ${f.host}\n  sshPort: ${f.port}`)).join(''));
  // busybox without a HEALTHCHECK: 500 idle containers that cost nothing (the web image runs its
  // health probe every second, which at this count alone would take the machine's two cores)
  writeFileSync(join(dir, 'images.yaml'), doc('ContainerImage', 'box', `  imageName: ${fleet.images.busybox.replace(/:base$/, '')}`));
  const docs = [];
  for (let i = 0; i < SERVICES; i++) {
    docs.push(doc('Service', `cv${i}-${tag}`, ['  image: box', '  imageTag: base', '  command: [sleep, "2147483647"]', '  env: {LOG_LEVEL: info}', '  deployments:',
      `    - server: ${fleet.servers[i % fleet.servers.length]!.name}`].join('\n')));
  }
  writeFileSync(join(dir, 'services.yaml'), docs.join(''));
}

/** id and StartedAt of every container of this bench on every server. */
async function containerSnapshot(tag: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of loadFleet().servers) {
    const ids = (await serverExec(f.name, ['sh', '-c', `docker ps -aq --filter name=-${tag}`])).trim().split('\n').filter(Boolean);
    if (!ids.length) continue;
    const lines = (await serverExec(f.name, ['docker', 'inspect', '--format', '{{.Name}} {{.Id}} {{.State.StartedAt}}', ...ids])).trim().split('\n');
    for (const line of lines) {
      const [name, id, started] = line.split(' ');
      out.set(`${f.name}${name}`, `${id} ${started}`);
    }
  }
  return out;
}

async function noOpApply(): Promise<void> {
  const fleet = loadFleet();
  process.env.CONVERGE_SSH_PRIVATE_KEY = privateKeyOf(fleet.servers[0]!);
  const tag = Math.random().toString(16).slice(2, 8);
  const dir = mkdtempSync(join(tmpdir(), 'bench-converge-'));
  writeFolder(dir, tag);
  const svc = await startTestService({ ...DEFAULTS, LOG_LEVEL: 'warn', MANIFESTS_DIR: dir });
  const s = svc.services;
  try {
    const admin = await bootstrapAdmin(svc.http);
    const t0 = performance.now();
    const first = await admin.post('/api/manifests/apply', {});
    if (first.status !== 200) throw new Error(`first apply: ${first.status} ${first.text}`);
    const settled = async () => (await s.db('deployment_plans').whereIn('status', ['pending', 'running', 'rolling_back']).count({ n: '*' }))[0]!.n === 0;
    await until('the first deploy of every service', settled, 60 * 60_000);
    const byStatus = await s.db('deployment_plans').select('status').count({ n: '*' }).groupBy('status');
    console.log(`first apply of ${SERVICES} services deployed in ${((performance.now() - t0) / 1000).toFixed(1)} s; plans: ${JSON.stringify(byStatus)}`);
    await s.queue.drain();
    const plansBefore = Number((await s.db('deployment_plans').count({ n: '*' }))[0]!.n);
    const before = await containerSnapshot(tag);
    const t1 = performance.now();
    const again = await admin.post('/api/manifests/apply', {});
    const applyMs = performance.now() - t1;
    // anything the re-apply set in motion has had time to start
    await sleep(3000);
    await until('no plan in motion', settled, 10 * 60_000);
    await s.queue.drain();
    const plansAfter = Number((await s.db('deployment_plans').count({ n: '*' }))[0]!.n);
    const after = await containerSnapshot(tag);
    const touched = [...before].filter(([name, v]) => after.get(name) !== v).length + [...after.keys()].filter((n) => !before.has(n)).length;
    console.log(`no-op re-apply of ${SERVICES} services: answered ${again.status} in ${applyMs.toFixed(0)} ms, `
      + `plans created ${plansAfter - plansBefore} (target 0; the apply answered plans ${JSON.stringify(again.body.plans ?? [])}), `
      + `containers touched ${touched} of ${before.size} (target 0)`);
  } finally {
    await svc.stop();
    for (const f of fleet.servers) await serverExec(f.name, ['sh', '-c', `docker ps -aq --filter name=-${tag} | xargs -r docker rm -f`]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!process.env.SKIP_STOP) await stopAndHeal();
if (!process.env.SKIP_APPLY) await noOpApply();
process.exit(0);
