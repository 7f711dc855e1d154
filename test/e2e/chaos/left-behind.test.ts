// Issue 26, findings 2 and 6, against the real controller (a child process) and the fleet:
// - a controller SIGKILLed between the rename of the old container aside and the end of the
//   health wait leaves `<name>-stevedore-old` (stopped, with the old env and secrets) on the
//   server; after the restart, plan recovery removes it;
// - a config-file attachment stored before the kernel-path rule (a row aiming at /proc) does not
//   break deploys at Docker: the deploy refuses it up front, the old containers keep running, the
//   plan does not end rollback_failed, and no error text shows the server's Docker data dir;
// - a rollback that fails while the previous version kept running (the failed step put the old
//   container back) ends rolled_back: rollback_failed only when a container could not be put back.
// What is on the servers is read through the fleet's own access (server.sh exec: docker in the
// server's namespaces), not through the controller's SSH or SFTP.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { assertHealthy, deployWaiting, startChaos, stopChaos, THROUGH_FAULTS, type Chaos } from './chaos-world.js';
import { until } from '../../support/until.js';
import { httpBody } from '../deploy/deploy-world.js';

/** Names of every container on a server, running or not (docker ps -a). */
const containersOn = async (server: string) => (await serverExec(server, ['docker', 'ps', '-a', '--format', '{{.Names}}'])).split('\n').filter(Boolean);

describe('what an interrupted or refused deploy leaves behind (e2e)', function () {
  this.timeout(600_000);
  let c: Chaos;

  before(async () => {
    c = await startChaos('aside');
  });
  after(() => stopChaos(c));

  it('SIGKILL between the rename aside and the health wait: after the restart the aside container is gone', async () => {
    const d = c.app.deployments[0];
    const server = d.containerName.split('-').at(-1)!;
    const aside = `${d.containerName}-stevedore-old`;
    const res = await c.api().post(`/api/services/${c.app.service.id}/deploy`, { imageTag: 'v2', strategy: 'rolling' });
    expect(res.status, res.text).to.equal(202);
    // the step logs the rename aside, then the start of the new container, then waits for its
    // health (a healthcheck every 2 s): the kill lands in that wait, with both containers there
    await until('the first step to start the new container beside the aside one', async () => {
      const steps = await c.db('plan_steps').where({ planId: res.body.id, deploymentId: d.id });
      return steps.some((st) => (st.log ?? '').includes(`kept aside as ${aside}`) && (st.log ?? '').includes(`started ${d.containerName} from`));
    }, { timeoutMs: 120_000, everyMs: 20 });
    await c.controller.kill('SIGKILL');
    expect(await containersOn(server), 'the kill landed after the rename aside and the new container\'s start').to.include.members([aside, d.containerName]);

    await c.controller.start();
    await assertHealthy(c);
    await until('the aside container to be gone from the server', async () => !(await containersOn(server)).includes(aside), THROUGH_FAULTS);
    expect(await containersOn(server)).to.include(d.containerName);
    const plan = await c.db('deployment_plans').where({ id: res.body.id }).first();
    expect(plan.status, plan.error ?? '').to.equal('succeeded');
    expect(await httpBody(server, d.containerName)).to.include('web v2');
  });

  it('a rollback that fails while the old container runs again ends rolled_back, not rollback_failed', async () => {
    const api = c.api();
    // the image's own healthcheck (no service healthcheck): the `unhealthy` tag never gets healthy
    const created = await api.post(`/api/environments/${c.w.envId}/services`, { name: `judged-${c.w.tag}`, containerImageId: c.w.imageId, imageTag: 'v1' });
    expect(created.status, created.text).to.equal(201);
    const containerName = `judged-${c.w.tag}-s3`;
    const dep = await api.post(`/api/services/${created.body.id}/deployments`, { serverId: c.w.servers.s3, containerName });
    expect(dep.status, dep.text).to.equal(201);
    await deployWaiting(api, created.body.id, 'v1');
    const image = await c.db('container_images').where({ id: c.w.imageId }).first();
    const res = await api.post(`/api/services/${created.body.id}/deploy`, { imageTag: 'unhealthy' });
    expect(res.status, res.text).to.equal(202);
    try {
      await until('the new container to be waited on', async () => {
        const [st] = await c.db('plan_steps').where({ planId: res.body.id });
        return (st?.log ?? '').includes(`started ${containerName} from`);
      }, { timeoutMs: 120_000, everyMs: 20 });
      // the rollback pulls the previous tag again: from an image that is not there, it fails
      await c.db('container_images').where({ id: c.w.imageId }).update({ imageName: `${image.imageName}-gone` });
      const plan = await until('the plan to end', async () => {
        const p = await c.db('deployment_plans').where({ id: res.body.id }).first();
        return !['pending', 'running', 'rolling_back'].includes(p.status) && p;
      }, { timeoutMs: 180_000, everyMs: 200 });
      const [st] = await c.db('plan_steps').where({ planId: res.body.id });
      expect(st.log, 'the rollback did fail').to.match(/rollback: failed: /);
      expect(plan.status, st.log).to.equal('rolled_back');
      expect(st.status).to.equal('rolled_back');
      expect((await serverExec('s3', ['docker', 'inspect', '--format', '{{.State.Running}} {{.Config.Image}}', containerName])).trim()).to.match(/^true .*:v1$/);
    } finally {
      await c.db('container_images').where({ id: c.w.imageId }).update({ imageName: image.imageName });
    }
  });

  it('a stored attachment aiming at /proc: the deploy refuses it up front, nothing breaks, rollback_failed never', async () => {
    const env = (await c.db('services').where({ id: c.app.service.id }).first()).environmentId;
    const [file] = await c.db('config_files').insert({ environmentId: env, name: 'leak.conf', content: 'x=1\n' }).returning('*');
    // written around the API, as a row from before the rule would be
    const [row] = await c.db('config_attachments').insert({ configFileId: file.id, serviceId: c.app.service.id, environmentId: env, targetPath: '/proc/self/environ' }).returning('*');
    const res = await c.api().post(`/api/services/${c.app.service.id}/deploy?wait=true`, { imageTag: 'v1', strategy: 'rolling' });
    expect(res.body.status, res.text).to.be.oneOf(['failed', 'rolled_back']);
    const steps = await c.db('plan_steps').where({ planId: res.body.id });
    const errors = steps.map((st) => `${st.error ?? ''} ${st.rollbackError ?? ''} ${st.log ?? ''}`).join('\n');
    expect(errors).to.include('/proc/self/environ is inside /proc');
    expect(errors).not.to.match(/\/var\/lib\/docker|overlay2|[0-9a-f]{64}\/merged/);
    for (const d of c.app.deployments) {
      const server = d.containerName.split('-').at(-1)!;
      const inspect = (await serverExec(server, ['docker', 'inspect', '--format', '{{.State.Running}} {{json .Mounts}}', d.containerName])).trim();
      expect(inspect, `${d.containerName} still runs, without the mount`).to.match(/^true /);
      expect(inspect).not.to.include('/proc/self/environ');
      expect(await httpBody(server, d.containerName)).to.include('web v2');
    }
    // once the row is gone, deploys work again
    await c.db('config_attachments').where({ id: row.id }).delete();
    await deployWaiting(c.api(), c.app.service.id, 'v1');
    await assertHealthy(c, { versions: ['v1'] });
  });
});
