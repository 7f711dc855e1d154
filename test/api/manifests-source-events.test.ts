// What a Git source's sync tells the world: a failed sync raises exactly one
// `manifests.sync_failed` event (polls meeting the same failure again raise none), which becomes a
// notification and an outgoing webhook delivery; a repaired one raises `manifests.synced`; /health
// counts the sources by sync state (never naming them) and is degraded while one has failed.
import { expect } from 'chai';
import { dirname } from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { Receiver } from '../support/receiver.js';
import { until } from '../support/until.js';

const varDoc = (env: string, name: string, value: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: ${name}, environment: ${env}}\nspec: {value: "${value}"}\n`;

describe('Git source sync events, notifications and /health', function () {
  this.timeout(90_000);
  let svc: TestService;
  let admin: HttpClient;
  let repo: TestRepo;
  let rx: Receiver;
  let env: { id: string; name: string };

  const status = async () => (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
  const eventsOf = async (type: string) => svc.services.db('events').where({ type, environmentId: env.id }).orderBy('id');

  before(async () => {
    repo = createRepo();
    // file:// sources only under GIT_FILE_ROOTS (a variable the controller may require); polled every second
    svc = await startTestService({ SCHEDULER_GIT_POLL_SEC: '1', GIT_FILE_ROOTS: dirname(repo.bare) });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    rx = await new Receiver().start();
    const hook = await admin.post('/api/admin/webhooks', { name: 'git-syncs', url: rx.url, enabled: true, eventTypes: ['manifests.sync_failed', 'manifests.synced'] });
    expect(hook.status, hook.text).to.equal(201);
  });
  after(async () => {
    await svc?.stop();
    await rx?.stop();
    repo?.remove();
  });

  it('/health has no manifests before any folder or source', async () => {
    const health = (await svc.http.get('/health')).body;
    expect(health.manifests).to.equal(null);
    expect(health.status).to.equal('ok');
  });

  it('a failed sync raises one manifests.sync_failed, however many polls meet it again; a notification and a webhook delivery say why', async () => {
    repo.commit({ 'broken.yaml': `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: BAD, environment: elsewhere}\nspec: {value: "x"}\n` }, 'broken');
    const put = await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 1 });
    expect(put.status, put.text).to.equal(200);
    const failed = await until('the source Failed', async () => { const st = await status(); return st.sync === 'Failed' && st; }, { timeoutMs: 20_000, everyMs: 100 });
    // three more polls fetch and try the same commit again (a positive signal: lastFetchAt moves on)
    let fetches = 0;
    let last = failed.lastFetchAt;
    await until('three more polls of the failing source', async () => {
      const st = await status();
      if (st.lastFetchAt !== last) { fetches++; last = st.lastFetchAt; }
      return fetches >= 3;
    }, { timeoutMs: 30_000, everyMs: 100 });
    const events = await eventsOf('manifests.sync_failed');
    expect(events, 'one event for one failure').to.have.length(1);
    expect(events[0].data).to.include({ environment: env.name, error: failed.error, message: failed.error });
    expect(events[0].data.error).to.match(/broken\.yaml:3:\d+/);

    const notes = await until('the notification', async () => (await admin.get(`/api/notifications?category=manifests&environmentId=${env.id}`)).body.items.length > 0
      && (await admin.get(`/api/notifications?category=manifests&environmentId=${env.id}`)).body.items);
    expect(notes).to.have.length(1);
    expect(notes[0]).to.include({ type: 'manifests.sync_failed', severity: 'error', title: 'Manifests sync from Git failed' });
    expect(notes[0].message).to.match(/broken\.yaml:3/);
    await until('the webhook delivery', () => rx.requests.some((r) => r.json?.event === 'manifests.sync_failed'), { timeoutMs: 20_000 });
    expect(rx.requests.filter((r) => r.json?.event === 'manifests.sync_failed')).to.have.length(1);
  });

  it('/health counts the failed source, without naming it, and is degraded', async () => {
    const health = (await svc.http.get('/health')).body;
    expect(health.status).to.equal('degraded');
    expect(health.manifests).to.deep.equal({ gitSources: { total: 1, Synced: 0, OutOfSync: 0, Syncing: 0, Failed: 1 } });
    expect(JSON.stringify(health)).to.not.include(env.name).and.not.include(repo.bare);
  });

  it('a sync asked for again announces its outcome again; a repaired commit raises manifests.synced and /health is ok', async () => {
    await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {});
    await until('a second event, for the asked-for sync', async () => (await eventsOf('manifests.sync_failed')).length === 2, { timeoutMs: 20_000 });

    const sha = repo.commit({ 'broken.yaml': null, 'vars.yaml': varDoc(env.name, 'GREETING', 'hello') }, 'repaired');
    await until('Synced at the repaired commit', async () => { const st = await status(); return st.sync === 'Synced' && st.revision?.commit === sha; }, { timeoutMs: 20_000, everyMs: 100 });
    const synced = await eventsOf('manifests.synced');
    expect(synced).to.have.length(1);
    expect(synced[0].data).to.include({ commit: sha, commitMessage: 'repaired' });
    expect(synced[0].data.message).to.equal(`commit ${sha.slice(0, 12)} applied to ${env.name}: 1 created, 0 updated, 0 deleted`);
    await until('the synced webhook delivery', () => rx.requests.some((r) => r.json?.event === 'manifests.synced'), { timeoutMs: 20_000 });
    const health = (await svc.http.get('/health')).body;
    expect(health.manifests.gitSources).to.include({ total: 1, Synced: 1, Failed: 0 });
    expect(health.status).to.equal('ok');
  });
});
