import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, startWorld, type World } from './deploy-world.js';

describe('deploys from a registry that needs credentials (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let registryId: string;
  let image: string;

  before(async () => {
    w = await startWorld();
    const auth = w.fleet.authRegistry;
    image = `${auth.address}/stevedore-test/web`;
    const reg = await w.admin.post(`/api/environments/${w.envId}/registries`, {
      name: 'private', type: 'generic', registryUrl: `http://${auth.address}`, username: auth.username, password: auth.password,
    });
    expect(reg.status, reg.text).to.equal(201);
    registryId = reg.body.id;
    const img = await w.admin.post(`/api/environments/${w.envId}/container-images`, { imageName: image, registryConnectionId: registryId });
    expect(img.status, img.text).to.equal(201);
    w.imageId = img.body.id;
  });
  after(() => cleanup(w));

  it('pulls with the registry connection\'s credentials and leaves none on the server', async () => {
    const app = await addService(w, 'priv', { servers: ['s1'] });
    const res = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, {});
    expect(res.body.status, res.text).to.equal('succeeded');
    const running = await serverExec('s1', ['docker', 'inspect', '--format', '{{.Config.Image}}', app.deployments[0].containerName]);
    expect(running.trim()).to.equal(`${image}:v1`);
    const dockerConfig = await serverExec('s1', ['sh', '-c', 'cat /root/.docker/config.json 2>/dev/null || true']);
    expect(dockerConfig).to.not.contain(w.fleet.authRegistry.address);
    const plan = await w.admin.get(`/api/deployment-plans/${res.body.id}`);
    expect(JSON.stringify(plan.body)).to.not.contain(w.fleet.authRegistry.password);
  });

  it('fails the step with a clear message when the credentials are wrong', async () => {
    expect((await w.admin.patch(`/api/registries/${registryId}`, { password: 'not-the-password' })).status).to.equal(200);
    const app = await addService(w, 'badcred', { servers: ['s2'], imageTag: 'v2' });
    const res = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, {});
    expect(res.body.status, res.text).to.be.oneOf(['failed', 'rolled_back']);
    const steps = JSON.stringify(res.body.steps ?? (await w.admin.get(`/api/deployment-plans/${res.body.id}`)).body.steps);
    expect(steps).to.match(/unauthorized|authentication required|no basic auth credentials/i);
    expect(steps).to.not.contain('not-the-password');
  });
});
