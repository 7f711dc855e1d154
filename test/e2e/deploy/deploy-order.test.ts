import { expect } from 'chai';
import { addService, cleanup, containerImage, httpBody, startWorld, waitPlan, type World } from './deploy-world.js';

describe('deploying services to the fleet (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let api: Awaited<ReturnType<typeof addService>>;
  let web: Awaited<ReturnType<typeof addService>>;
  before(async () => {
    w = await startWorld();
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: true });
    api = await addService(w, 'api', { servers: ['s1', 's2'] });
    web = await addService(w, 'web', { servers: ['s1', 's2'], dependsOn: [api.service.id] });
  });
  after(() => cleanup(w));

  it('deploys web after the api it depends on, to two servers, through generated compose files', async () => {
    const res = await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, {
      items: [{ serviceId: web.service.id }, { serviceId: api.service.id }], execute: true, strategy: 'parallel',
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.steps.map((x: { containerName: string }) => x.containerName.split('-')[0])).to.deep.equal(['api', 'api', 'web', 'web']);
    const plan = await waitPlan(w, res.body.id);
    expect(plan.status, JSON.stringify(plan.steps.map((x: { error: string }) => x.error))).to.equal('succeeded');
    const started = plan.steps.map((x: { startedAt: string }) => Date.parse(x.startedAt));
    const apiDone = Math.max(...plan.steps.slice(0, 2).map((x: { finishedAt: string }) => Date.parse(x.finishedAt)));
    expect(Math.min(...started.slice(2))).to.be.at.least(apiDone);
    for (const d of [...api.deployments, ...web.deployments]) {
      const server = d.containerName.split('-').at(-1)!;
      expect(await httpBody(server, d.containerName)).to.include('web v1');
      const row = await w.s.deployments.findById(d.id);
      expect(row!.composePath).to.equal(`/opt/stevedore/deployments/${d.containerName}/docker-compose.yml`);
    }
    const audit = await w.s.db('audit_logs').where({ action: 'updateDeploymentComposePath' });
    expect(audit.map((a) => a.details.source)).to.deep.equal(['generator', 'generator', 'generator', 'generator']);
  });

  it('keeps the environment out of the compose file, in a second compose file with mode 0600', async () => {
    const d = web.deployments[0];
    const { serverExec } = await import('../../fleet/fleet.js');
    const dir = `/opt/stevedore/deployments/${d.containerName}`;
    expect((await serverExec('s1', ['stat', '-c', '%a', `${dir}/docker-compose.stevedore-env.yml`])).trim()).to.equal('600');
    expect(await serverExec('s1', ['cat', `${dir}/docker-compose.yml`])).to.not.include('hello');
  });

  it('deploys a new tag, records it on the service only after success, and lists the artifacts', async () => {
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'v2', strategy: 'parallel' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('succeeded');
    for (const d of web.deployments) {
      expect(await httpBody(d.containerName.split('-').at(-1)!, d.containerName)).to.include('web v2');
    }
    expect((await w.s.services.findById(web.service.id))!.imageTag).to.equal('v2');
    const arts = await w.admin.get(`/api/services/${web.service.id}/deployments/${web.deployments[0].id}/artifacts`);
    expect(arts.body.total).to.equal(4);
    const env = arts.body.items.find((a: { kind: string }) => a.kind === 'env');
    const dl = await w.admin.get(`/api/services/${web.service.id}/deployments/${web.deployments[0].id}/artifacts/${env.id}/download`);
    expect(dl.text).to.equal(`services:\n  ${web.deployments[0].containerName}:\n    environment:\n      GREETING: hello\n`);
    expect(await containerImage('s2', web.deployments[1].containerName)).to.match(/web:v2 running$/);
  });

  it('rolls an unhealthy tag back automatically and the old container serves again', async () => {
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'unhealthy' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('rolled_back');
    expect(res.body.steps.map((x: { status: string }) => x.status)).to.deep.equal(['rolled_back', 'skipped']);
    expect(res.body.steps[0].error).to.match(/unhealthy/);
    expect(await httpBody('s1', web.deployments[0].containerName)).to.include('web v2');
    // the desired tag stays what was asked for, and the service says it is not reached (and why);
    // the deployment records what runs
    const service = (await w.s.services.findById(web.service.id))!;
    expect(service.imageTag).to.equal('unhealthy');
    expect(service.conditions.find((c) => c.type === 'Degraded')).to.include({ status: 'True', reason: 'HealthCheckFailed' });
    expect((await w.s.deployments.findById(web.deployments[0].id))!.imageTag).to.equal('v2');
  });
});
