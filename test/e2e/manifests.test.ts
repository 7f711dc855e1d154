// The manifests folder against the local fleet: the watcher applies examples/manifests, the
// deploy engine runs the containers, a tag edit redeploys, a deleted file (pruning on) removes.
import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { until } from '../support/until.js';

const EXAMPLES = new URL('../../examples/manifests', import.meta.url).pathname;

const WAIT = { timeoutMs: 60_000, everyMs: 150 };

describe('manifests folder against the fleet', () => {
  let fleet: Fleet;
  let svc: TestService;
  let admin: HttpClient;
  let dir: string;
  const staged = new Map<string, string>();

  /** The example files as written: the fleet's addresses come from the DEMO_* variables set below. */
  const fleetCopy = (name: string) => readFileSync(join(EXAMPLES, name), 'utf8');
  const planCount = () => svc.services.db('deployment_plans').where({ trigger: 'manifest' }).count({ n: '*' }).then(([r]) => Number(r.n));
  const lastPlan = () => svc.services.db('deployment_plans').where({ trigger: 'manifest' }).orderBy('createdAt', 'desc').first();
  /** until(), and on a timeout what the watcher and the plans said (a timeout alone says nothing). */
  const waitFor = async <T>(what: string, probe: () => Promise<T | false | undefined | null>) => {
    try {
      return await until(what, probe, { ...WAIT, timeoutMs: 90_000 });
    } catch (err) {
      const status = (await admin.get('/api/manifests/status')).body;
      const plans = await svc.services.db('deployment_plans').select('id', 'status', 'trigger', 'createdAt');
      // a plan still running says where in its steps it waits
      const steps = (await svc.services.db('plan_steps').orderBy('position')).map((x: Record<string, any>) => ({
        plan: x.planId, container: x.containerName, server: x.serverId, status: x.status, error: x.error ?? null, log: String(x.log ?? '').split('\n').slice(-6),
      }));
      const logged = svc.logs.filter((l) => /manifest|plan|error|warn/i.test(l)).slice(-30).join('\n');
      throw new Error(`${(err as Error).message}\nstatus: ${JSON.stringify(status)}\nplans: ${JSON.stringify(plans)}\nsteps: ${JSON.stringify(steps, null, 1)}\nlogs:\n${logged}`);
    }
  };
  const containers = async (server: string) => (await serverExec(server, ['docker', 'ps', '--format', '{{.Names}} {{.Image}}'])).trim().split('\n').filter(Boolean);

  before(async function () {
    this.timeout(60_000);
    fleet = loadFleet();
    process.env.DEMO_REGISTRY_PASSWORD = 'unused-by-the-fleet-registry';
    process.env.DEMO_DATABASE_PASSWORD = 'e2e-db-password';
    process.env.DEMO_SSH_PRIVATE_KEY = privateKeyOf(fleet.servers[0]!);
    process.env.DEMO_WEB1_HOST = fleet.servers[0]!.host;
    process.env.DEMO_WEB2_HOST = fleet.servers[1]!.host;
    process.env.DEMO_REGISTRY = fleet.registry.address;
    process.env.DEMO_REGISTRY_USERNAME = fleet.registry.username ?? 'stevedore';
    dir = mkdtempSync(join(tmpdir(), 'manifests-e2e-'));
    for (const f of ['environment.yaml', 'servers.yaml', 'registry.yaml', 'services.yaml', 'config.yaml']) staged.set(f, fleetCopy(f));
    // The service starts on an empty folder; the test then "pulls" the example into it.
    svc = await startTestService({ MANIFESTS_DIR: dir, MANIFESTS_PRUNE: 'true' });
    admin = await bootstrapAdmin(svc.http);
  });
  after(async () => {
    await svc?.stop();
    for (const s of ['s1', 's2']) await serverExec(s, ['sh', '-c', 'docker rm -f api web 2>/dev/null; true']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the watcher applies the example folder and the containers run on both servers', async function () {
    this.timeout(120_000);
    for (const [f, content] of staged) writeFileSync(join(dir, f), content);
    const plan = await waitFor('a finished plan', async () => {
      const p = await lastPlan();
      return p && ['succeeded', 'failed', 'rolled_back', 'rollback_failed'].includes(p.status) && p;
    });
    const steps = await svc.services.db('plan_steps').where({ planId: plan.id });
    expect(plan.status, JSON.stringify(steps.map((s: any) => [s.containerName, s.status, s.error ?? s.message]))).to.equal('succeeded');
    expect(await planCount(), 'one burst of file writes gives one apply and one plan').to.equal(1);
    expect(await containers('s1')).to.include.members([`api ${fleet.images.webV1}`, `web ${fleet.images.webV1}`]);
    expect(await containers('s2')).to.include(`api ${fleet.images.webV1}`);
    const status = await admin.get('/api/manifests/status');
    expect(status.body.lastApplied.ok).to.equal(true);
    const health = await svc.http.get('/health');
    expect(health.body.manifests.lastAppliedRevision.contentHash).to.equal(status.body.lastApplied.revision.contentHash);
  });

  it('an edited tag is deployed by the watcher with no API call', async function () {
    this.timeout(120_000);
    const before = await planCount();
    writeFileSync(join(dir, 'services.yaml'), staged.get('services.yaml')!.replace('imageTag: v1               #', 'imageTag: v2               #'));
    await waitFor('a second plan to succeed', async () => (await planCount()) > before && (await lastPlan()).status === 'succeeded');
    expect(await containers('s1')).to.include(`api ${fleet.images.webV2}`);
    expect(await containers('s2')).to.include(`api ${fleet.images.webV2}`);
    expect(await containers('s1')).to.include(`web ${fleet.images.webV1}`);
  });

  it('an API PATCH of a manifest-owned field is refused naming the file', async () => {
    const env = await svc.services.db('environments').where({ name: 'demo' }).first();
    const api = (await admin.get(`/api/environments/${env.id}/services`)).body.items.find((s: any) => s.name === 'api');
    const res = await admin.patch(`/api/services/${api.id}`, { imageTag: 'v1' });
    expect(res.status).to.equal(409);
    expect(res.body.hint).to.include('services.yaml');
  });

  it('a broken file applies nothing and the status reports every error with its line', async function () {
    this.timeout(30_000);
    const applied = (await admin.get('/api/manifests/status')).body.lastApplied.revision;
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: x, environment: demo}\nspec: {hostname: h, sshPort: 0}\n---\nkind: [\n');
    try {
      const status = await until('a failed attempt', async () => {
        const st = (await admin.get('/api/manifests/status')).body;
        return st.lastAttempted && !st.lastAttempted.ok && st;
      }, WAIT);
      expect(status.lastAttempted.errors.map((e: any) => `${e.file}:${e.line}:${e.path}`)).to.include.members(['broken.yaml:4:spec/sshPort', 'broken.yaml:7:']);
      expect(status.lastApplied.revision).to.deep.equal(applied);
      expect(await svc.services.db('servers').where({ name: 'x' }).first()).to.equal(undefined);
    } finally {
      unlinkSync(join(dir, 'broken.yaml'));
    }
    await until('the folder to be valid again', async () => (await admin.get('/api/manifests/status')).body.lastAttempted.ok, WAIT);
  });

  it('deleting a file with pruning on removes its services and their containers', async function () {
    this.timeout(60_000);
    // config.yaml's config file is attached by services.yaml, so both go together.
    unlinkSync(join(dir, 'services.yaml'));
    await until('the services to be pruned', async () => Number((await svc.services.db('services').count({ n: '*' }))[0].n) === 0, WAIT);
    await until('the containers to go', async () => {
      const names = [...await containers('s1'), ...await containers('s2')].map((l) => l.split(' ')[0]);
      return !names.includes('api') && !names.includes('web');
    }, WAIT);
    // through a plan of remove steps, visible like any other
    const prune = await until('the prune plan to end', async () => {
      const p = await svc.services.db('deployment_plans').where({ trigger: 'manifest-prune' }).orderBy('createdAt', 'desc').first();
      return p && !['pending', 'running'].includes(p.status) && p;
    }, WAIT);
    expect(prune.status).to.equal('succeeded');
    const steps = await svc.services.db('plan_steps').where({ planId: prune.id });
    expect([...new Set(steps.map((x) => x.action))]).to.deep.equal(['remove']);
    expect(steps.map((x) => x.containerName)).to.include.members(['api', 'web']);
  });
});
