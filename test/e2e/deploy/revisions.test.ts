// Revisions on the fleet: each accepted change is a numbered revision, the diff names what
// changed, a failed deploy leaves the last good revision current, a container removed by hand
// after that failure comes back at the last good spec through its Docker event (driftPolicy
// heal, the resync 300 s away), and a revert runs an old revision again. What runs is read on the
// server itself (docker inspect over the fleet's ssh), never through the controller.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { userWithRole } from '../../support/fixtures.js';
import { until } from '../../support/until.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy-world.js';

describe('revisions of a service on the fleet (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let serviceId: string;
  let container: string;

  before(async () => {
    w = await startWorld({ SCHEDULER_DRIFT_CHECK_SEC: '300' });
    const { service, deployments } = await addService(w, 'rev', { servers: ['s1'], env: { GREETING: 'hello' } });
    serviceId = service.id;
    container = deployments[0]!.containerName;
  });
  after(() => cleanup(w));

  /** Image and GREETING of the container, as Docker on the server reports them. */
  async function onServer(): Promise<{ image: string; greeting: string | undefined; running: boolean } | null> {
    const out = await serverExec('s1', ['sh', '-c', `docker inspect --format '{{.Config.Image}}|{{.State.Running}}|{{json .Config.Env}}' ${container} 2>/dev/null || true`]);
    if (!out.trim()) return null;
    const [image, running, env] = out.trim().split('|');
    const greeting = (JSON.parse(env) as string[]).find((e) => e.startsWith('GREETING='))?.slice('GREETING='.length);
    return { image, greeting, running: running === 'true' };
  }
  const service = async () => (await w.admin.get(`/api/services/${serviceId}`)).body;
  const latestPlanId = async () => (await w.s.db('deployment_plans').where({ environmentId: w.envId }).orderBy('createdAt', 'desc').first()).id as string;

  it('records each accepted change as a revision and diffs them by path', async () => {
    const first = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, {});
    expect(first.body.status, first.text).to.equal('succeeded');
    expect(first.body.steps[0].revision).to.equal(1);
    // a PATCH of spec fields is a request like a deploy: a revision and a plan
    const patch = await w.admin.patch(`/api/services/${serviceId}`, { imageTag: 'v2', env: { GREETING: 'bonjour' } });
    expect(patch.status, patch.text).to.equal(200);
    expect(patch.body.desiredRevision).to.equal(2);
    expect((await waitPlan(w, await latestPlanId())).status).to.equal('succeeded');
    expect(await onServer()).to.deep.include({ image: w.fleet.images.webV2, greeting: 'bonjour', running: true });

    const list = await w.admin.get(`/api/services/${serviceId}/revisions`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body.items.map((r: { revision: number; imageTag: string; outcome: string; source: string }) => [r.revision, r.imageTag, r.outcome, r.source]))
      .to.deep.equal([[2, 'v2', 'succeeded', 'api'], [1, 'v1', 'succeeded', 'deploy']]);
    const svc = await service();
    expect(svc).to.include({ desiredRevision: 2, currentRevision: 2, failedRevision: null });

    const diff = await w.admin.get(`/api/services/${serviceId}/revisions/diff?from=1&to=2`);
    expect(diff.status, diff.text).to.equal(200);
    const paths = diff.body.changes.map((c: { path: string }) => c.path);
    expect(paths).to.include.members(['image.tag', 'template.env.GREETING']);
    expect(diff.body.changes.find((c: { path: string }) => c.path === 'template.env.GREETING')).to.deep.include({ from: 'hello', to: 'bonjour' });
    expect(diff.body.unified).to.match(/^-\s+tag: v1$/m).and.to.match(/^\+\s+tag: v2$/m);
  });

  it('leaves the last good revision current after a failed deploy, and says so in the status', async () => {
    // a tag whose container turns unhealthy and an env change in one request: the rollback must
    // put back revision 2 as it was rendered, not today's spec with the old tag
    const patch = await w.admin.patch(`/api/services/${serviceId}`, { imageTag: 'unhealthy', env: { GREETING: 'broken' } });
    expect(patch.status, patch.text).to.equal(200);
    const failed = await waitPlan(w, await latestPlanId());
    expect(failed.status).to.equal('rolled_back');
    expect(failed.steps[0].revision).to.equal(3);
    const svc = await service();
    expect(svc).to.include({ desiredRevision: 3, currentRevision: 2 });
    expect(svc.failedRevision.revision).to.equal(3);
    expect(svc.failedRevision.reason).to.match(/unhealthy/i);
    expect(svc.conditions.find((c: { type: string }) => c.type === 'Degraded').message).to.match(/^running r2 \(last good\); r3 failed: .*unhealthy/i);
    // the rollback put back revision 2 as it was rendered: v2 with its env, not today's spec
    expect(await onServer()).to.deep.include({ image: w.fleet.images.webV2, greeting: 'bonjour', running: true });
    const r3 = await w.admin.get(`/api/services/${serviceId}/revisions/3`);
    expect(r3.body).to.include({ outcome: 'failed', imageTag: 'unhealthy' });
  });

  it('brings a container removed by hand back at the last good revision through its Docker event', async () => {
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'heal' });
    await until('the docker events watch of s1', async () => w.svc.logs.some((l) => l.includes('docker events watch open') && l.includes(w.servers.s1!)), { timeoutMs: 60_000 });
    await serverExec('s1', ['docker', 'rm', '-f', container]);
    // 15 s is the bound; the resync is 300 s away, so only the event can do it
    const back = await until('the container back at revision 2', async () => {
      const c = await onServer();
      return c?.running && c.image === w.fleet.images.webV2 && c;
    }, { timeoutMs: 15_000, everyMs: 250 });
    expect(back.greeting).to.equal('bonjour');
    // a heal restores; it never retries the failed revision nor changes what is desired
    const svc = await service();
    expect(svc).to.include({ desiredRevision: 3, currentRevision: 2 });
    expect(svc.failedRevision.revision).to.equal(3);
    const heal = await w.s.db('deployment_plans').where({ environmentId: w.envId, trigger: 'drift-heal' }).orderBy('createdAt', 'desc').first();
    const steps = await w.s.db('plan_steps').where({ planId: heal.id });
    expect(steps.map((x) => [x.revision, x.imageTag])).to.deep.equal([[2, 'v2']]);
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'warn' });
  });

  it('reverts to the first revision through a plan, clears the failure, and a viewer cannot', async () => {
    const { client: viewer } = await userWithRole(w.admin, 'viewer');
    const refused = await viewer.post(`/api/services/${serviceId}/revisions/1/revert`, {});
    expect(refused.status).to.equal(403);
    const res = await w.admin.post(`/api/services/${serviceId}/revisions/1/revert?wait=true`, {});
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('succeeded');
    expect(await onServer()).to.deep.include({ image: w.fleet.images.webV1, greeting: 'hello', running: true });
    const svc = await service();
    expect(svc).to.include({ desiredRevision: 4, currentRevision: 4, failedRevision: null, imageTag: 'v1' });
    expect(svc.env).to.deep.equal({ GREETING: 'hello' });
    const r4 = (await w.admin.get(`/api/services/${serviceId}/revisions/4`)).body;
    expect(r4).to.include({ source: 'revert', revertedFrom: 1, outcome: 'succeeded' });
    const same = await w.admin.get(`/api/services/${serviceId}/revisions/diff?from=1&to=4`);
    expect(same.body.changes).to.deep.equal([]);
  });
});
