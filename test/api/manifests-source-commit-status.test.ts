// Commit statuses of a Git source (docs/git-sources.md#commit-statuses), against a real HTTP
// receiver that speaks GitHub's `POST /repos/{owner}/{repo}/statuses/{sha}` (and Gitea's, under
// /api/v1): pending when a sync starts applying a commit, then success, or failure with the
// reason; the token is write-only and in no response, log or event. (With plans, the final status
// waits for them: test/e2e/git-commit-status.test.ts on the fleet.)
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { Receiver } from '../support/receiver.js';
import { until } from '../support/until.js';

const GITHUB_TOKEN = 'ghp-commit-status-token-6f1d2c';
const GITEA_TOKEN = 'gitea-commit-status-token-9a7b3e';
const varDoc = (env: string, name: string, value: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: ${name}, environment: ${env}}\nspec: {value: "${value}"}\n`;

describe('commit statuses of a Git source', function () {
  this.timeout(90_000);
  let svc: TestService;
  let admin: HttpClient;
  let repo: TestRepo;
  let rx: Receiver;
  let env: { id: string; name: string };

  const source = (codeHost: unknown, extra: Record<string, unknown> = {}) => admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 0, codeHost, ...extra });
  const statusesOf = (sha: string, prefix = '') => rx.requests.filter((r) => r.method === 'POST' && r.path === `${prefix}/repos/acme/manifests/statuses/${sha}`);
  const states = (sha: string, prefix = '') => statusesOf(sha, prefix).map((r) => r.json.state);
  /** Every sync asked for so far has had its pass (its statuses sent). */
  const idle = () => until('no sync pending', async () => {
    const st = (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
    return st.observedGeneration === st.generation && st.sync !== 'Syncing';
  }, { timeoutMs: 20_000, everyMs: 100 });

  before(async () => {
    repo = createRepo('acme/manifests');
    svc = await startTestService({ SCHEDULER_GIT_POLL_SEC: '1', STEVEDORE_PUBLIC_URL: 'https://stevedore.example.test' });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    rx = await new Receiver().start();
  });
  after(async () => {
    await svc?.stop();
    await rx?.stop();
    repo?.remove();
  });

  it('refuses a code host without a token, of another type, or outside the outgoing guard', async () => {
    repo.commit({ 'vars.yaml': varDoc(env.name, 'GREETING', 'zero') }, 'zero');
    const noToken = await source({ type: 'github', apiUrl: rx.url });
    expect(noToken.status).to.equal(400);
    expect(noToken.body).to.include({ code: 'VALIDATION_ERROR', field: 'codeHost.token' });
    const metadata = await source({ type: 'github', apiUrl: 'http://169.254.169.254/latest', token: 'x' });
    expect(metadata.status).to.equal(400);
    expect(metadata.body.field).to.equal('codeHost.apiUrl');
    const badType = await source({ type: 'gitlab', apiUrl: rx.url, token: 'x' });
    expect(badType.status).to.equal(400);
    expect((await admin.get(`/api/environments/${env.id}/manifests-source`)).status, 'nothing saved').to.equal(404);
  });

  it('GitHub: pending when the sync starts, then success; the token is write-only', async () => {
    const sha = repo.commit({ 'vars.yaml': varDoc(env.name, 'GREETING', 'one') }, 'one');
    const put = await source({ type: 'github', apiUrl: rx.url, token: GITHUB_TOKEN });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.codeHost).to.deep.equal({ type: 'github', apiUrl: rx.url, hasToken: true });
    await until('pending, then success', () => states(sha).length >= 2, { timeoutMs: 20_000 });
    expect(states(sha)).to.deep.equal(['pending', 'success']);
    const [pending, success] = statusesOf(sha);
    expect(pending!.headers.authorization).to.equal(`Bearer ${GITHUB_TOKEN}`);
    expect(pending!.json).to.include({ context: `stevedore/${env.name}`, target_url: `https://stevedore.example.test/env/${env.id}/git` });
    expect(success!.json.description).to.match(/applied to .*nothing to roll out/);
    expect(success!.at).to.be.at.least(pending!.at);
  });

  it('a commit that does not apply: pending, then failure with the reason', async () => {
    const bad = repo.commit({ 'broken.yaml': varDoc('no-such-environment', 'BAD', 'x') }, 'broken');
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    await until('pending, then failure', () => states(bad).length >= 2, { timeoutMs: 20_000 });
    expect(states(bad)).to.deep.equal(['pending', 'failure']);
    expect(statusesOf(bad)[1]!.json.description).to.match(/broken\.yaml/);
    expect(statusesOf(bad)[1]!.json.description.length).to.be.at.most(140);
    repo.commit({ 'broken.yaml': null }, 'repaired');
  });

  it('Gitea: the same path under /api/v1, with its token header; a PUT that omits the token keeps it', async () => {
    expect((await source({ type: 'gitea', apiUrl: `${rx.url}/api/v1`, token: GITEA_TOKEN })).status).to.equal(200);
    await idle();
    // the same apiUrl again without a token: the sealed one stays
    expect((await source({ type: 'gitea', apiUrl: `${rx.url}/api/v1` })).status).to.equal(200);
    await idle();
    const sha = repo.commit({ 'vars.yaml': varDoc(env.name, 'GREETING', 'two') }, 'two');
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    await until('pending, then success on Gitea', () => states(sha, '/api/v1').length >= 2, { timeoutMs: 20_000 });
    expect(states(sha, '/api/v1')).to.deep.equal(['pending', 'success']);
    expect(statusesOf(sha, '/api/v1')[0]!.headers.authorization).to.equal(`token ${GITEA_TOKEN}`);
  });

  it('no token in any response, log line or event', async () => {
    const texts = [
      JSON.stringify((await admin.get(`/api/environments/${env.id}/manifests-source`)).body),
      JSON.stringify((await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body),
      JSON.stringify(await svc.services.db('events').select('data')),
      JSON.stringify(await svc.services.db('audit_logs').select('details')),
      svc.logs.join('\n'),
    ];
    for (const t of texts) expect(t).to.not.include(GITHUB_TOKEN).and.not.include(GITEA_TOKEN);
  });

  it('null removes the code host: no more statuses', async () => {
    const put = await source(null);
    expect(put.body.codeHost).to.equal(null);
    await idle();
    const before = rx.requests.length;
    const sha = repo.commit({ 'vars.yaml': varDoc(env.name, 'GREETING', 'three') }, 'three');
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    await until('synced at three', async () => (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body.revision?.commit === sha, { timeoutMs: 20_000 });
    expect(rx.requests.length).to.equal(before);
  });
});
