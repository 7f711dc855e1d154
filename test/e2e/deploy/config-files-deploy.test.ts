// Attached config files reach the container: written under the deployment's own directory on the
// server and bind-mounted read-only at targetPath. Checked inside the container (docker exec).
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { reconcileDrift } from '../../../reconcilers/deployment/reconcile-drift.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy-world.js';

const HEALTHY = { test: ['CMD-SHELL', 'true'], intervalSec: 1, timeoutSec: 20, retries: 5 };

describe('config files in deploys and drift (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let app: Awaited<ReturnType<typeof addService>>;
  let name: string;
  let fileId: string;
  const target = '/etc/app/app.conf';
  const inContainer = () => serverExec('s1', ['docker', 'exec', name, 'cat', target]);
  const containerId = async () => (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}}', name])).trim();

  before(async () => {
    w = await startWorld();
    app = await addService(w, 'cfg', { servers: ['s1'], healthCheck: HEALTHY });
    name = app.deployments[0].containerName;
    expect((await w.admin.post(`/api/environments/${w.envId}/vars`, { key: 'LISTEN_PORT', value: '8080' })).status).to.equal(201);
    const file = await w.admin.post(`/api/environments/${w.envId}/config-files`, { name: 'app.conf', content: 'listen ${LISTEN_PORT}\n' });
    expect(file.status, file.text).to.equal(201);
    fileId = file.body.id;
    const att = await w.admin.post(`/api/config-files/${fileId}/attachments`, { serviceId: app.service.id, targetPath: target });
    expect(att.status, att.text).to.equal(201);
  });
  after(() => cleanup(w));

  it('a deploy writes the attached file, rendered, and the container reads it at targetPath (read-only)', async () => {
    const res = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, {});
    expect(res.body.status, res.text).to.equal('succeeded');
    expect(await inContainer()).to.equal('listen 8080\n');
    const mount = JSON.parse(await serverExec('s1', ['docker', 'inspect', '--format', '{{json .Mounts}}', name]))
      .find((m: { Destination: string }) => m.Destination === target);
    expect(mount).to.include({ Source: `/opt/stevedore/deployments/${name}/files${target}`, RW: false });
  });

  it('an edit to the file recreates the container on the next deploy, which then reads the new content', async () => {
    const before = await containerId();
    expect((await w.admin.patch(`/api/config-files/${fileId}`, { content: "listen ${LISTEN_PORT} reuseport\n" })).status).to.equal(200);
    const drift = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    expect(drift.body.items[0].actions.map((a: { reason: string }) => a.reason)).to.deep.equal(['ConfigFileChanged']);
    const res = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, {});
    expect(res.body.status, res.text).to.equal('succeeded');
    expect(await inContainer()).to.equal('listen 8080 reuseport\n');
    expect(await containerId()).to.not.equal(before);
  });

  it('a config file changed by hand on the server is drift, and heal writes it back', async () => {
    await serverExec('s1', ['sh', '-c', `echo 'listen 9999' > /opt/stevedore/deployments/${name}/files${target}`]);
    expect(await inContainer()).to.equal('listen 9999\n');
    const drift = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    expect(drift.body.items[0].actions.map((a: { reason: string }) => a.reason), JSON.stringify(drift.body)).to.deep.equal(['ConfigFileChanged']);
    await w.s.settings.patch(w.envId, 'operations', { driftPolicy: 'heal' });
    await reconcileDrift(w.s, w.envId);
    const plan = await w.s.db('deployment_plans').where({ environmentId: w.envId, trigger: 'drift-heal' }).first();
    expect(plan, 'a heal plan').to.not.equal(undefined);
    expect((await waitPlan(w, plan.id)).status).to.equal('succeeded');
    expect(await inContainer()).to.equal('listen 8080 reuseport\n');
    expect((await w.admin.get(`/api/environments/${w.envId}/drift`)).body.drifted).to.equal(0);
  });
});
