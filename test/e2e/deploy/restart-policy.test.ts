// A service's restartPolicy on the fleet: the container is created with it (directly, or from the
// generated compose file), a change is a new revision that recreates the container with the new
// policy, and a policy changed by hand (`docker update --restart`) is drift that driftPolicy heal
// converges back. What runs is read on the server itself (docker inspect over the fleet's ssh),
// never through the controller.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { reconcileDrift } from '../../../reconcilers/deployment/reconcile-drift.js';
import { cleanup, startWorld, waitPlan, type World } from './deploy-world.js';

describe('restart policy of a service on the fleet (e2e)', function () {
  this.timeout(240_000);
  let w: World;

  before(async () => {
    w = await startWorld();
  });
  after(() => cleanup(w));

  /** The container's id and restart policy as Docker on the server reports them ("on-failure:3", "always:0"). */
  async function onServer(server: string, container: string): Promise<{ id: string; policy: string }> {
    const out = await serverExec(server, ['docker', 'inspect', '--format', '{{.Id}} {{.HostConfig.RestartPolicy.Name}}:{{.HostConfig.RestartPolicy.MaximumRetryCount}}', container]);
    const [id, policy] = out.trim().split(' ');
    return { id, policy };
  }

  /** A service created through the API with `restartPolicy`, one deployment on `server`, deployed. */
  async function deployed(name: string, server: string, restartPolicy: string) {
    const created = await w.admin.post(`/api/environments/${w.envId}/services`, {
      name: `${name}-${w.tag}`, containerImageId: w.imageId, imageTag: 'v1', env: { GREETING: 'hello' }, restartPolicy,
    });
    expect(created.status, created.text).to.equal(201);
    const containerName = `${name}-${w.tag}-${server}`;
    const dep = await w.admin.post(`/api/services/${created.body.id}/deployments`, { serverId: w.servers[server], containerName });
    expect(dep.status, dep.text).to.equal(201);
    const plan = await w.admin.post(`/api/services/${created.body.id}/deploy?wait=true`, {});
    expect(plan.body.status, plan.text).to.equal('succeeded');
    return { serviceId: created.body.id as string, deploymentId: dep.body.id as string, containerName };
  }

  it('creates the container with restartPolicy on-failure:3', async () => {
    const { containerName } = await deployed('rp-create', 's1', 'on-failure:3');
    expect((await onServer('s1', containerName)).policy).to.equal('on-failure:3');
  });

  it('writes it into the generated compose file in compose mode, "no" quoted', async () => {
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: true });
    try {
      const { containerName } = await deployed('rp-compose', 's1', 'no');
      expect((await onServer('s1', containerName)).policy).to.equal('no:0');
      const file = await serverExec('s1', ['cat', `/opt/stevedore/deployments/${containerName}/docker-compose.yml`]);
      expect(file).to.match(/^ {4}restart: "no"$/m);
    } finally {
      await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: false });
    }
  });

  it('a change to always is a new revision that recreates the container with it', async () => {
    const { serviceId, containerName } = await deployed('rp-change', 's2', 'on-failure:3');
    const before = await onServer('s2', containerName);
    expect(before.policy).to.equal('on-failure:3');
    const patched = await w.admin.patch(`/api/services/${serviceId}`, { restartPolicy: 'always' });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body).to.include({ restartPolicy: 'always', desiredRevision: 2 });
    const step = await w.s.db('plan_steps').where({ serviceId, revision: 2 }).first();
    expect((await waitPlan(w, step.planId)).status).to.equal('succeeded');
    const after = await onServer('s2', containerName);
    expect(after.policy).to.equal('always:0');
    expect(after.id, 'a new container').to.not.equal(before.id);
    const diff = await w.admin.get(`/api/services/${serviceId}/revisions/diff?from=1&to=2`);
    expect(diff.body.changes).to.deep.include({ path: 'template.restartPolicy', from: 'on-failure:3', to: 'always' });
    expect((await w.admin.get(`/api/services/${serviceId}`)).body).to.include({ desiredRevision: 2, currentRevision: 2 });
  });

  it('a policy changed by hand is reported drifted and healed back with driftPolicy heal', async () => {
    const { deploymentId, containerName } = await deployed('rp-drift', 's3', 'always');
    const deployedId = (await onServer('s3', containerName)).id;
    await serverExec('s3', ['docker', 'update', '--restart=no', containerName]);
    expect(await onServer('s3', containerName)).to.deep.equal({ id: deployedId, policy: 'no:0' });

    const report = await w.admin.get(`/api/servers/${w.servers.s3}/drift`);
    expect(report.status, report.text).to.equal(200);
    const item = report.body.items.find((i: { deploymentId: string }) => i.deploymentId === deploymentId);
    expect(item).to.include({ drifted: true, action: 'recreate' });
    expect(item.actions.map((a: { field: string; reason: string; message: string }) => [a.field, a.reason, a.message]))
      .to.deep.equal([['restart', 'SpecChanged', `restart policy of ${containerName} is no, desired always`]]);

    // warn (the default): recorded in the deployment's status, nothing touched
    await reconcileDrift(w.s, w.envId);
    const drifted = (await w.s.deployments.findById(deploymentId))!.conditions.find((c) => c.type === 'Drifted')!;
    expect(drifted).to.include({ status: 'True', reason: 'SpecChanged' });
    expect((await onServer('s3', containerName)).id).to.equal(deployedId);

    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'heal' });
    try {
      await reconcileDrift(w.s, w.envId);
      const plan = await w.s.db('plan_steps').join('deployment_plans', 'deployment_plans.id', 'plan_steps.planId')
        .where({ 'plan_steps.deploymentId': deploymentId, 'deployment_plans.trigger': 'drift-heal' }).first('deployment_plans.id');
      expect(plan, 'a drift-heal plan').to.not.equal(undefined);
      expect((await waitPlan(w, plan.id)).status).to.equal('succeeded');
    } finally {
      await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'warn' });
    }
    const healed = await onServer('s3', containerName);
    expect(healed.policy).to.equal('always:0');
    expect(healed.id, 'recreated: a start would keep the wrong policy').to.not.equal(deployedId);
    const again = await w.admin.get(`/api/servers/${w.servers.s3}/drift`);
    expect(again.body.items.find((i: { deploymentId: string }) => i.deploymentId === deploymentId)).to.include({ drifted: false });
    const conditions = (await w.admin.get(`/api/services/${(await w.s.deployments.findById(deploymentId))!.serviceId}`)).body.deployments[0].conditions;
    expect(conditions.find((c: { type: string }) => c.type === 'Drifted')).to.include({ status: 'False' });
  });
});
