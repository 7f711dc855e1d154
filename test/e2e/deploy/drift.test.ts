import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { until } from '../../support/until.js';
import { reconcileDrift } from '../../../reconcilers/deployment/reconcile-drift.js';
import { addService, cleanup, containerImage, httpBody, startWorld, waitPlan, type World } from './deploy-world.js';

describe('drift of deployments on the fleet (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let composed: Awaited<ReturnType<typeof addService>>;
  let direct: Awaited<ReturnType<typeof addService>>;
  const latestPlan = async () => (await w.s.db('deployment_plans').where({ environmentId: w.envId }).orderBy('createdAt', 'desc').first());
  before(async () => {
    w = await startWorld();
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: true });
    composed = await addService(w, 'cmp', { servers: ['s1'] });
    expect((await w.admin.post(`/api/services/${composed.service.id}/deploy?wait=true`, {})).body.status).to.equal('succeeded');
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: false });
    direct = await addService(w, 'dir', { servers: ['s2'] });
    expect((await w.admin.post(`/api/services/${direct.service.id}/deploy?wait=true`, {})).body.status).to.equal('succeeded');
  });
  after(() => cleanup(w));

  it('reports no drift while the containers match', async () => {
    const res = await w.admin.get(`/api/environments/${w.envId}/drift`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.drifted).to.equal(0);
    expect(res.body.items).to.have.length(2);
  });

  it('sees a container stopped by hand and, with warn, records it and emits drift events', async () => {
    const name = composed.deployments[0].containerName;
    await serverExec('s1', ['docker', 'stop', name]);
    const res = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    expect(res.body.items[0].actions.map((a: { reason: string }) => a.reason)).to.deep.equal(['ContainerStopped']);
    await reconcileDrift(w.s, w.envId);
    // the container's Docker event may have had its look record the conditions first: its events
    // are then published by that look, a moment after the conditions it wrote
    const events = await until('the drift events', async () => {
      const rows = await w.s.db('events').where({ environmentId: w.envId }).whereIn('type', ['drift.changed', 'drift.detected']);
      return rows.length >= 2 && rows;
    }, { timeoutMs: 10_000, everyMs: 100 });
    expect(events.map((e) => e.type).sort()).to.deep.equal(['drift.changed', 'drift.detected']);
    const row = await w.s.deployments.findById(composed.deployments[0].id);
    expect((row!.conditions as Array<{ type: string; status: string }>).find((c) => c.type === 'Drifted')!.status).to.equal('True');
    expect((await latestPlan()).trigger).to.not.equal('drift-heal');
  });

  it('sees an image changed by hand over ssh, with the desired and the running tag', async () => {
    // recreated by hand with the owner labels kept (a container without them is not ours: see below)
    const d = direct.deployments[0];
    const labels = ['stevedore.managed=true', `stevedore.environment-id=${w.envId}`, `stevedore.service-id=${direct.service.id}`, `stevedore.deployment-id=${d.id}`]
      .flatMap((l) => ['--label', l]);
    await serverExec('s2', ['docker', 'rm', '-f', d.containerName]);
    await serverExec('s2', ['docker', 'run', '-d', '--name', d.containerName, ...labels, '--env', 'GREETING=hello', '--restart', 'unless-stopped', w.fleet.images.webV2]);
    const res = await w.admin.get(`/api/servers/${w.servers.s2}/drift`);
    expect(res.body.items[0].actions.map((a: { reason: string }) => a.reason)).to.deep.equal(['ImageChanged']);
    expect(res.body.items[0]).to.include({ desiredImageTag: 'v1', runningImageTag: 'v2', action: 'recreate' });
  });

  it('reports a same-named container Stevedore did not create as a conflict, never as its own', async () => {
    const name = `stranger-${w.tag}-s3`;
    const stranger = await w.s.deployments.create(direct.service.id, w.envId, { serverId: w.servers.s3, containerName: name });
    await w.s.deployments.recordObserved(stranger.id, { imageTag: 'v1' });
    await serverExec('s3', ['docker', 'run', '-d', '--name', name, w.fleet.images.webV1]);
    const res = await w.admin.get(`/api/servers/${w.servers.s3}/drift`);
    const item = res.body.items.find((i: { deploymentId: string }) => i.deploymentId === stranger.id);
    expect(item.actions.map((a: { reason: string; message: string }) => [a.reason, a.message]))
      .to.deep.equal([['NameConflict', `container ${name} on server s3 was not created by Stevedore`]]);
    await serverExec('s3', ['docker', 'rm', '-f', name]);
    await w.s.deployments.delete(stranger.id);
  });

  it('heals both with driftPolicy heal through a plan, and the containers serve the desired tag again', async () => {
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'heal' });
    await reconcileDrift(w.s, w.envId);
    const plan = await latestPlan();
    expect(plan.trigger).to.equal('drift-heal');
    expect((await waitPlan(w, plan.id)).status).to.equal('succeeded');
    expect(await containerImage('s1', composed.deployments[0].containerName)).to.match(/web:v1 running$/);
    expect(await httpBody('s2', direct.deployments[0].containerName)).to.include('web v1');
    const res = await w.admin.get(`/api/environments/${w.envId}/drift`);
    expect(res.body.drifted).to.equal(0);
  });

  it('skips the environment entirely with driftPolicy off', async () => {
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'off' });
    await serverExec('s1', ['docker', 'stop', composed.deployments[0].containerName]);
    const before = await w.s.db('events').where({ environmentId: w.envId }).count({ n: '*' });
    await reconcileDrift(w.s, w.envId);
    expect(await w.s.db('events').where({ environmentId: w.envId }).count({ n: '*' })).to.deep.equal(before);
  });
});
