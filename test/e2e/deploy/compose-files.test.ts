// Compose path rules 1, 5 and 6 against a hand-written compose file on a server, shared by two
// deployments: it is validated against the disk, used with the new tag, and never rewritten.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, startWorld, type World } from './deploy-world.js';

describe('deployments backed by a compose file on the server (e2e)', function () {
  this.timeout(120_000);
  let w: World;
  let dir: string;
  let a: Awaited<ReturnType<typeof addService>>;
  let c: Awaited<ReturnType<typeof addService>>;
  const sha = async () => (await serverExec('s1', ['sha256sum', `${dir}/docker-compose.yml`])).split(' ')[0];
  before(async () => {
    w = await startWorld();
    dir = `/srv/e2e-${w.tag}`;
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: true });
    const image = w.fleet.images.webV1.replace(/:v1$/, '');
    const yml = `services:\n  a-${w.tag}:\n    image: ${image}:\${STEVEDORE_IMAGE_TAG:-v1}\n  b-${w.tag}:\n    image: ${image}:v1\n`;
    await serverExec('s1', ['sh', '-c', `mkdir -p ${dir} && cat > ${dir}/docker-compose.yml <<'YML'\n${yml}YML`]);
    a = await addService(w, 'svca', { servers: [] });
    const b = await addService(w, 'svcb', { servers: [] });
    c = await addService(w, 'svcc', { servers: [] });
    for (const [svc, name] of [[a, 'a'], [b, 'b'], [c, 'c']] as const) {
      svc.deployments.push(await w.s.deployments.create(svc.service.id, w.envId, { serverId: w.servers.s1, containerName: `${name}-${w.tag}`, composePath: `${dir}/docker-compose.yml` }));
    }
  });
  after(async () => {
    await serverExec('s1', ['sh', '-c', `docker ps -aq --filter label=com.docker.compose.project=e2e-${w.tag} | xargs -r docker rm -f; rm -rf ${dir}`]).catch(() => undefined);
    await cleanup(w);
  });

  it('deploys a new tag through the shared file, keeps its path and never rewrites it', async () => {
    const before = await sha();
    const dry = await w.admin.post(`/api/services/${a.service.id}/deployments/${a.deployments[0].id}/deploy`, { imageTag: 'v2', dryRun: true });
    expect(dry.body.steps[0]).to.include({ mode: 'compose-external', composePath: `${dir}/docker-compose.yml` });
    expect(dry.body.steps[0].actions.join('\n')).to.include('shared: never rewritten');
    const res = await w.admin.post(`/api/services/${a.service.id}/deploy?wait=true`, { imageTag: 'v2' });
    expect(res.body.status, JSON.stringify(res.body.steps?.[0])).to.equal('succeeded');
    expect(await sha()).to.equal(before);
    expect((await w.s.deployments.findById(a.deployments[0].id))!.composePath).to.equal(`${dir}/docker-compose.yml`);
    const images = await serverExec('s1', ['docker', 'ps', '--filter', `label=com.docker.compose.service=a-${w.tag}`, '--format', '{{.Image}}']);
    expect(images.trim()).to.match(/web:v2$/);
    expect(await w.s.plans.artifacts.latest(a.deployments[0].id, 'compose')).to.equal(undefined);
    const drift = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    expect(drift.body.items.find((i: { deploymentId: string }) => i.deploymentId === a.deployments[0].id).drifted).to.equal(false);
  });

  it('refuses before rollout a deployment whose containerName the file does not define', async () => {
    const plans = await w.s.db('deployment_plans').count({ n: '*' });
    const res = await w.admin.post(`/api/services/${c.service.id}/deploy`, { imageTag: 'v1' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.message).to.include(`does not define a service keyed "c-${w.tag}"`);
    expect(res.body.hint).to.match(/Rename the compose service/);
    expect(await w.s.db('deployment_plans').count({ n: '*' })).to.deep.equal(plans);
  });
});
