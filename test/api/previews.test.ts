// Previews of a Git source (docs/git-sources.md#previews) against real repositories (file://) and
// real PostgreSQL: the config's validation and access, the signed pull_request webhook, the list
// and who may read it, a preview that fails before it reaches a server, and its TTL. Containers on
// servers are the fleet's (test/e2e/git-previews.test.ts).
import { expect } from 'chai';
import crypto from 'node:crypto';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { expectError, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { until } from '../support/until.js';
import { reconcilePreview } from '../../controller/manifests/git/sync-preview.js';
import { CliHome } from '../support/cli-run.js';

const SECRET = 'codehost-secret-for-preview-tests';
const PREVIEWS = { pullRequests: true, serverSelector: { matchLabels: { previews: 'yes' } }, secrets: ['DB_URL'], hostTemplate: 'pr-{number}.preview.test', ttlHours: 2 };

describe('previews of a Git source', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let viewer: HttpClient;
  let operator: HttpClient;
  let repo: TestRepo;
  let env: { id: string; name: string };
  let other: { id: string; name: string };

  const hub = (raw: string, secret = SECRET) => `sha256=${crypto.createHmac('sha256', secret).update(raw).digest('hex')}`;
  const payload = (action: string, number: number, sha: string, base = 'main', url = repo.url) => JSON.stringify({
    action, number,
    pull_request: { number, state: action === 'closed' ? 'closed' : 'open', head: { ref: `feature-${number}`, sha, repo: { clone_url: url } }, base: { ref: base, repo: { clone_url: url } } },
    repository: { clone_url: url, default_branch: 'main' },
  });
  const send = (raw: string, signature: string | null = hub(raw), event = 'pull_request') => svc.http.post('/api/webhooks/git', undefined, {
    raw, token: null, headers: { 'content-type': 'application/json', 'x-github-event': event, ...(signature !== null && { 'x-hub-signature-256': signature }) },
  });
  const pushPr = (number: number, files: Record<string, string | null>) => {
    const sha = repo.commit(files, `pull request ${number}`, `feature-${number}`);
    repo.git('push', '-q', '-f', 'origin', `HEAD:refs/pull/${number}/head`);
    return sha;
  };
  const previews = async (client = admin) => (await client.get(`/api/environments/${env.id}/previews`)).body.items as any[];
  const settled = (number: number) => until(`preview #${number} to settle`, async () => {
    const p = (await previews()).find((x) => x.number === number);
    return p && p.state !== 'pending' && p;
  }, { timeoutMs: 20_000, everyMs: 100 });
  const service = (envYaml: string) => `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env.name}}\nspec: {imageName: registry.example/web}\n---\n`
    + `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: shop, environment: ${env.name}}\nspec:\n  image: web\n  imageTag: v1\n  env:\n${envYaml}`;

  before(async () => {
    svc = await startTestService({ CODEHOST_WEBHOOK_SECRET: SECRET, SCHEDULER_GIT_POLL_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    viewer = (await userWithRole(admin, 'viewer')).client;
    operator = (await userWithRole(admin, 'operator')).client;
    env = await createEnvironment(admin);
    other = await createEnvironment(admin);
    repo = createRepo();
    repo.commit({ 'readme.yaml': '# nothing yet\n' }, 'main');
    for (const [key, value] of [['DB_URL', 'postgres://allowed'], ['STRIPE_KEY', 'sk_live_forbidden_value']]) {
      expect((await admin.post(`/api/environments/${env.id}/secrets`, { key, value })).status).to.equal(201);
    }
  });
  after(async () => {
    await svc?.stop();
    repo?.remove();
  });

  describe('the config', () => {
    const put = (client: HttpClient, previews: unknown) => client.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 0, previews });

    it('refuses what a preview cannot be made of, in the error envelope with the field, and changes nothing', async () => {
      expect((await put(admin, null)).status).to.equal(200);
      const cases: Array<[unknown, string]> = [
        [{ pullRequests: true }, 'previews'],
        [{ ...PREVIEWS, serverSelector: { matchLabels: {} } }, 'previews.serverSelector.matchLabels'],
        [{ ...PREVIEWS, hostTemplate: 'preview.example.com' }, 'previews.hostTemplate'],
        [{ ...PREVIEWS, secrets: ['not a key'] }, 'previews.secrets'],
        [{ ...PREVIEWS, ttlHours: 0 }, 'previews.ttlHours'],
        [{ ...PREVIEWS, branches: 'feature/*' }, 'previews.branches'],
      ];
      for (const [body, field] of cases) {
        const r = await put(admin, body);
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).to.equal(400);
        expect(r.body.code).to.equal('VALIDATION_ERROR');
        expect(r.body.field ?? '', JSON.stringify(body)).to.match(new RegExp(`^${field.replace(/\./g, '[./]')}`));
      }
      expect((await admin.get(`/api/environments/${env.id}/manifests-source`)).body.previews).to.equal(null);
    });

    it('is set with the source (admin), shown in its read, kept by a PUT that omits it; viewers and operators may not set it', async () => {
      expect((await put(viewer, PREVIEWS)).status).to.equal(403);
      expect((await put(operator, PREVIEWS)).status).to.equal(403);
      const r = await put(admin, PREVIEWS);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.previews).to.deep.equal(PREVIEWS);
      const kept = await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 0 });
      expect(kept.body.previews).to.deep.equal(PREVIEWS);
      expect((await viewer.get(`/api/environments/${env.id}/manifests-source`)).body.previews).to.deep.equal(PREVIEWS);
    });
  });

  describe('POST /api/webhooks/git pull_request', () => {
    it('unsigned or badly signed: 401, and nothing is stored', async () => {
      const raw = payload('opened', 3, 'c'.repeat(40));
      expect((await send(raw, null)).status).to.equal(401);
      expect((await send(raw, hub(raw, 'wrong'))).status).to.equal(401);
      expect(await svc.services.previews.listAll()).to.deep.equal([]);
    });

    it('another repository, another base branch, an action previews do not follow, or a source without previews: 200 ignored, nothing stored', async () => {
      const otherRepo = createRepo('elsewhere');
      try {
        expect((await other.id) && (await admin.put(`/api/environments/${other.id}/manifests-source`, { url: otherRepo.url, pollIntervalSec: 0 })).status).to.equal(200);
        for (const raw of [payload('opened', 4, 'd'.repeat(40), 'main', otherRepo.url), payload('opened', 4, 'd'.repeat(40), 'develop'),
          payload('labeled', 4, 'd'.repeat(40)), payload('closed', 4, 'd'.repeat(40))]) {
          const r = await send(raw);
          expect(r.status, r.text).to.equal(200);
          expect(r.body.ignored).to.equal(true);
        }
        expect(await svc.services.previews.listAll()).to.deep.equal([]);
      } finally {
        otherRepo.remove();
      }
    });

    it('opened: the preview is stored before the 202; without a labelled server of the parent it fails, saying so', async () => {
      const sha = pushPr(5, { 'app.yaml': service('    DB_URL: "${DB_URL}"\n') });
      const r = await send(payload('opened', 5, sha));
      expect(r.status, r.text).to.equal(202);
      expect(r.body.previews).to.deep.equal([{ environmentId: env.id, environment: env.name, number: 5, previewEnvironment: `${env.name}-pr-5`, open: true, headSha: sha }]);
      const row = (await svc.services.previews.listAll()).find((p) => p.number === 5)!;
      expect(row).to.include({ headSha: sha, headRef: 'feature-5', open: true });
      const p = await settled(5);
      expect(p).to.include({ state: 'failed', number: 5, branch: 'feature-5', headSha: sha, environmentName: `${env.name}-pr-5`, url: 'https://pr-5.preview.test' });
      expect(p.reason).to.equal(`no server of ${env.name} matches previews.serverSelector`);
      expect(new Date(p.expiresAt).getTime() - new Date(p.updatedAt).getTime()).to.be.within(2 * 3600_000 - 5000, 2 * 3600_000 + 5000);
      const after = (await svc.services.previews.listAll()).find((x) => x.number === 5)!;
      expect(after.observedGeneration).to.equal(after.generation);
      expect(after.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)).to.have.members(['Ready=False/NoServers', 'Progressing=False/Idle', 'Degraded=True/NoServers']);
    });

    it('a parent secret previews.secrets does not list fails the preview by name; its value is in no answer', async () => {
      await insertServer(svc, env.id, 'labelled').then((s) => svc.services.db('servers').where({ id: s.id }).update({ labels: JSON.stringify({ previews: 'yes' }) }));
      const sha = pushPr(6, { 'app.yaml': service('    DB_URL: "${DB_URL}"\n    PAY: "${STRIPE_KEY}"\n') });
      expect((await send(payload('opened', 6, sha))).status).to.equal(202);
      const p = await settled(6);
      expect(p.state).to.equal('failed');
      expect(p.reason).to.contain(`a preview may not use the secret STRIPE_KEY of ${env.name}: previews.secrets does not list it (it lists DB_URL)`);
      expect(p.reason).to.contain('app.yaml:');
      const text = JSON.stringify([await previews(), svc.logs]);
      expect(text).to.not.contain('sk_live_forbidden_value');
      expect((await admin.get(`/api/environments/${p.environmentId}/services`)).body.items, 'nothing applied').to.deep.equal([]);
    });

    it('closed: the preview environment is deleted and the preview is no longer listed', async () => {
      const before = (await previews()).find((x) => x.number === 6);
      const r = await send(payload('closed', 6, before.headSha));
      expect(r.status, r.text).to.equal(202);
      await until('preview #6 gone', async () => !(await previews()).some((x) => x.number === 6), { timeoutMs: 20_000, everyMs: 100 });
      expect((await admin.get(`/api/environments/${before.environmentId}`)).status).to.equal(404);
    });
  });

  describe('resuming', () => {
    it('a preview stored but never queued (its process died after the 202) and held by a dead process\'s lease is taken up once the lease ran out', async () => {
      const sha = pushPr(9, { 'app.yaml': `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: FROM_PR, environment: ${env.name}}\nspec: {value: "nine"}\n` });
      const source = (await svc.services.gitSources.ofEnvironment(env.id))!;
      // what the webhook stores before its 202, without handing the key to this process's queue
      const row = (await svc.services.previews.desire({ sourceId: source.id, environmentId: env.id, number: 9, headSha: sha, headRef: 'feature-9', open: true }))!;
      expect(await svc.services.previews.claim(row.id, 'a-controller-killed-mid-pass', 3000)).to.not.equal(null);
      const leaseEnds = Date.now() + 3000;
      const p = await settled(9);
      expect(Date.now(), 'not before the dead lease ran out').to.be.at.least(leaseEnds - 200);
      expect(p, p.reason).to.include({ state: 'ready', appliedCommit: sha });
      const vars = (await admin.get(`/api/environments/${p.environmentId}/vars`)).body.items;
      expect(vars.map((v: any) => `${v.key}=${v.value}`)).to.deep.equal(['FROM_PR=nine']);
      const after = (await svc.services.previews.findById(row.id))!;
      expect(after).to.include({ leaseOwner: null, observedGeneration: after.generation });
      expect((await send(payload('closed', 9, sha))).status).to.equal(202);
      // it was placed on the labelled server, which cannot be reached: it stays deleting and says why, until the server can be or is gone
      const stuck = await until('preview #9 waiting for its server', async () => (await previews()).find((x) => x.number === 9 && /could not clean labelled up yet/.test(x.reason ?? '')), { timeoutMs: 30_000, everyMs: 200 });
      expect(stuck.state).to.equal('deleting');
      await svc.services.db('servers').where({ environmentId: env.id, name: 'labelled' }).delete();
      await until('preview #9 gone', async () => !(await previews()).some((x) => x.number === 9), { timeoutMs: 20_000, everyMs: 100 });
    });
  });

  describe('GET /api/environments/{envId}/previews', () => {
    it('a viewer of the parent reads it; a caller limited to another environment gets what every route of this one answers it', async () => {
      expect((await previews(viewer)).map((x) => x.number)).to.deep.equal([5]);
      const me = (await admin.get('/api/auth/me')).body;
      const limited = await apiToken(admin, me.id, { environmentIds: [other.id] });
      const list = await limited.get(`/api/environments/${env.id}/previews`);
      const source = await limited.get(`/api/environments/${env.id}/manifests-source/status`);
      expect([403, 404]).to.include(list.status);
      expect(list.status).to.equal(source.status);
      expect(list.body.code).to.equal(source.body.code);
      expect(list.text).to.not.contain('pr-5');
    });

    it('stevedore get previews -e ENV prints them', async () => {
      const home = new CliHome();
      const res = await home.run(['get', 'previews', '-e', env.name], { env: { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! } });
      expect(res.code, res.stderr).to.equal(0);
      const [header, row] = res.stdout.trim().split('\n');
      expect(header).to.match(/^PR\s+ENVIRONMENT\s+STATE\s+HEAD\s+URL\s+REASON/i);
      expect(row).to.match(new RegExp(`^#5\\s+${env.name}-pr-5\\s+failed\\s+[0-9a-f]{12}\\s+https://pr-5\\.preview\\.test\\s+no server of`));
    });

    it('the source cannot be deleted while it has previews (nobody would tear them down)', async () => {
      const r = await admin.delete(`/api/environments/${env.id}/manifests-source`);
      expectError(r, 409, 'CONFLICT');
      expect(r.body.message).to.contain('#5');
      expect((await admin.get(`/api/environments/${env.id}/manifests-source`)).status).to.equal(200);
    });

    it('a preview past its TTL is torn down by the next look', async () => {
      const row = (await svc.services.previews.listAll()).find((p) => p.number === 5)!;
      await svc.services.db('previews').where({ id: row.id }).update({ desiredAt: new Date(Date.now() - 3 * 3600_000) });
      await reconcilePreview(svc.services, `${row.sourceId}/5`);
      await until('preview #5 expired and gone', async () => !(await previews()).some((x) => x.number === 5), { timeoutMs: 20_000, everyMs: 100 });
      expect((await admin.get(`/api/environments/${row.previewEnvironmentId}`)).status).to.equal(404);
      expect(await svc.services.previews.listAll()).to.deep.equal([]);
      expect((await admin.delete(`/api/environments/${env.id}/manifests-source`)).status, 'no preview left').to.equal(204);
    });
  });
});
