// An automatic rollback returns the service to its last good revision on every deployment of the
// plan, not only the revision each step replaced. Plans a newer request superseded never roll
// back, so a container can be left on a revision of its own that never became good; the failed
// rollout after them must not leave it there while the service says it runs the last good one
// (found by bench/chaos.ts). Here a one-deployment deploy is that container, then a rollout of a
// tag the registry does not have fails. What runs is read on the servers (docker inspect).
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy-world.js';

describe('an automatic rollback goes to the last good revision (e2e)', function () {
  this.timeout(300_000);
  let w: World;

  before(async () => {
    w = await startWorld();
  });
  after(() => cleanup(w));

  const imageOn = async (server: string, container: string) =>
    (await serverExec(server, ['docker', 'inspect', '--format', '{{.Config.Image}} {{.State.Running}}', container])).trim();

  it('restores a container another request left on a revision that never succeeded, and records the last good one', async () => {
    const { service, deployments } = await addService(w, 'lastgood', { servers: ['s1', 's2'] });
    const [one, two] = deployments as [typeof deployments[0], typeof deployments[0]];
    const first = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, {});
    expect(first.body.status, first.text).to.equal('succeeded');
    // v2 on one deployment only: revision 2 runs on s1 and never fully succeeded
    const partial = await w.admin.post(`/api/services/${service.id}/deployments/${one.id}/deploy?wait=true`, { imageTag: 'v2' });
    expect(partial.body.status, partial.text).to.equal('succeeded');
    expect(await imageOn('s1', one.containerName)).to.equal(`${w.fleet.images.webV2} true`);
    const between = (await w.admin.get(`/api/services/${service.id}`)).body;
    expect(between).to.include({ desiredRevision: 2, currentRevision: 1 });

    const failing = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, { imageTag: 'missing-tag', strategy: 'rolling' });
    expect(failing.status, failing.text).to.equal(200);
    const plan = await waitPlan(w, failing.body.id);
    expect(plan.status, JSON.stringify(plan.steps.map((x: { log: string }) => x.log))).to.equal('rolled_back');

    // both containers run revision 1's image again, on the servers themselves
    expect(await imageOn('s1', one.containerName)).to.equal(`${w.fleet.images.webV1} true`);
    expect(await imageOn('s2', two.containerName)).to.equal(`${w.fleet.images.webV1} true`);
    const after = (await w.admin.get(`/api/services/${service.id}`)).body;
    expect(after).to.include({ desiredRevision: 3, currentRevision: 1 });
    expect(after.failedRevision.revision).to.equal(3);
    expect(after.deployments.map((d: { revision: number }) => d.revision)).to.deep.equal([1, 1]);
    const r1 = (await w.admin.get(`/api/services/${service.id}/revisions/1`)).body;
    for (const d of r1.spec.deployments as Array<{ serverName: string; containerName: string; specHash: string }>) {
      const label = (await serverExec(d.serverName, ['docker', 'inspect', '--format', '{{index .Config.Labels "stevedore.spec-hash"}}', d.containerName])).trim();
      expect(label, d.containerName).to.equal(d.specHash);
    }
    const s1Step = plan.steps.find((x: { deploymentId: string }) => x.deploymentId === one.id);
    expect(s1Step.log).to.match(/restoring revision 1, the last good one \(v1\); it ran revision 2/);
  });
});
