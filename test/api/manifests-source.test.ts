// An environment's Git source against real repositories (file://): the routes, the status, a
// broken commit, ownership, prune through plans, and the push webhook's signatures.
import { expect } from 'chai';
import crypto from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { TEST_GIT_ROOT } from '../support/git-file-roots.js';
import { until } from '../support/until.js';
import { ageKeyPair, sopsFile } from '../support/sops-file.js';
import { inflateSync } from 'node:zlib';

const SECRET = 'codehost-secret-for-tests';
const varDoc = (env: string, name: string, value: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: ${name}, environment: ${env}}\nspec: {value: "${value}"}\n`;

describe('manifests source (Git) routes', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let viewer: HttpClient;
  let repo: TestRepo;
  let env: { id: string; name: string };

  const status = async () => (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
  const settled = (what: string, pred: (st: any) => boolean) => until(what, async () => {
    const st = await status();
    return st.sync !== 'Syncing' && pred(st) && st;
  }, { timeoutMs: 20_000, everyMs: 100 });
  const vars = async () => (await admin.get(`/api/environments/${env.id}/vars?limit=200`)).body.items as Array<{ id: string; key: string; value: string }>;

  before(async () => {
    svc = await startTestService({ CODEHOST_WEBHOOK_SECRET: SECRET, SCHEDULER_GIT_POLL_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    viewer = (await userWithRole(admin, 'viewer')).client;
    env = await createEnvironment(admin);
    repo = createRepo();
  });
  after(async () => {
    await svc?.stop();
    repo?.remove();
  });

  it('answers 404 before a source is set, and refuses URLs git must not be handed', async () => {
    expect((await admin.get(`/api/environments/${env.id}/manifests-source`)).status).to.equal(404);
    expect((await admin.get(`/api/environments/${env.id}/manifests-source/status`)).status).to.equal(404);
    for (const url of ['--upload-pack=touch /tmp/x', 'ext::sh -c touch% /tmp/pwned', 'https://user:pw@example.test/r.git', 'file://host/x']) {
      const r = await admin.put(`/api/environments/${env.id}/manifests-source`, { url });
      expect(r.status, url).to.equal(400);
      expect(r.body.field).to.equal('url');
    }
    const token = await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, token: 't0ken' });
    expect(token.status).to.equal(400);
    expect(token.body.field).to.equal('token');
  });

  it('a viewer reads but may not set a source', async () => {
    expect((await viewer.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url })).status).to.equal(403);
  });

  it('applies the commit at once and reports Synced with the commit, its author and message', async () => {
    const sha = repo.commit({ 'deploy/vars.yaml': varDoc(env.name, 'GREETING', 'hello'), 'README.md': 'not a manifest' }, 'first vars');
    const put = await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 0, prune: true });
    expect(put.status).to.equal(200);
    expect(put.body).to.include({ url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 0, prune: true, hasToken: false, hasSshPrivateKey: false });
    const st = await settled('Synced', (x) => x.sync === 'Synced');
    expect(st.revision).to.include({ commit: sha, author: 'Ada Tester <ada@example.test>', message: 'first vars' });
    expect(st.lastFetchAt).to.be.a('string');
    expect((await vars()).map((v) => [v.key, v.value])).to.deep.include(['GREETING', 'hello']);
    const all = (await viewer.get('/api/manifests/status')).body;
    expect(all.sources.find((x: any) => x.environmentId === env.id)).to.include({ sync: 'Synced', environment: env.name });
  });

  it('a source-owned field refuses an API write with 409 naming the file and the commit', async () => {
    const v = (await vars()).find((x) => x.key === 'GREETING')!;
    const r = await admin.patch(`/api/vars/${v.id}`, { value: 'changed' });
    expect(r.status).to.equal(409);
    expect(r.body.message).to.include('vars.yaml').and.include((await status()).revision.commit.slice(0, 12)).and.include(repo.url);
  });

  it('a broken commit leaves the last good one applied and reports Failed with file:line', async () => {
    const good = (await status()).revision.commit;
    const bad = repo.commit({ 'deploy/broken.yaml': 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: BAD, environment: elsewhere}\nspec: {value: "x"}\n' }, 'oops');
    const sync = await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    expect(sync.status).to.equal(202);
    const st = await settled('Failed', (x) => x.sync === 'Failed');
    expect(st.revision.commit).to.equal(good);
    expect(st.fetchedCommit).to.equal(bad);
    expect(st.error).to.match(/broken\.yaml:3:\d+/);
    expect(st.errors[0]).to.include({ file: 'broken.yaml', line: 3 });
    expect(svc.logs.some((l) => l.includes('manifests: not applied') && l.includes('broken.yaml:3'))).to.equal(true);
    const events = await svc.services.db('events').where({ type: 'manifests.sync_failed' });
    expect(JSON.stringify(events.map((e: any) => e.data))).to.include('broken.yaml:3');
    expect((await vars()).map((v) => v.key)).to.not.include('BAD');
  });

  it('prune removes what a commit deleted', async () => {
    repo.commit({ 'deploy/broken.yaml': null, 'deploy/vars.yaml': varDoc(env.name, 'OTHER', 'x') }, 'rename');
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    await settled('Synced again', (x) => x.sync === 'Synced' && x.revision.message === 'rename');
    expect((await vars()).map((v) => v.key)).to.deep.equal(['OTHER']);
  });

  it('a new commit arrives by poll', async () => {
    await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 1, prune: true });
    const sha = repo.commit({ 'deploy/more.yaml': varDoc(env.name, 'POLLED', 'y') }, 'polled');
    await settled('the polled commit', (x) => x.sync === 'Synced' && x.revision.commit === sha);
    expect((await vars()).map((v) => v.key)).to.include('POLLED');
  });

  it('fetches into a bare repository under the state dir, never a checkout', async () => {
    const cache = join(svc.stateDir, 'git-cache');
    const [id] = readdirSync(cache);
    expect(statSync(join(cache, id, 'HEAD')).isFile()).to.equal(true);
    expect(() => readFileSync(join(cache, id, 'deploy', 'vars.yaml'))).to.throw();
  });

  describe('POST /api/webhooks/git', () => {
    const body = (url: string, ref = 'refs/heads/main') => JSON.stringify({ ref, repository: { clone_url: url, default_branch: 'main' } });
    const hub = (raw: string, secret = SECRET) => `sha256=${crypto.createHmac('sha256', secret).update(raw).digest('hex')}`;
    const send = (raw: string, headers: Record<string, string>) => svc.http.post('/api/webhooks/git', undefined, { raw, token: null, headers: { 'content-type': 'application/json', ...headers } });

    before(async () => {
      await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 0, prune: true });
      await settled('webhook-only source synced', (x) => x.sync === 'Synced');
    });

    it('a bad or missing signature is 401, whatever the host', async () => {
      const raw = body(repo.url);
      expect((await send(raw, { 'x-github-event': 'push', 'x-hub-signature-256': hub(raw, 'wrong') })).status).to.equal(401);
      expect((await send(raw, { 'x-github-event': 'push' })).status).to.equal(401);
      expect((await send(raw, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'wrong' })).status).to.equal(401);
      expect((await send(raw, { 'x-gitea-event': 'push', 'x-gitea-signature': 'ab'.repeat(32) })).status).to.equal(401);
    });

    it('a signed pull request event for a source without previews syncs nothing: its author changes no environment', async () => {
      const before = (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body.revision.commit;
      repo.commit({ 'deploy/pr.yaml': varDoc(env.name, 'FROM_PR', 'x') }, 'a pull request head');
      const raw = JSON.stringify({ action: 'opened', number: 7, pull_request: { number: 7, head: { ref: 'feature', sha: 'f'.repeat(40) }, base: { ref: 'main' } }, repository: { clone_url: repo.url, default_branch: 'main' } });
      const r = await send(raw, { 'x-github-event': 'pull_request', 'x-hub-signature-256': hub(raw) });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ ignored: true, reason: 'no source of this repository and branch builds pull request previews' });
      expect(await svc.services.previews.listAll()).to.deep.equal([]);
      expect((await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body.revision.commit).to.equal(before);
      expect((await admin.get(`/api/environments/${env.id}/vars`)).body.items.map((v: any) => v.key)).to.not.include('FROM_PR');
      repo.commit({ 'deploy/pr.yaml': null }, 'no pull request file');
    });

    it('a signed GitHub push syncs the matching source at once', async () => {
      const sha = repo.commit({ 'deploy/hook.yaml': varDoc(env.name, 'HOOKED', 'z') }, 'pushed');
      const raw = body(repo.url);
      const r = await send(raw, { 'x-github-event': 'push', 'x-hub-signature-256': hub(raw) });
      expect(r.status).to.equal(202);
      expect(r.body).to.include({ matched: 1, host: 'github' });
      await settled('the pushed commit', (x) => x.sync === 'Synced' && x.revision.commit === sha);
    });

    it('POST …/sync answers 202 with the sync stored (generation above observedGeneration); its pass ends at that generation, Ready', async () => {
      const sha = repo.commit({ 'deploy/asked.yaml': varDoc(env.name, 'ASKED', 'a') }, 'asked for');
      const r = await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
      expect(r.status, r.text).to.equal(202);
      expect(r.body.generation).to.be.above(r.body.observedGeneration ?? 0);
      expect(r.body.conditions.find((c: any) => c.type === 'Progressing')).to.include({ status: 'True' });
      const st = await settled('the asked-for pass', (x) => x.observedGeneration === r.body.generation && x.revision?.commit === sha);
      expect(st.sync).to.equal('Synced');
      expect(st.conditions.map((c: any) => `${c.type}=${c.status}/${c.reason}`)).to.have.members(['Ready=True/Synced', 'Progressing=False/Idle', 'Degraded=False/AsDesired']);
    });

    it('a sync stored but never queued by its process (it died after the 202) is run from the poll tick, webhook-only as the source is', async () => {
      const sha = repo.commit({ 'deploy/orphan.yaml': varDoc(env.name, 'ORPHANED', 'o') }, 'asked for, then the controller died');
      const row = (await svc.services.gitSources.ofEnvironment(env.id))!;
      // what the webhook route stores before it answers, without handing the key to this process's queue
      const asked = (await svc.services.gitSources.requestSync(row.id, 'webhook', sha))!;
      expect(asked.pollIntervalSec).to.equal(0);
      const st = await settled('the stored request run', (x) => x.observedGeneration === asked.generation && x.revision?.commit === sha);
      expect(st.lastAttempt).to.include({ trigger: 'webhook', ok: true });
      expect(st.requestedCommit).to.equal(sha);
    });

    it('GitLab (X-Gitlab-Token) and Gitea (X-Gitea-Signature) pushes are accepted; another repository or branch matches nothing', async () => {
      const raw = body(repo.url);
      const gitlab = await send(JSON.stringify({ ref: 'refs/heads/main', project: { git_http_url: repo.url } }), { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': SECRET });
      expect(gitlab.body).to.include({ matched: 1, host: 'gitlab' });
      const gitea = await send(raw, { 'x-gitea-event': 'push', 'x-gitea-signature': crypto.createHmac('sha256', SECRET).update(raw).digest('hex') });
      expect(gitea.body).to.include({ matched: 1, host: 'gitea' });
      const other = body('https://example.test/other.git');
      expect((await send(other, { 'x-github-event': 'push', 'x-hub-signature-256': hub(other) })).body).to.include({ matched: 0, ignored: true });
      const branch = body(repo.url, 'refs/heads/feature');
      expect((await send(branch, { 'x-github-event': 'push', 'x-hub-signature-256': hub(branch) })).body).to.include({ matched: 0 });
      const ping = JSON.stringify({ zen: 'hi' });
      expect((await send(ping, { 'x-github-event': 'ping', 'x-hub-signature-256': hub(ping) })).status).to.equal(200);
    });
  });

  describe('deleting the source', () => it('DELETE stops following the source; what it applied is the API\'s again', async () => {
    expect((await admin.delete(`/api/environments/${env.id}/manifests-source`)).status).to.equal(204);
    expect((await admin.get(`/api/environments/${env.id}/manifests-source`)).status).to.equal(404);
    const v = (await vars()).find((x) => x.key === 'OTHER')!;
    expect((await admin.patch(`/api/vars/${v.id}`, { value: 'mine now' })).status).to.equal(200);
  }));
});

describe('SOPS files of a Git source', function () {
  this.timeout(60_000);
  const VALUE = 'sops-plain-value-7c1f0b';
  let svc: TestService;
  let admin: HttpClient;
  let repo: TestRepo;
  let env: { id: string; name: string };
  let keys: { identity: string; recipient: string };
  const status = async () => (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
  const settled = (what: string, pred: (st: any) => boolean) => until(what, async () => {
    const st = await status();
    return st.sync !== 'Syncing' && pred(st) && st;
  }, { timeoutMs: 20_000, everyMs: 100 });
  const secretDoc = (name: string, value: string) => ({ apiVersion: 'stevedore/v1', kind: 'Secret', metadata: { name, environment: env.name }, spec: { value, description: 'from sops' } });

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    repo = createRepo();
    keys = await ageKeyPair();
  });
  after(async () => {
    await svc?.stop();
    repo?.remove();
  });

  it('the age key is write-only: reads show only its recipient', async () => {
    expect((await admin.get(`/api/environments/${env.id}/age-key`)).body).to.deep.include({ hasIdentity: false, recipient: null });
    expect((await admin.put(`/api/environments/${env.id}/age-key`, { identity: 'AGE-SECRET-KEY-1NOTAKEY' })).status).to.equal(400);
    const put = await admin.put(`/api/environments/${env.id}/age-key`, { identity: `# created: now\n${keys.identity}\n` });
    expect(put.status).to.equal(200);
    expect(put.body).to.deep.include({ hasIdentity: true, recipient: keys.recipient });
    expect(put.text).to.not.include(keys.identity);
    const row = await svc.services.db('environment_age_keys').where({ environmentId: env.id }).first();
    expect(JSON.stringify(row)).to.not.include(keys.identity);
  });

  it('a Secret in a SOPS file becomes a sealed secret; its value is in no response, log, event or cache file', async () => {
    repo.commit({ 'db.sops.yaml': await sopsFile(secretDoc('DB_PASSWORD', VALUE), [keys.recipient]) }, 'encrypted secret');
    expect((await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, pollIntervalSec: 0 })).status).to.equal(200);
    const st = await settled('Synced', (x) => x.sync !== 'OutOfSync').catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(await status())}`); });
    expect(st.sync, JSON.stringify(st)).to.equal('Synced');
    const list = await admin.get(`/api/environments/${env.id}/secrets`);
    const secret = list.body.items.find((x: any) => x.key === 'DB_PASSWORD');
    expect(secret).to.include({ hasValue: true, description: 'from sops' });
    const row = await svc.services.db('secrets').where({ id: secret.id }).first();
    expect(svc.services.secretBox.open(row.valueSealed)).to.equal(VALUE);
    const texts = [JSON.stringify(st), list.text, (await admin.get(`/api/secrets/${secret.id}`)).text, JSON.stringify(row.source),
      svc.logs.join('\n'), JSON.stringify(await svc.services.db('events')), JSON.stringify(await svc.services.db('audit_logs'))];
    for (const t of texts) expect(t).to.not.include(VALUE);
    expect(filesUnder(join(svc.stateDir, 'git-cache')).some((f) => readWhole(f).includes(VALUE)), 'the cache').to.equal(false);
  });

  it('a tampered file fails its MAC and the last good commit stays; a stranger\'s identity names the recipients', async () => {
    const good = (await status()).revision.commit;
    const text = (await sopsFile(secretDoc('DB_PASSWORD', 'next'), [keys.recipient])).replace('description: ENC', 'description_x: ENC');
    repo.commit({ 'db.sops.yaml': text }, 'tampered');
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    const st = await settled('Failed', (x) => x.sync === 'Failed');
    expect(st.revision.commit).to.equal(good);
    expect(st.error).to.include('db.sops.yaml').and.match(/does not decrypt|MAC/);
    const stranger = await ageKeyPair();
    repo.commit({ 'db.sops.yaml': await sopsFile(secretDoc('DB_PASSWORD', 'next'), [stranger.recipient]) }, 'other recipient');
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    const again = await settled('Failed again', (x) => x.sync === 'Failed' && x.errors[0]?.message.includes(stranger.recipient));
    expect(again.revision.commit).to.equal(good);
  });

  it('a manifest without a secret field but with encrypted values is refused (they would be stored in plain)', async () => {
    const doc = { apiVersion: 'stevedore/v1', kind: 'Var', metadata: { name: 'PLAIN', environment: env.name }, spec: { value: 'x' } };
    repo.commit({ 'db.sops.yaml': await sopsFile(secretDoc('DB_PASSWORD', VALUE), [keys.recipient]), 'var.sops.yaml': await sopsFile(doc, [keys.recipient]) }, 'var');
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    const st = await settled('Failed', (x) => x.sync === 'Failed' && x.errors.some((e: any) => e.file === 'var.sops.yaml'));
    expect(st.errors.find((e: any) => e.file === 'var.sops.yaml').message).to.include('has no secret field');
  });
});

describe('manifests source diff (what the next sync would do)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  let repo: TestRepo;
  const diff = (envId = env.id, client = admin) => client.get(`/api/environments/${envId}/manifests-source/diff`);
  const values = async () => Object.fromEntries(((await admin.get(`/api/environments/${env.id}/vars?limit=200`)).body.items as Array<{ key: string; value: string }>).map((v) => [v.key, v.value]));

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    repo = createRepo();
  });
  after(async () => {
    await svc?.stop();
    repo?.remove();
  });

  it('fetches the ref and shows the changes of its commit against the store, applying nothing', async () => {
    const first = repo.commit({ 'vars.yaml': varDoc(env.name, 'GREETING', 'hello') }, 'first');
    expect((await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 0 })).status).to.equal(200);
    await until('Synced', async () => (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body.sync === 'Synced', { timeoutMs: 20_000, everyMs: 100 });
    const none = await diff();
    expect(none.status, none.text).to.equal(200);
    expect(none.body).to.deep.include({ ok: true, changes: [], errors: [] });
    expect(none.body.commit).to.include({ commit: first, message: 'first' });
    const next = repo.commit({ 'vars.yaml': `${varDoc(env.name, 'GREETING', 'bonjour')}---\n${varDoc(env.name, 'NEW_ONE', 'x')}` }, 'second');
    const res = await diff();
    expect(res.body.ok).to.equal(true);
    expect(res.body.commit.commit).to.equal(next);
    expect(res.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name}`).sort()).to.deep.equal(['create Var NEW_ONE', 'update Var GREETING']);
    expect(res.body.counts).to.include({ create: 1, update: 1 });
    // nothing applied, and the status still names the applied commit
    expect(await values()).to.deep.equal({ GREETING: 'hello' });
    const st = (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
    expect(st.revision.commit).to.equal(first);
  });

  it('a broken commit answers ok: false with every error at its file:line; nothing is applied', async () => {
    repo.commit({ 'vars.yaml': 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: BAD, environment: nowhere-env}\nspec: {value: 1}\n' }, 'broken');
    const res = await diff();
    expect(res.status).to.equal(200);
    expect(res.body.ok).to.equal(false);
    expect(res.body.errors.length).to.be.greaterThan(0);
    expect(res.body.errors[0]).to.include({ file: 'vars.yaml' });
    expect(res.body.errors[0].line).to.be.greaterThan(0);
    expect(await values()).to.deep.equal({ GREETING: 'hello' });
  });

  it('is for operators: a viewer gets 403; an environment without a source 404; a fetch that fails 503', async () => {
    const viewer = (await userWithRole(admin, 'viewer')).client;
    const forbidden = await diff(env.id, viewer);
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body.code).to.equal('FORBIDDEN_ROLE');
    const bare = await createEnvironment(admin);
    const missing = await diff(bare.id);
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal('NOT_FOUND');
    const nowhere = `file://${join(TEST_GIT_ROOT, 'nonexistent', 'repo.git')}`;
    expect((await admin.put(`/api/environments/${bare.id}/manifests-source`, { url: nowhere, pollIntervalSec: 0 })).status).to.equal(200);
    const failed = await diff(bare.id);
    expect(failed.status).to.equal(503);
    expect(failed.body.code).to.equal('SERVICE_UNAVAILABLE');
    expect(failed.body.message).to.include(`fetch of ${nowhere}`);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** A file's bytes, and a loose git object's inflated content too. */
function readWhole(path: string): string {
  const raw = readFileSync(path);
  try {
    return raw.toString('latin1') + inflateSync(raw).toString('latin1');
  } catch {
    return raw.toString('latin1');
  }
}
