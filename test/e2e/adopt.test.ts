// Adopting what already runs: two containers started by hand on a fleet server (env, a port, a
// volume), exported as manifests, committed to a Git repository and applied to a fresh
// environment, keep their container ids; a later tag goes through a normal plan.
import { expect } from 'chai';
import { parseAllDocuments, stringify } from 'yaml';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { ageKeyPair, sopsFile } from '../support/sops-file.js';
import { until } from '../support/until.js';

const DB_PASSWORD = 'hand-run-db-password-7f3e1c';
const API_TOKEN = 'hand-run-api-token-2b9d04';
const TERMINAL = ['succeeded', 'failed', 'rolled_back', 'rollback_failed', 'cancelled'];
const NAMES = ['adopt-web', 'adopt-worker'];

describe('adopting hand-run containers through an export', function () {
  this.timeout(240_000);
  let fleet: Fleet;
  let svc: TestService;
  let admin: HttpClient;
  let origin: { id: string; name: string };
  let fresh: { id: string; name: string };
  let serverId: string;
  let repo: TestRepo;
  let keys: { identity: string; recipient: string };
  let exporting: Promise<string> | undefined;
  let adopting: Promise<{ status: string; id: string }> | undefined;
  const handRun: Record<string, { id: string; startedAt: string }> = {};
  const s1 = () => fleet.servers[0]!;

  const inspect = async (name: string) => {
    const [id, startedAt, labels, image] = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}}|{{.State.StartedAt}}|{{json .Config.Labels}}|{{.Config.Image}}', name])).trim().split('|');
    return { id: id!, startedAt: startedAt!, labels: JSON.parse(labels!) as Record<string, string>, image: image! };
  };
  const status = async () => (await admin.get(`/api/environments/${fresh.id}/manifests-source/status`)).body;
  const synced = (commit: string) => until(`commit ${commit.slice(0, 12)} applied`, async () => {
    const st = await status();
    return st.sync === 'Synced' && st.revision?.commit === commit && st;
  }, { timeoutMs: 60_000, everyMs: 200 }).catch(async (e) => { throw new Error(`${(e as Error).message}: ${JSON.stringify(await status())}`); });
  const planOf = (commit: string) => until('the plan to end', async () => {
    const p = await svc.services.db('deployment_plans').where({ environmentId: fresh.id, name: `manifests ${commit.slice(0, 12)}` }).first();
    return p && TERMINAL.includes(p.status) && p;
  }, { timeoutMs: 120_000, everyMs: 200 });
  const deploymentsOf = async (service: string) => {
    const list = (await admin.get(`/api/environments/${fresh.id}/services?limit=100`)).body.items as Array<{ id: string; name: string }>;
    const found = list.find((x) => x.name === service);
    expect(found, `service ${service}`).to.not.equal(undefined);
    return (await admin.get(`/api/services/${found!.id}/deployments`)).body.items as Array<{ adoptedContainerId: string | null; conditions: Array<{ type: string; status: string; reason: string; message: string }> }>;
  };
  const ready = async (service: string) => (await deploymentsOf(service))[0]!.conditions.find((c) => c.type === 'Ready');

  /** The export for the fresh environment, as a team would commit it: secret placeholders become SOPS files. */
  const asCommit = async (text: string, tagOfWeb?: string) => {
    const files: Record<string, string> = {};
    for (const doc of parseAllDocuments(text.replaceAll(`environment: ${origin.name}`, `environment: ${fresh.name}`))) {
      const m = doc.toJS() as { kind: string; metadata: { name: string }; spec: Record<string, any> };
      if (m.kind === 'Secret') {
        const value = m.metadata.name.endsWith('DB_PASSWORD') ? DB_PASSWORD : API_TOKEN;
        files[`deploy/${m.metadata.name}.sops.yaml`] = await sopsFile({ ...m, spec: { value } }, [keys.recipient]);
      } else {
        if (m.kind === 'Service' && m.metadata.name === 'adopt-web' && tagOfWeb) m.spec.imageTag = tagOfWeb;
        files[`deploy/${m.kind.toLowerCase()}-${m.metadata.name}.yaml`] = stringify(m);
      }
    }
    return files;
  };

  /** The server's export (each test runs alone with -g: the first one asking fetches it). */
  const exportOnce = () => exporting ??= admin.get(`/api/environments/${origin.id}/manifests/export?serverId=${serverId}`).then((r) => {
    expect(r.status, r.text).to.equal(200);
    return r.text;
  });
  /** The export committed and applied to the fresh environment: its plan once ended. */
  const adoptOnce = () => adopting ??= (async () => {
    const sha = repo.commit(await asCommit(await exportOnce()), 'adopt the hand-run containers');
    const put = await admin.put(`/api/environments/${fresh.id}/manifests-source`, { url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 1 });
    expect(put.status, put.text).to.equal(200);
    await synced(sha);
    return planOf(sha);
  })();

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService({ SCHEDULER_GIT_POLL_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    origin = await createEnvironment(admin);
    fresh = await createEnvironment(admin);
    for (const e of [origin, fresh]) expect((await admin.put(`/api/environments/${e.id}/ssh-key`, { privateKey: privateKeyOf(s1()) })).status).to.equal(200);
    const created = await admin.post(`/api/environments/${origin.id}/servers`, { name: 's1', hostname: s1().host, sshPort: s1().port, sshUser: s1().user });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    keys = await ageKeyPair();
    expect((await admin.put(`/api/environments/${fresh.id}/age-key`, { identity: keys.identity })).status).to.equal(200);
    repo = createRepo();
    await serverExec('s1', ['sh', '-c', `docker rm -f ${NAMES.join(' ')} 2>/dev/null; docker volume rm adopt-web-data 2>/dev/null; mkdir -p /srv/adopt; true`]);
    // started by hand, as a team runs them before Stevedore: env (a secret among it), a port, a volume
    await serverExec('s1', ['docker', 'run', '-d', '--name', 'adopt-web', '--restart', 'unless-stopped', '-e', 'MODE=prod',
      '-e', `DB_PASSWORD=${DB_PASSWORD}`, '-p', '18081:80', '-v', 'adopt-web-data:/data', fleet.images.webV1]);
    await serverExec('s1', ['docker', 'run', '-d', '--name', 'adopt-worker', '--restart', 'unless-stopped', '-e', 'QUEUE=jobs', '-e', `API_TOKEN=${API_TOKEN}`,
      '-v', '/srv/adopt:/work', fleet.images.busybox, 'sleep', '3600']);
    for (const n of NAMES) handRun[n] = await inspect(n);
  });
  after(async () => {
    await svc?.stop();
    repo?.remove();
    await serverExec('s1', ['sh', '-c', `docker rm -f ${NAMES.join(' ')} 2>/dev/null; docker volume rm adopt-web-data 2>/dev/null; true`]).catch(() => undefined);
  });

  it('exports the containers no service owns as manifests adopting them by id, with no secret value', async () => {
    const res = await admin.get(`/api/environments/${origin.id}/manifests/export?serverId=${serverId}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/yaml/);
    const exported = res.text;
    expect(exported).to.not.include(DB_PASSWORD).and.not.include(API_TOKEN);
    const docs = parseAllDocuments(exported).map((d) => d.toJS());
    const web = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'adopt-web');
    expect(web.spec).to.deep.include({
      imageTag: 'v1', env: { DB_PASSWORD: '${ADOPT_WEB_DB_PASSWORD}', MODE: 'prod' }, ports: ['18081:80/tcp'], volumes: ['adopt-web-data:/data'],
      deployments: [{ server: 's1', containerName: 'adopt-web', adoptContainerId: handRun['adopt-web']!.id }],
    });
    const worker = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'adopt-worker');
    expect(worker.spec).to.deep.include({ command: ['sleep', '3600'], env: { API_TOKEN: '${ADOPT_WORKER_API_TOKEN}', QUEUE: 'jobs' }, volumes: ['/srv/adopt:/work'] });
    expect(docs.filter((d) => d.kind === 'Secret').map((d) => d.metadata.name).sort()).to.deep.equal(['ADOPT_WEB_DB_PASSWORD', 'ADOPT_WORKER_API_TOKEN']);
    expect(docs.find((d) => d.kind === 'Server')!.spec).to.include({ hostname: s1().host, sshPort: s1().port });
  });

  it('applying the export to a fresh environment adopts both containers with their ids unchanged', async () => {
    const plan = await adoptOnce();
    expect(plan.status, JSON.stringify(await svc.services.db('plan_steps').where({ planId: plan.id }))).to.equal('succeeded');
    for (const n of NAMES) {
      const now = await inspect(n);
      expect(now.id, n).to.equal(handRun[n]!.id);
      expect(now.startedAt, `${n} was not restarted`).to.equal(handRun[n]!.startedAt);
      expect(Object.keys(now.labels).filter((l) => l.startsWith('stevedore.')), n).to.deep.equal([]);
    }
    for (const n of NAMES) {
      const r = await until(`${n} reported adopted`, async () => {
        const c = await ready(n);
        return c?.reason === 'Adopted' && c;
      }, { timeoutMs: 30_000, everyMs: 200 });
      expect(r.message).to.include(handRun[n]!.id.slice(0, 12)).and.include('adopted');
      expect((await deploymentsOf(n))[0]!.adoptedContainerId).to.equal(handRun[n]!.id);
    }
    // owned now (by the fresh environment's deployments on the same machine): exported by no one again
    const again = await admin.get(`/api/environments/${origin.id}/manifests/export?serverId=${serverId}`);
    expect(again.status).to.equal(200);
    expect(parseAllDocuments(again.text).map((d) => d.toJS()).filter((d) => d.kind === 'Service')).to.deep.equal([]);
  });

  it('a later tag replaces the adopted container through a normal plan, under Stevedore\'s labels', async () => {
    expect((await adoptOnce()).status).to.equal('succeeded');
    const sha = repo.commit(await asCommit(await exportOnce(), 'v2'), 'web v2');
    await synced(sha);
    const plan = await planOf(sha);
    expect(plan.status, JSON.stringify(await svc.services.db('plan_steps').where({ planId: plan.id }))).to.equal('succeeded');
    const web = await inspect('adopt-web');
    expect(web.id).to.not.equal(handRun['adopt-web']!.id);
    expect(web.image).to.equal(fleet.images.webV2);
    expect(web.labels).to.include({ 'stevedore.managed': 'true', 'stevedore.environment-id': fresh.id });
    const envOf = await serverExec('s1', ['docker', 'inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', 'adopt-web']);
    expect(envOf).to.include(`DB_PASSWORD=${DB_PASSWORD}`).and.include('MODE=prod');
    const mounts = await serverExec('s1', ['docker', 'inspect', '--format', '{{range .Mounts}}{{.Name}}:{{.Destination}} {{end}}', 'adopt-web']);
    expect(mounts).to.include('adopt-web-data:/data');
    const r = await until('adopt-web no longer adopted', async () => {
      const c = await ready('adopt-web');
      return c && c.reason !== 'Adopted' && c.status === 'True' && c;
    }, { timeoutMs: 30_000, everyMs: 200 });
    expect(r.reason).to.be.oneOf(['Running', 'Healthy']);
    // the worker was not part of that change: still the hand-run container, still adopted
    expect((await inspect('adopt-worker')).id).to.equal(handRun['adopt-worker']!.id);
    expect((await ready('adopt-worker'))!.reason).to.equal('Adopted');
  });

  it('only an admin exports (it reads the env of running containers)', async () => {
    const operator = (await userWithRole(admin, 'operator')).client;
    expect((await operator.get(`/api/environments/${origin.id}/manifests/export?serverId=${serverId}`)).status).to.equal(403);
  });
});
