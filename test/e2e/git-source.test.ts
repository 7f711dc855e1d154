// An environment's Git source against the fleet: a bare repository served by `git daemon` on the
// fleet's bridge (and one over ssh on a fleet server), its commits applied through plans; a SOPS
// secret reaching a container; poll, push webhook, a broken commit, prune; a changed host key.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverCtl, serverExec, type Fleet } from '../fleet/fleet.js';
import { createRepo, git, type TestRepo } from '../support/git-repo.js';
import { ageKeyPair, sopsFile } from '../support/sops-file.js';
import { until } from '../support/until.js';

const SECRET = 'git-source-e2e-webhook-secret';
const APP_SECRET = 'app-secret-from-sops-4d2a9e';
const TERMINAL = ['succeeded', 'failed', 'rolled_back', 'rollback_failed', 'cancelled'];

const freePort = () => new Promise<number>((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as { port: number };
    srv.close(() => resolve(port));
  });
});

describe('Git source against the fleet', function () {
  this.timeout(180_000);
  let fleet: Fleet;
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  let repo: TestRepo;
  let daemon: ChildProcess;
  let url: string;
  let keys: { identity: string; recipient: string };
  const s1 = () => fleet.servers[0]!;

  const status = async (envId = env.id) => (await admin.get(`/api/environments/${envId}/manifests-source/status`)).body;
  const settled = (what: string, pred: (st: any) => boolean, envId = env.id) => until(what, async () => {
    const st = await status(envId);
    return st.sync !== 'Syncing' && pred(st) && st;
  }, { timeoutMs: 60_000, everyMs: 100 }).catch(async (e) => { throw new Error(`${(e as Error).message}: ${JSON.stringify(await status(envId))}`); });
  const plansOf = () => svc.services.db('deployment_plans').where({ environmentId: env.id }).orderBy('createdAt', 'asc');
  const finished = (id: string) => until('the plan to end', async () => {
    const p = await svc.services.db('deployment_plans').where({ id }).first();
    return p && TERMINAL.includes(p.status) && p;
  }, { timeoutMs: 90_000, everyMs: 200 }).catch(async (e) => {
    // what the plan was doing when the wait ran out, from its steps' logs
    const steps = await svc.services.db('plan_steps').where({ planId: id }).select('status', 'log', 'error');
    throw new Error(`${(e as Error).message}; steps: ${JSON.stringify(steps)}`);
  });
  const containers = async () => (await serverExec('s1', ['docker', 'ps', '--format', '{{.Names}} {{.Image}}'])).trim().split('\n').filter(Boolean);

  const files = (tag: string, extra: Record<string, string | null> = {}) => ({
    'deploy/servers.yaml': `apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: web-1, environment: ${env.name}}\nspec: {hostname: ${s1().host}, sshPort: ${s1().port}, sshUser: ${s1().user}}\n`,
    'deploy/image.yaml': `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env.name}}\nspec: {imageName: ${fleet.registry.address}/stevedore-test/web}\n`,
    'deploy/service.yaml': `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: gitweb, environment: ${env.name}}\nspec:\n  image: web\n  imageTag: ${tag}\n`
      + '  env: {APP_SECRET: "${APP_SECRET}"}\n  deployments:\n    - server: web-1\n',
    ...extra,
  });

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService({ CODEHOST_WEBHOOK_SECRET: SECRET, SCHEDULER_GIT_POLL_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    expect((await admin.put(`/api/environments/${env.id}/ssh-key`, { privateKey: privateKeyOf(s1()) })).status).to.equal(200);
    keys = await ageKeyPair();
    expect((await admin.put(`/api/environments/${env.id}/age-key`, { identity: keys.identity })).status).to.equal(200);
    repo = createRepo();
    // git daemon on the fleet bridge's host address (where the fleet's registry listens too)
    const host = fleet.registry.address.split(':')[0];
    const port = await freePort();
    const base = dirname(repo.bare);
    daemon = spawn('git', ['daemon', '--reuseaddr', '--export-all', `--base-path=${base}`, `--listen=${host}`, `--port=${port}`, base], { stdio: 'ignore' });
    url = `git://${host}:${port}/manifests.git`;
    await until('git daemon to answer', async () => {
      try {
        git(base, 'ls-remote', url);
        return true;
      } catch {
        return false;
      }
    }, { timeoutMs: 10_000, everyMs: 100 });
  });
  after(async () => {
    daemon?.kill();
    await svc?.stop();
    repo?.remove();
    await serverExec('s1', ['sh', '-c', 'docker rm -f gitweb 2>/dev/null; true']).catch(() => undefined);
  });

  it('applies the source, reports Synced with the commit, and the SOPS secret reaches the container', async () => {
    const sha = repo.commit({
      ...files('v1'),
      'deploy/secret.sops.yaml': await sopsFile({ apiVersion: 'stevedore/v1', kind: 'Secret', metadata: { name: 'APP_SECRET', environment: env.name }, spec: { value: APP_SECRET } }, [keys.recipient]),
    }, 'gitweb v1');
    const put = await admin.put(`/api/environments/${env.id}/manifests-source`, { url, ref: 'main', path: 'deploy', pollIntervalSec: 1, prune: true });
    expect(put.status, put.text).to.equal(200);
    const st = await settled('Synced', (x) => x.sync === 'Synced');
    expect(st.revision).to.include({ commit: sha, message: 'gitweb v1' });
    const [plan] = await plansOf();
    expect(plan.name).to.equal(`manifests ${sha.slice(0, 12)}`);
    expect((await finished(plan.id)).status).to.equal('succeeded');
    const revision = await svc.services.db('service_revisions').orderBy('createdAt', 'desc').first();
    expect(revision.createdBy).to.equal(`manifests ${sha.slice(0, 12)}`);
    expect(await containers()).to.include(`gitweb ${fleet.images.webV1}`);
    const envOf = await serverExec('s1', ['docker', 'inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', 'gitweb']);
    expect(envOf).to.include(`APP_SECRET=${APP_SECRET}`);
  });

  it('the SOPS value is in no log, response, event or cache file', async () => {
    const texts = [svc.logs.join('\n'), JSON.stringify(await status()), (await admin.get(`/api/environments/${env.id}/secrets`)).text,
      JSON.stringify(await svc.services.db('events')), JSON.stringify(await svc.services.db('audit_logs')),
      JSON.stringify(await svc.services.db('deployment_plans')), JSON.stringify(await svc.services.db('plan_steps')), JSON.stringify(await svc.services.db('service_revisions'))];
    for (const t of texts) expect(t).to.not.include(APP_SECRET);
    const cache = join(svc.stateDir, 'git-cache');
    for (const e of readdirSync(cache, { recursive: true, withFileTypes: true }).filter((x) => x.isFile())) {
      const raw = readFileSync(join(e.parentPath, e.name));
      let inflated = '';
      try { inflated = inflateSync(raw).toString('latin1'); } catch { /* not a loose object */ }
      expect(raw.toString('latin1') + inflated, e.name).to.not.include(APP_SECRET);
    }
  });

  it('a new commit arrives by poll and is rolled out', async () => {
    const sha = repo.commit(files('v2'), 'gitweb v2');
    await settled('the polled commit', (x) => x.sync === 'Synced' && x.revision.commit === sha);
    const plan = (await plansOf()).at(-1);
    expect(plan.name).to.equal(`manifests ${sha.slice(0, 12)}`);
    expect((await finished(plan.id)).status).to.equal('succeeded');
    expect(await containers()).to.include(`gitweb ${fleet.images.webV2}`);
  });

  it('a signed push webhook starts the plan within 2 s; a bad signature is 401', async () => {
    await admin.put(`/api/environments/${env.id}/manifests-source`, { url, ref: 'main', path: 'deploy', pollIntervalSec: 0, prune: true });
    await settled('webhook-only', (x) => x.sync === 'Synced');
    const sha = repo.commit(files('v1'), 'back to v1');
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: url, default_branch: 'main' } });
    const sig = `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const bad = await svc.http.post('/api/webhooks/git', undefined, { raw: body, token: null, headers: { 'x-github-event': 'push', 'x-hub-signature-256': sig.replace(/.$/, (c) => (c === '0' ? '1' : '0')) } });
    expect(bad.status).to.equal(401);
    const before = (await plansOf()).length;
    const t0 = Date.now();
    const r = await svc.http.post('/api/webhooks/git', undefined, { raw: body, token: null, headers: { 'x-github-event': 'push', 'x-hub-signature-256': sig } });
    expect(r.status).to.equal(202);
    const plan = await until('a plan for the pushed commit', async () => {
      const list = await plansOf();
      return list.length > before && list.at(-1);
    }, { timeoutMs: 10_000, everyMs: 20 });
    const took = Date.now() - t0;
    expect(plan.name).to.equal(`manifests ${sha.slice(0, 12)}`);
    expect(took, `push → plan start took ${took} ms`).to.be.below(2000);
    expect((await finished(plan.id)).status).to.equal('succeeded');
  });

  it('a broken commit leaves the last good one applied and running, and reports Failed with file:line', async () => {
    const good = (await status()).revision.commit;
    repo.commit({ 'deploy/service.yaml': files('v2')['deploy/service.yaml'].replace('imageTag: v2', 'imageTag: v2\n  bogus: true') }, 'broken');
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    const st = await settled('Failed', (x) => x.sync === 'Failed');
    expect(st.revision.commit).to.equal(good);
    expect(st.error).to.match(/service\.yaml:\d+:\d+/);
    expect(st.errors[0].file).to.equal('service.yaml');
    expect(svc.logs.some((l) => l.includes('manifests: not applied') && /service\.yaml:\d+/.test(l))).to.equal(true);
    expect(await containers()).to.include(`gitweb ${fleet.images.webV1}`);
  });

  it('prune removes what a commit deleted, through a plan of remove steps', async () => {
    repo.commit({ 'deploy/service.yaml': null }, 'drop gitweb');
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    await settled('Synced without the service', (x) => x.sync === 'Synced' && x.revision.message === 'drop gitweb');
    const plan = (await plansOf()).at(-1);
    expect(plan.name).to.match(/^prune gitweb/);
    expect((await finished(plan.id)).status).to.equal('succeeded');
    const steps = await svc.services.db('plan_steps').where({ planId: plan.id });
    expect(steps.map((x: any) => x.action)).to.deep.equal(['remove']);
    expect((await containers()).some((c) => c.startsWith('gitweb '))).to.equal(false);
  });

  describe('over ssh with a deploy key', () => {
    let sshEnv: { id: string; name: string };
    let work: TestRepo;
    const s2 = () => fleet.servers[1]!;
    before(async () => {
      await serverExec('s2', ['sh', '-c', 'rm -rf /srv/git && mkdir -p /srv/git && git init -q --bare --initial-branch=main /srv/git/m.git']);
      sshEnv = await createEnvironment(admin);
      work = createRepo('unused');
      const kh = process.env.FLEET_KNOWN_HOSTS ?? join(dirname(s2().privateKeyPath), '..', 'known_hosts');
      work.git('remote', 'set-url', 'origin', `ssh://${s2().user}@${s2().host}:${s2().port}/srv/git/m.git`);
      work.git('config', 'core.sshCommand', `ssh -F /dev/null -i ${s2().privateKeyPath} -o UserKnownHostsFile=${kh} -o StrictHostKeyChecking=no -o BatchMode=yes`);
    });
    after(() => work?.remove());

    it('fetches with the deploy key, pins the host key, and refuses a changed one', async () => {
      const sha = work.commit({ 'v.yaml': `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: OVER_SSH, environment: ${sshEnv.name}}\nspec: {value: "1"}\n` }, 'over ssh');
      const put = await admin.put(`/api/environments/${sshEnv.id}/manifests-source`, {
        url: `${s2().user}@${s2().host}:/srv/git/m.git`, pollIntervalSec: 0, sshPrivateKey: privateKeyOf(s2()),
      });
      expect(put.status, put.text).to.equal(200);
      expect(put.body).to.include({ hasSshPrivateKey: true });
      expect(put.text).to.not.include('PRIVATE KEY');
      const st = await settled('Synced over ssh', (x) => x.sync === 'Synced', sshEnv.id);
      expect(st.revision.commit).to.equal(sha);
      const pinned = (await admin.get(`/api/environments/${sshEnv.id}/manifests-source`)).body.sshKnownHosts;
      expect(pinned).to.include(s2().host).and.match(/ssh-ed25519|ecdsa|ssh-rsa/);
      await serverCtl('s2', 'rotate-hostkey');
      work.git('config', 'core.sshCommand', `ssh -F /dev/null -i ${s2().privateKeyPath} -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o BatchMode=yes`);
      work.commit({ 'w.yaml': `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: AFTER, environment: ${sshEnv.name}}\nspec: {value: "2"}\n` }, 'after rotation');
      await admin.post(`/api/environments/${sshEnv.id}/manifests-source/sync`, {});
      const failed = await settled('the changed host key refused', (x) => x.sync === 'Failed', sshEnv.id);
      expect(failed.error).to.include('host key').and.include(s2().host);
      expect(failed.revision.commit).to.equal(sha);
    });
  });
});
