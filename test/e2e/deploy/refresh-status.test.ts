// POST /api/services/{id}/refresh-status observes the service's containers now, on the server,
// through the reconciler's observe-and-record path; GET …/deployments-history/{recordId} reads one
// record of what deployed them.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, startWorld, type World } from './deploy-world.js';

describe('service status refresh and deployment record on the fleet (e2e)', function () {
  this.timeout(120_000);
  let w: World;
  let svc: Awaited<ReturnType<typeof addService>>;

  before(async () => {
    // the periodic resync stays away: only the refresh may notice the change
    w = await startWorld({ SCHEDULER_DRIFT_CHECK_SEC: '86400' });
    svc = await addService(w, 'refresh', { servers: ['s1'] });
    const deployed = await w.admin.post(`/api/services/${svc.service.id}/deploy?wait=true`, {});
    expect(deployed.body.status, deployed.text).to.equal('succeeded');
  });
  after(() => cleanup(w));

  it('records a container stopped by hand as stopped and drifted, and running again once it is started', async () => {
    const d = svc.deployments[0];
    await serverExec('s1', ['docker', 'stop', '-t', '1', d.containerName]);
    const stopped = await w.admin.post(`/api/services/${svc.service.id}/refresh-status`);
    expect(stopped.status, stopped.text).to.equal(200);
    expect(stopped.body.deployments[0]).to.include({ id: d.id, status: 'stopped', drifted: true });
    expect(stopped.body.deployments[0].reasons).to.deep.equal(['ContainerStopped']);
    expect((await w.s.deployments.findById(d.id))!.status).to.equal('stopped');

    await serverExec('s1', ['docker', 'start', d.containerName]);
    const running = await w.admin.post(`/api/services/${svc.service.id}/refresh-status`);
    expect(running.body.deployments[0]).to.include({ status: 'running', drifted: false });
    const drifted = (running.body.deployments[0].conditions as Array<{ type: string; status: string }>).find((c) => c.type === 'Drifted');
    expect(drifted!.status).to.equal('False');
  });

  it('records a container removed by hand as missing everywhere it is shown, with what the drift policy does about it', async () => {
    const d = svc.deployments[0];
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'warn' });
    await serverExec('s1', ['docker', 'rm', '-f', d.containerName]);
    const refreshed = await w.admin.post(`/api/services/${svc.service.id}/refresh-status`);
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(refreshed.body.deployments[0]).to.include({ id: d.id, status: 'missing', statusNote: 'not restored: driftPolicy warn', drifted: true });
    expect(refreshed.body.deployments[0].reasons).to.deep.equal(['ContainerMissing']);
    const ready = (refreshed.body.deployments[0].conditions as Array<{ type: string; status: string; reason: string }>).find((c) => c.type === 'Ready');
    expect(ready).to.include({ status: 'False', reason: 'ContainerMissing' });

    const listed = await w.admin.get(`/api/services/${svc.service.id}/deployments`);
    expect(listed.body.items[0]).to.include({ status: 'missing', statusNote: 'not restored: driftPolicy warn' });
    const service = await w.admin.get(`/api/services/${svc.service.id}`);
    expect(service.body.deployments[0]).to.include({ status: 'missing', statusNote: 'not restored: driftPolicy warn' });
    const drift = await w.admin.get(`/api/environments/${w.envId}/drift`);
    const item = drift.body.items.find((i: { deploymentId: string }) => i.deploymentId === d.id);
    expect(item).to.include({ drifted: true, statusNote: 'not restored: driftPolicy warn' });
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'off' });
    expect((await w.admin.get(`/api/services/${svc.service.id}/deployments`)).body.items[0].statusNote).to.equal('not watched: driftPolicy off');
    // warn restored nothing: the container is still not there
    expect(await serverExec('s1', ['docker', 'ps', '-aq', '--filter', `name=^${d.containerName}$`])).to.equal('');

    const redeployed = await w.admin.post(`/api/services/${svc.service.id}/deploy?wait=true`, {});
    expect(redeployed.body.status, redeployed.text).to.equal('succeeded');
    expect((await w.admin.get(`/api/services/${svc.service.id}/deployments`)).body.items[0]).to.include({ status: 'running', statusNote: null });
  });

  it('reads one record of the deployment history', async () => {
    const history = await w.admin.get(`/api/services/${svc.service.id}/deployments-history`);
    const first = history.body.items.at(-1);
    const res = await w.admin.get(`/api/services/${svc.service.id}/deployments-history/${first.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ id: first.id, status: 'succeeded', containerName: svc.deployments[0].containerName, imageTag: 'v1' });
    expect(res.body.planId).to.equal(first.planId);
    expect(res.body.durationMs).to.be.a('number');
  });
});
