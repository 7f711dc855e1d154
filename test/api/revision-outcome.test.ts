// A plan's end as its revisions' outcome (reconcilers/service/revisions.ts recordPlanOutcome),
// against the real store: which revision is the service's last good one. A rollout that every
// deployment of the service ran is the last good state, even when a newer request became desired
// while it finished (bench/chaos.ts found the service falling back to an older revision than the
// one its containers ran: a status that lied). The plans here are rows: what runs on servers is
// tested on the fleet (test/e2e/deploy/rollback-last-good.test.ts).
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { Services } from '../../controller/services.js';
import { recordPlanOutcome } from '../../reconcilers/service/revisions.js';

describe('a plan\'s end records the last good revision', function () {
  this.timeout(60_000);
  let svc: TestService;
  let s: Services;
  let envId: string;
  let serverId: string;
  let imageId: string;
  let n = 0;

  before(async () => {
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    s = svc.services;
    envId = (await createEnvironment(await bootstrapAdmin(svc.http))).id;
    serverId = (await s.servers.insert({ environmentId: envId, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never)).id;
    imageId = (await s.containerImages.insert({ environmentId: envId, imageName: 'registry.test:5000/acme/web' } as never)).id;
  });
  after(() => svc.stop());

  /**
   * A service with revisions 1..3 and two deployments running `running` (one revision each), its
   * revisions recorded as given; then a plan that rolled out `planRevision` ends `status`.
   */
  async function planEnds(o: { running: [number, number]; revisions: { desiredRevision: number; currentRevision: number | null; failedRevision?: number | null };
    planRevision: number; status: 'succeeded' | 'rolled_back' }) {
    const service = await s.services.create(envId, { name: `web-${++n}`, containerImageId: imageId, imageTag: 'v1', env: {} });
    const deployments: Array<{ id: string; containerName: string }> = [];
    for (const [i, revision] of o.running.entries()) {
      const d = await s.deployments.create(service.id, envId, { serverId, containerName: `web-${n}-${i}` });
      await s.deployments.update(d.id, { imageTag: 'v1', revision, status: 'running' });
      deployments.push(d);
    }
    const plan = await s.transaction(async (trx) => {
      for (let r = 0; r < 3; r++) {
        await s.revisions.append({ serviceId: service.id, environmentId: envId, spec: { r }, specHash: `h${r}`, source: 'deploy', createdBy: null }, r, trx);
      }
      await s.services.recordRevisions(service.id, { failedRevision: null, failedReason: null, ...o.revisions }, trx);
      const p = await s.plans.repo.create({ environmentId: envId, name: 'deploy', trigger: 'deploy', items: JSON.stringify([{ serviceId: service.id }]) as never }, trx);
      await s.plans.steps.insertForPlan(p.id, deployments.map((d) => ({
        stage: 0, serviceId: service.id, deploymentId: d.id, serverId, containerName: d.containerName, imageTag: 'v1', revision: o.planRevision, status: 'succeeded' as const,
      })), trx);
      return p;
    });
    await recordPlanOutcome(s, { ...plan, status: o.status, error: o.status === 'succeeded' ? null : 'step failed; rolled back' }, await s.plans.steps.ofPlan(plan.id));
    const row = (await s.services.findById(service.id))!;
    const outcome = (await s.revisions.find(service.id, o.planRevision))!.outcome;
    return { desired: row.desiredRevision, current: row.currentRevision, failed: row.failedRevision, outcome };
  }

  it('the desired revision every deployment runs becomes current and clears the failure', async () => {
    expect(await planEnds({ running: [3, 3], revisions: { desiredRevision: 3, currentRevision: 1, failedRevision: 3 }, planRevision: 3, status: 'succeeded' }))
      .to.deep.equal({ desired: 3, current: 3, failed: null, outcome: 'succeeded' });
  });

  it('a revision every deployment runs is current even when a newer one is desired already; the newer one\'s failure stays', async () => {
    expect(await planEnds({ running: [2, 2], revisions: { desiredRevision: 3, currentRevision: 1 }, planRevision: 2, status: 'succeeded' }))
      .to.deep.equal({ desired: 3, current: 2, failed: null, outcome: 'succeeded' });
    expect(await planEnds({ running: [2, 2], revisions: { desiredRevision: 3, currentRevision: 1, failedRevision: 3 }, planRevision: 2, status: 'succeeded' }))
      .to.deep.equal({ desired: 3, current: 2, failed: 3, outcome: 'succeeded' });
  });

  it('is not current while a deployment runs another revision, nor over a newer current one', async () => {
    expect(await planEnds({ running: [2, 1], revisions: { desiredRevision: 2, currentRevision: 1 }, planRevision: 2, status: 'succeeded' }))
      .to.deep.include({ desired: 2, current: 1, failed: null });
    expect(await planEnds({ running: [2, 2], revisions: { desiredRevision: 3, currentRevision: 3 }, planRevision: 2, status: 'succeeded' }))
      .to.deep.include({ desired: 3, current: 3, failed: null });
  });

  it('a failed rollout of the desired revision records it failed and leaves the last good one current', async () => {
    expect(await planEnds({ running: [1, 1], revisions: { desiredRevision: 3, currentRevision: 1 }, planRevision: 3, status: 'rolled_back' }))
      .to.deep.equal({ desired: 3, current: 1, failed: 3, outcome: 'failed' });
  });
});
