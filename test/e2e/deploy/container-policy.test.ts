// The container policy on the fleet (issue 34): an operator's service with volumes `/:/host` and
// the Docker socket is refused under baseline and nothing runs; with containerPolicy privileged
// it deploys (read on the server with docker inspect); a policy tightened after that deploy fails
// the next plan's step with the policy's message, before the old container is touched.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { userWithRole } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { cleanup, startWorld, waitPlan, type World } from './deploy-world.js';

const ATTACK = ['/:/host', '/var/run/docker.sock:/var/run/docker.sock'];

describe('container policy on the fleet (e2e)', function () {
  this.timeout(240_000);
  let w: World;
  let operator: HttpClient;
  const ops = () => `/api/environments/${w.envId}/settings/operations`;

  before(async () => {
    w = await startWorld();
    operator = (await userWithRole(w.admin, 'operator')).client;
  });
  after(() => cleanup(w));

  /** Every container of this test on s1, as `name image status`. */
  const containersOnS1 = async () => (await serverExec('s1', ['docker', 'ps', '-a', '--filter', `name=-${w.tag}-`, '--format', '{{.Names}} {{.Image}} {{.Status}}']))
    .trim().split('\n').filter(Boolean);

  async function mountsOf(container: string): Promise<Array<{ Type: string; Source: string; Destination: string }>> {
    return JSON.parse(await serverExec('s1', ['docker', 'inspect', '--format', '{{json .Mounts}}', container]));
  }

  it("baseline refuses the issue's attack: 400 naming the volume and the policy, and no container runs", async () => {
    const res = await operator.post(`/api/environments/${w.envId}/services`, { name: `rooted-${w.tag}`, containerImageId: w.imageId, imageTag: 'v1', volumes: ATTACK });
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'volumes.0' });
    expect(res.body.message).to.include('the container policy baseline of this environment refuses it');
    // an operator cannot loosen the policy
    expect((await operator.patch(ops(), { containerPolicy: 'privileged' })).status).to.equal(403);
    expect((await w.admin.get(`/api/environments/${w.envId}/services`)).body.items).to.deep.equal([]);
    expect(await containersOnS1()).to.deep.equal([]);
  });

  it('privileged deploys it; a policy tightened afterwards fails the next step with the message and leaves the old container as it ran', async () => {
    expect((await w.admin.patch(ops(), { containerPolicy: 'privileged' })).status).to.equal(200);
    const created = await operator.post(`/api/environments/${w.envId}/services`, {
      name: `rooted-${w.tag}`, containerImageId: w.imageId, imageTag: 'v1', env: { GREETING: 'hello' }, volumes: ATTACK,
    });
    expect(created.status, created.text).to.equal(201);
    const containerName = `rooted-${w.tag}-s1`;
    const dep = await operator.post(`/api/services/${created.body.id}/deployments`, { serverId: w.servers.s1, containerName });
    expect(dep.status, dep.text).to.equal(201);
    const first = await operator.post(`/api/services/${created.body.id}/deploy?wait=true`, {});
    expect(first.body.status, JSON.stringify(first.body.steps?.map((x: { error: string }) => x.error))).to.equal('succeeded');
    const mounts = await mountsOf(containerName);
    expect(mounts.map((m) => `${m.Type} ${m.Source}:${m.Destination}`)).to.include.members(['bind /:/host', 'bind /var/run/docker.sock:/var/run/docker.sock']);
    const before = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}} {{.State.Running}} {{.Config.Image}}', containerName])).trim();

    expect((await w.admin.patch(ops(), { containerPolicy: 'baseline' })).status).to.equal(200);
    // a change that recreates the container: the plan renders it, and the policy stops the step
    const patched = await operator.patch(`/api/services/${created.body.id}`, { env: { GREETING: 'changed' } });
    expect(patched.status, patched.text).to.equal(200);
    const step = await w.s.db('plan_steps').where({ serviceId: created.body.id, revision: 2 }).first();
    const plan = await waitPlan(w, step.planId);
    // the failed step touched nothing, so its rollback has nothing to undo
    expect(plan.status).to.be.oneOf(['failed', 'rolled_back']);
    const error = plan.steps.map((x: { error: string | null }) => x.error).find(Boolean);
    expect(error).to.equal("volumes.0: the host path / is the server's whole filesystem; the container policy baseline of this environment refuses it");
    // the write-time answer for the same volume is the same message
    const again = await operator.patch(`/api/services/${created.body.id}`, { volumes: ATTACK });
    expect(again.body.message).to.equal(error);
    // and a revert to the revision that ran is a write like it: 400, no plan
    const plansBefore = (await w.s.db('deployment_plans').where({ environmentId: w.envId })).length;
    const revert = await operator.post(`/api/services/${created.body.id}/revisions/1/revert`, {});
    expect(revert.status, revert.text).to.equal(400);
    expect(revert.body).to.include({ code: 'VALIDATION_ERROR', field: 'volumes.0', message: error });
    expect((await w.s.db('deployment_plans').where({ environmentId: w.envId })).length).to.equal(plansBefore);
    expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}} {{.State.Running}} {{.Config.Image}}', containerName])).trim()).to.equal(before);
    expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', containerName]))).to.include('GREETING=hello');
  });

  it('a bind source that is a symlink to / on the server is refused when the plan renders it, and nothing runs', async () => {
    const dir = `/srv/policy-${w.tag}`;
    await serverExec('s1', ['sh', '-c', `mkdir -p ${dir} && ln -sfn / ${dir}/link`]);
    try {
      const created = await operator.post(`/api/environments/${w.envId}/services`, {
        name: `linked-${w.tag}`, containerImageId: w.imageId, imageTag: 'v1', env: { GREETING: 'hello' }, volumes: [`${dir}/link:/host`],
      });
      expect(created.status, created.text).to.equal(201);
      const containerName = `linked-${w.tag}-s1`;
      expect((await operator.post(`/api/services/${created.body.id}/deployments`, { serverId: w.servers.s1, containerName })).status).to.equal(201);
      const plan = await operator.post(`/api/services/${created.body.id}/deploy?wait=true`, {});
      expect(plan.body.status).to.be.oneOf(['failed', 'rolled_back']);
      expect(plan.body.steps.map((x: { error: string | null }) => x.error).find(Boolean)).to.equal(
        `volumes.0: the host path ${dir}/link (a symlink to / on the server) is the server's whole filesystem; the container policy baseline of this environment refuses it`);
      expect((await containersOnS1()).filter((c) => c.startsWith(containerName))).to.deep.equal([]);
    } finally {
      await serverExec('s1', ['rm', '-rf', dir]);
    }
  });
});
