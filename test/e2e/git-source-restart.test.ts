// A Git source's sync is a durable reconciler (docs/git-sources.md#a-durable-sync), proved on real
// controller processes (`node bin/stevedore.js serve`) killed with SIGKILL: a push answered 202
// is applied by the restarted controller, webhook-only (no poll would find it); a sync stuck
// mid-fetch by the kill is not Syncing past its lease and is retried within it; a failed sync
// raises exactly one notification, delivered to a real HTTP receiver. The repository is served by
// `git http-backend` on loopback, which can hold a fetch open as a stalled code host would.
import { expect } from 'chai';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { serveController, killController, type ControllerProcess } from '../support/controller-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import { HttpClient } from '../support/http-client.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { GitHttpServer } from '../support/git-http.js';
import { Receiver } from '../support/receiver.js';
import { TEST_ALLOW_LIST } from '../support/outgoing-allow.js';
import { until } from '../support/until.js';

const SECRET = 'git-restart-webhook-secret';
const LEASE_MS = 3000;
const varDoc = (env: string, name: string, value: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: ${name}, environment: ${env}}\nspec: {value: "${value}"}\n`;

describe('Git source sync across a SIGKILL of the controller (e2e)', function () {
  this.timeout(240_000);
  let db: Knex;
  let stateDir: string;
  let env: Record<string, string>;
  let ctl: ControllerProcess | undefined;
  let admin: HttpClient;
  let repo: TestRepo;
  let gitHttp: GitHttpServer;
  let rx: Receiver;
  let environment: { id: string; name: string };

  const status = async () => (await admin.get(`/api/environments/${environment.id}/manifests-source/status`)).body;
  const row = async () => db('git_sources').where({ environmentId: environment.id }).first();
  const start = async (name: string) => {
    ctl = await serveController(name, env, admin?.token ?? '');
    admin = new HttpClient(ctl.url, admin?.token ?? null);
    return ctl;
  };
  /** Each test may run alone: a controller killed by the one before is started again. */
  const running = async () => {
    if (!ctl || ctl.child.exitCode !== null || ctl.child.signalCode !== null) await start('again');
  };
  const push = (sha: string) => {
    const raw = JSON.stringify({ ref: 'refs/heads/main', after: sha, repository: { clone_url: `${gitHttp.url}/manifests.git`, default_branch: 'main' } });
    return admin.post('/api/webhooks/git', undefined, {
      raw, token: null, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', SECRET).update(raw).digest('hex')}` },
    });
  };
  const varsNow = async () => (await admin.get(`/api/environments/${environment.id}/vars`)).body.items.map((v: any) => `${v.key}=${v.value}`);

  before(async () => {
    const url = await createTestDatabase();
    db = createKnex(url, 2);
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-git-restart-'));
    repo = createRepo();
    gitHttp = await new GitHttpServer(path.dirname(repo.bare)).start();
    rx = await new Receiver().start();
    env = {
      DATABASE_URL: url, STEVEDORE_STATE_DIR: stateDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0',
      PASSWORD_HASH_COST: '10', OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST, CODEHOST_WEBHOOK_SECRET: SECRET,
      // the lease a sync holds (renewed while it runs) is the plans' lease
      PLAN_LEASE_MS: String(LEASE_MS), LEADER_RETRY_MS: '200', SCHEDULER_GIT_POLL_SEC: '1',
    };
    const first = await serveController('A', env, '');
    ctl = first;
    admin = await bootstrapAdmin(new HttpClient(first.url));
    environment = await createEnvironment(admin);
    const sha = repo.commit({ 'vars.yaml': varDoc(environment.name, 'GREETING', 'one') }, 'first');
    // webhook only: nothing but a push (or POST …/sync) asks for a sync
    const put = await admin.put(`/api/environments/${environment.id}/manifests-source`, { url: `${gitHttp.url}/manifests.git`, ref: 'main', pollIntervalSec: 0 });
    expect(put.status, put.text).to.equal(200);
    await until('the first commit applied', async () => { const st = await status(); return st.sync === 'Synced' && st.revision?.commit === sha; }, { timeoutMs: 30_000, everyMs: 100 });
  });
  after(async () => {
    await killController(ctl);
    await gitHttp?.stop();
    await rx?.stop();
    await db?.destroy();
    repo?.remove();
    if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('a push answered 202 and at once a SIGKILL: the restarted controller applies it', async () => {
    // the code host stalls: the push's sync cannot have ended when the controller dies
    gitHttp.hold();
    const sha = repo.commit({ 'vars.yaml': varDoc(environment.name, 'GREETING', 'two') }, 'pushed before the crash');
    const r = await push(sha);
    expect(r.status, r.text).to.equal(202);
    expect(r.body).to.include({ matched: 1 });
    await killController(ctl);
    const stored = await row();
    expect(stored.observedGeneration, 'not applied before the kill').to.be.below(stored.generation);
    expect(stored).to.include({ requestedTrigger: 'webhook', requestedCommit: sha });
    gitHttp.release();

    const restarted = Date.now();
    await start('B');
    const st = await until('the pushed commit applied after the restart', async () => {
      const x = await status();
      return x.sync === 'Synced' && x.revision?.commit === sha && x;
    }, { timeoutMs: 30_000, everyMs: 100 });
    console.log(`      pushed commit applied ${Date.now() - restarted} ms after the restart began (lease ${LEASE_MS} ms)`);
    expect(st.observedGeneration).to.equal(st.generation);
    expect(st.lastAttempt).to.include({ trigger: 'webhook', ok: true, commit: sha });
    expect(st.conditions.find((c: any) => c.type === 'Ready')).to.include({ status: 'True', reason: 'Synced' });
    expect(await varsNow()).to.include('GREETING=two');
  });

  it('a sync stuck mid-fetch by a SIGKILL is not Syncing past its lease, and is retried within it after the restart', async () => {
    await running();
    gitHttp.hold();
    const sha = repo.commit({ 'vars.yaml': varDoc(environment.name, 'GREETING', 'three') }, 'fetched when the controller died');
    expect((await admin.post(`/api/environments/${environment.id}/manifests-source/sync`, {})).status).to.equal(202);
    await until('the sync holding the source, mid-fetch', async () => gitHttp.holding > 0 && (await status()).sync === 'Syncing', { timeoutMs: 20_000, everyMs: 50 });
    const stuck = await row();
    await killController(ctl);
    const killedAt = Date.now();
    gitHttp.release();
    // what the dead sync's lease promises, read from the store as any replica would
    expect(new Date(stuck.leaseUntil).getTime()).to.be.at.most(killedAt + LEASE_MS + 1000);

    await start('C');
    const startedAt = Date.now();
    const seen: string[] = [];
    const st = await until('the stuck commit applied by the restarted controller', async () => {
      const x = await status();
      seen.push(`${Date.now() - killedAt}:${x.sync}`);
      return x.sync === 'Synced' && x.revision?.commit === sha && x;
    }, { timeoutMs: 30_000, everyMs: 100 });
    const tookMs = Date.now() - startedAt;
    console.log(`      stuck sync retried and applied ${tookMs} ms after the restart, ${Date.now() - killedAt} ms after the kill (lease ${LEASE_MS} ms)`);
    expect(tookMs, `within its lease after the restart: ${seen.join(' ')}`).to.be.below(LEASE_MS + 2000);
    expect(st.lastAttempt).to.include({ trigger: 'api', ok: true, commit: sha });
    expect(st.observedGeneration).to.equal(st.generation);
    const after = await row();
    expect(after.leaseOwner, 'the lease let go').to.equal(null);
    expect(after.leaseOwner === stuck.leaseOwner && after.leaseOwner !== null).to.equal(false);
  });

  it('a failed sync raises exactly one notification, delivered once to a real receiver', async () => {
    await running();
    const hook = await admin.post('/api/admin/webhooks', { name: 'git-fail', url: rx.url, enabled: true, eventTypes: ['manifests.sync_failed'] });
    expect(hook.status, hook.text).to.equal(201);
    // polled every second from now on: each poll meets the same failure again
    expect((await admin.put(`/api/environments/${environment.id}/manifests-source`, { url: `${gitHttp.url}/manifests.git`, ref: 'main', pollIntervalSec: 1 })).status).to.equal(200);
    await until('synced again after the save', async () => (await status()).sync === 'Synced', { timeoutMs: 20_000, everyMs: 100 });
    const bad = repo.commit({ 'broken.yaml': varDoc('no-such-environment', 'BAD', 'x') }, 'broken');
    expect((await push(bad)).status).to.equal(202);
    const failed = await until('Failed at the broken commit', async () => { const x = await status(); return x.sync === 'Failed' && x.lastAttempt?.commit === bad && x; }, { timeoutMs: 20_000, everyMs: 100 });
    expect(failed.conditions.find((c: any) => c.type === 'Degraded')).to.include({ status: 'True', reason: 'ManifestsInvalid' });
    let polls = 0;
    let last = failed.lastFetchAt;
    await until('three more polls meet the same failure', async () => {
      const x = await status();
      if (x.lastFetchAt !== last) { polls++; last = x.lastFetchAt; }
      return polls >= 3;
    }, { timeoutMs: 30_000, everyMs: 100 });
    await until('the delivery', () => rx.requests.some((q) => q.json?.event === 'manifests.sync_failed'), { timeoutMs: 20_000 });
    expect(rx.requests.filter((q) => q.json?.event === 'manifests.sync_failed'), 'one delivery').to.have.length(1);
    const notes = (await admin.get(`/api/notifications?category=manifests&environmentId=${environment.id}`)).body.items.filter((n: any) => n.type === 'manifests.sync_failed');
    expect(notes, 'one notification').to.have.length(1);
    expect(notes[0].message).to.match(/broken\.yaml/);
  });
});
