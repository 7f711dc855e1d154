import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, startWorld, type World } from './deploy-world.js';
import { startStallingRegistry, type StallingRegistry } from '../../support/stalling-registry.js';
import { until } from '../../support/until.js';

const SERVERS = ['s1', 's2', 's3'];

/** Docker events of one server between two of its own clock's seconds: "timeNano actor status" lines. */
async function eventsOn(server: string, since: string, filters: string[]): Promise<Array<{ at: number; actor: string; status: string }>> {
  const out = await serverExec(server, ['docker', 'events', '--since', since, '--until', String(Math.floor(Date.now() / 1000) + 1),
    ...filters.flatMap((f) => ['--filter', f]), '--format', '{{.TimeNano}} {{.Actor.ID}} {{.Status}}']);
  return out.trim().split('\n').filter(Boolean).map((line) => {
    const [at, actor, ...status] = line.split(' ');
    return { at: Number(at) / 1e6, actor: actor!, status: status.join(' ') };
  });
}

describe('image pulls of a plan start with the plan (e2e)', function () {
  this.timeout(120_000);
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => cleanup(w));

  it('a rolling plan over three servers pulls on all of them before its first step is done', async () => {
    // a tag no server has yet: web:v2 pushed under it to the fleet registry from s1, then removed there
    const repo = w.fleet.images.webV2.replace(/:v2$/, '');
    const tag = `pulls-${w.tag}`;
    await serverExec('s1', ['sh', '-c', `docker pull -q ${w.fleet.images.webV2} >/dev/null && docker tag ${w.fleet.images.webV2} ${repo}:${tag} && docker push -q ${repo}:${tag} >/dev/null && docker rmi ${repo}:${tag} >/dev/null`]);
    const { service, deployments } = await addService(w, 'pulls', { servers: SERVERS });
    const since = (await serverExec('s1', ['date', '+%s'])).trim();
    const res = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, { imageTag: tag, strategy: 'rolling' });
    expect(res.body.status, res.text).to.equal('succeeded');
    // the servers' own records: when each pulled the tag, and when the first step's container was healthy
    const pulled: Record<string, number> = {};
    for (const server of SERVERS) {
      const pulls = (await eventsOn(server, since, ['type=image', 'event=pull'])).filter((e) => e.actor === `${repo}:${tag}`);
      expect(pulls, `pulls of ${repo}:${tag} on ${server}`).to.have.length(1);
      pulled[server] = pulls[0]!.at;
    }
    const first = deployments[0]!.containerName;
    const health = await eventsOn('s1', since, [`container=${first}`, 'event=health_status']);
    const healthyAt = health.find((e) => e.status.endsWith('healthy') && !e.status.endsWith('unhealthy'))?.at;
    expect(healthyAt, `health events of ${first}: ${JSON.stringify(health)}`).to.be.a('number');
    // rolling: s2 and s3 deploy only after s1 is healthy, but their images were pulled before that
    expect(pulled.s2, 'pull on s2 before the first step was healthy').to.be.below(healthyAt!);
    expect(pulled.s3, 'pull on s3 before the first step was healthy').to.be.below(healthyAt!);
    const steps = (await w.admin.get(`/api/deployment-plans/${res.body.id}`)).body.steps as Array<{ startedAt: string; finishedAt: string }>;
    expect(Date.parse(steps[1]!.startedAt), 'rolling: one step after the other').to.be.at.least(Date.parse(steps[0]!.finishedAt));
  });
});

describe('a pull the registry stops feeding (e2e)', function () {
  this.timeout(120_000);
  let w: World;
  let registry: StallingRegistry | undefined;
  before(async () => {
    w = await startWorld({ PULL_STALL_SEC: '3' });
  });
  after(async () => {
    await registry?.close();
    await cleanup(w);
  });

  it('is cancelled after PULL_STALL_SEC of silence and fails its step naming the layer and what it got', async () => {
    // an image with a layer of its own (1 MB no server has), pushed to the fleet registry from s1
    // and removed there; s2 pulls it through a front that cuts every layer after 64 KB
    const repo = `${w.fleet.registry.address}/stevedore-test/stall-${w.tag}`;
    await serverExec('s1', ['sh', '-c', `docker run --name stall-${w.tag} ${w.fleet.images.busybox} sh -c 'head -c 1000000 /dev/urandom >/blob'`
      + ` >/dev/null && docker commit stall-${w.tag} ${repo}:v1 >/dev/null && docker rm stall-${w.tag} >/dev/null`
      + ` && docker push -q ${repo}:v1 >/dev/null && docker rmi ${repo}:v1 >/dev/null`]);
    registry = await startStallingRegistry({ listen: w.fleet.spareRegistry.address, upstream: w.fleet.registry.address, stallAfterBytes: 64 * 1024 });
    const image = await w.s.containerImages.insert({ environmentId: w.envId, imageName: `${w.fleet.spareRegistry.address}/stevedore-test/stall-${w.tag}` } as never);
    const service = await w.s.services.create(w.envId, { name: 'stalled', containerImageId: image.id, imageTag: 'v1', env: {}, ports: [], volumes: [] });
    const d = await w.s.deployments.create(service.id, w.envId, { serverId: w.servers.s2, containerName: `stalled-${w.tag}` });

    const started = Date.now();
    const res = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, {});
    // autoRollback: nothing had changed on the server, so the rollback is a no-op
    expect(res.body.status, res.text).to.equal('rolled_back');
    const step = (res.body.steps as Array<{ deploymentId: string; status: string; error: string | null }>).find((x) => x.deploymentId === d.id)!;
    expect(step.error).to.match(/^pull of \S+:v1 made no progress for 3 s \(last: layer [0-9a-f]+ Downloading at 0\.\d MB of 1\.0 MB\); cancelled$/);
    expect(res.body.error).to.contain('made no progress for 3 s');
    expect(Date.now() - started, 'failed on the stall, not the 300 s limit').to.be.below(60_000);
    // the stall was real (a layer was cut) and the cancel reached dockerd: it closed the stalled connection
    await until('dockerd to close the stalled layer download', async () => registry!.stalled().closedByClient >= 1, { timeoutMs: 15_000, everyMs: 100 });
    expect(registry.stalled().cut).to.be.at.least(1);
    // on the server itself: no container, and the image is not there
    expect(await serverExec('s2', ['docker', 'inspect', `stalled-${w.tag}`]).then(() => 'exists', () => 'absent')).to.equal('absent');
    expect(await serverExec('s2', ['docker', 'image', 'inspect', `${w.fleet.spareRegistry.address}/stevedore-test/stall-${w.tag}:v1`]).then(() => 'exists', () => 'absent')).to.equal('absent');
  });
});
