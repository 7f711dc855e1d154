// Commit statuses on the fleet (docs/git-sources.md#commit-statuses): a commit whose plans roll
// out containers gets `pending` when the sync starts and `success` only once its plan ended; a
// commit whose plan fails gets `failure` naming the plan and why. The code host is a real HTTP
// receiver on loopback speaking GitHub's `POST /repos/{owner}/{repo}/statuses/{sha}` and Gitea's
// (the same path under /api/v1).
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { Receiver } from '../support/receiver.js';
import { until } from '../support/until.js';

describe('commit statuses of a Git source on the fleet', function () {
  this.timeout(240_000);
  let fleet: Fleet;
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  let repo: TestRepo;
  let rx: Receiver;
  const s1 = () => fleet.servers[0]!;

  const files = (tag: string) => ({
    'servers.yaml': `apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: web-1, environment: ${env.name}}\nspec: {hostname: ${s1().host}, sshPort: ${s1().port}, sshUser: ${s1().user}}\n`,
    'image.yaml': `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env.name}}\nspec: {imageName: ${fleet.registry.address}/stevedore-test/web}\n`,
    'service.yaml': `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: statusweb, environment: ${env.name}}\nspec:\n  image: web\n  imageTag: ${tag}\n  deployments:\n    - server: web-1\n`,
  });
  const statusesOf = (sha: string, prefix = '') => rx.requests.filter((r) => r.method === 'POST' && r.path === `${prefix}/repos/acme/fleet/statuses/${sha}`);
  const ended = (sha: string, prefix = '') => until(`the final status of ${sha.slice(0, 12)}`, () => {
    const list = statusesOf(sha, prefix);
    return list.some((r) => r.json.state !== 'pending') && list;
  }, { timeoutMs: 120_000, everyMs: 200 });
  const planOf = async (sha: string) => {
    const st = (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
    expect(st.lastAttempt.commit).to.equal(sha);
    expect(st.lastAttempt.plans).to.have.length(1);
    return svc.services.db('deployment_plans').where({ id: st.lastAttempt.plans[0] }).first();
  };
  const running = async () => (await serverExec('s1', ['docker', 'ps', '--format', '{{.Names}} {{.Image}}'])).split('\n').filter((l) => l.startsWith('statusweb '));

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService({ SCHEDULER_GIT_POLL_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    expect((await admin.put(`/api/environments/${env.id}/ssh-key`, { privateKey: privateKeyOf(s1()) })).status).to.equal(200);
    repo = createRepo('acme/fleet');
    rx = await new Receiver().start();
  });
  after(async () => {
    await svc?.stop();
    await rx?.stop();
    repo?.remove();
    await serverExec('s1', ['sh', '-c', 'docker rm -f statusweb 2>/dev/null; true']).catch(() => undefined);
  });

  it('GitHub: pending at the sync, success once the plan it caused succeeded', async () => {
    const sha = repo.commit(files('v1'), 'statusweb v1');
    const put = await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 0, codeHost: { type: 'github', apiUrl: rx.url, token: 'ghp-fleet-token' } });
    expect(put.status, put.text).to.equal(200);
    const list = await ended(sha);
    expect(list.map((r) => r.json.state)).to.deep.equal(['pending', 'success']);
    const plan = await planOf(sha);
    expect(plan.status).to.equal('succeeded');
    expect(list[1]!.at, 'success only after the plan ended').to.be.at.least(new Date(plan.finishedAt).getTime());
    expect(list[0]!.at, 'pending before the plan ended').to.be.below(new Date(plan.finishedAt).getTime());
    expect(list[1]!.json.description).to.match(/1 plan succeeded/);
    expect(await running()).to.deep.equal([`statusweb ${fleet.registry.address}/stevedore-test/web:v1`]);
  });

  it('Gitea (under /api/v1): a tag the registry does not have fails its plan, and the commit gets failure with the reason', async () => {
    expect((await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 0, codeHost: { type: 'gitea', apiUrl: `${rx.url}/api/v1`, token: 'gitea-fleet-token' } })).status).to.equal(200);
    await until('the save synced', async () => { const st = (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body; return st.observedGeneration === st.generation && st.sync !== 'Syncing'; }, { timeoutMs: 30_000 });
    const sha = repo.commit(files('no-such-tag'), 'statusweb at a tag nobody pushed');
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    const list = await ended(sha, '/api/v1');
    expect(list.map((r) => r.json.state)).to.deep.equal(['pending', 'failure']);
    expect(list[0]!.headers.authorization).to.equal('token gitea-fleet-token');
    const plan = await planOf(sha);
    expect(plan.status).to.not.equal('succeeded');
    expect(list[1]!.json.description).to.match(new RegExp(`^plan ${plan.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
    expect(await running(), 'the last good container runs on').to.deep.equal([`statusweb ${fleet.registry.address}/stevedore-test/web:v1`]);
  });
});
