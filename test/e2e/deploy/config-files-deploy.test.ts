import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { reconcileDrift } from '../../../reconcilers/deployment/reconcile-drift.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy-world.js';

describe('config files in deploys and drift (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let app: Awaited<ReturnType<typeof addService>>;
  let target: string;
  const onServer = () => serverExec('s1', ['cat', target]);

  before(async () => {
    w = await startWorld();
    target = `/srv/cfg-${w.tag}/app.conf`;
    app = await addService(w, 'cfg', { servers: ['s1'] });
    expect((await w.admin.post(`/api/environments/${w.envId}/vars`, { key: 'LISTEN_PORT', value: '8080' })).status).to.equal(201);
    const file = await w.admin.post(`/api/environments/${w.envId}/config-files`, { name: 'app.conf', content: 'listen ${LISTEN_PORT}\n' });
    expect(file.status, file.text).to.equal(201);
    const att = await w.admin.post(`/api/config-files/${file.body.id}/attachments`, { serviceId: app.service.id, targetPath: target });
    expect(att.status, att.text).to.equal(201);
  });
  after(async () => {
    await serverExec('s1', ['rm', '-rf', `/srv/cfg-${w?.tag}`]).catch(() => undefined);
    await cleanup(w);
  });

  it('a deploy writes the attached config files, rendered, before the container starts', async () => {
    const res = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, {});
    expect(res.body.status, res.text).to.equal('succeeded');
    expect(await onServer()).to.equal('listen 8080\n');
  });

  it('a config file changed by hand is drift, and heal writes it back', async () => {
    await serverExec('s1', ['sh', '-c', `echo 'listen 9999' > ${target}`]);
    const drift = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    const reasons = drift.body.items.flatMap((i: { actions: Array<{ reason: string }> }) => i.actions.map((a) => a.reason));
    expect(reasons, JSON.stringify(drift.body)).to.deep.equal(['ConfigFileChanged']);
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'heal' });
    await reconcileDrift(w.s, w.envId);
    const plan = await w.s.db('deployment_plans').where({ environmentId: w.envId, trigger: 'drift-heal' }).first();
    expect(plan, 'a heal plan').to.not.equal(undefined);
    expect((await waitPlan(w, plan.id)).status).to.equal('succeeded');
    expect(await onServer()).to.equal('listen 8080\n');
    expect((await w.admin.get(`/api/environments/${w.envId}/drift`)).body.drifted).to.equal(0);
  });
});
