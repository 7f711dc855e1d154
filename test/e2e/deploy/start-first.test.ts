import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, startWorld, type World } from './deploy-world.js';

// One start-first web service on s1, reached by its alias on the environment's network, and a
// probe container on that network asking it every 50 ms.
describe('start-first deploys on the fleet (e2e)', function () {
  this.timeout(240_000);
  let w: World;
  let web: Awaited<ReturnType<typeof addService>>;
  let name: string;
  let network: string;
  const inspect = async (what: string, format: string) =>
    (await serverExec('s1', ['docker', 'inspect', '--format', format, what]).catch(() => 'missing')).trim();
  const probeLines = async (probe: string) => (await serverExec('s1', ['docker', 'logs', probe])).split('\n').filter(Boolean);
  /** Until the probe has answered `n` more times (a positive signal, not a sleep). */
  async function waitProbes(probe: string, n: number) {
    const from = (await probeLines(probe)).length;
    const deadline = Date.now() + 20_000;
    while ((await probeLines(probe)).length < from + n) {
      if (Date.now() > deadline) throw new Error(`the probe did not answer ${n} times`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  before(async () => {
    w = await startWorld();
    web = await addService(w, 'web', { servers: ['s1'], env: { GREETING: 'one' } });
    name = web.deployments[0].containerName;
    network = `stevedore-${w.envId}`;
    const res = await w.admin.patch(`/api/services/${web.service.id}`, { updateOrder: 'start-first', drainSec: 1, ports: ['80'] });
    expect(res.status, res.text).to.equal(200);
    const first = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, {});
    expect(first.body.status, JSON.stringify(first.body.steps)).to.equal('succeeded');
  });
  after(async () => {
    // the network goes once the containers on it are gone
    await serverExec('s1', ['sh', '-c', `docker ps -aq --filter name=-${w.tag}- | xargs -r docker rm -f; docker network rm ${network}`]).catch(() => undefined);
    await cleanup(w);
  });

  it('refuses start-first with a fixed host port, naming updateOrder', async () => {
    const res = await w.admin.patch(`/api/services/${web.service.id}`, { ports: ['8080:80'] });
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'updateOrder' });
  });

  it('deploys a new tag and env with no failed request of a probe asking every 50 ms', async () => {
    const oldId = await inspect(name, '{{.Id}}');
    expect(await inspect(name, `{{json (index .NetworkSettings.Networks "${network}").Aliases}}`)).to.include('"web"');
    const probe = `probe-${w.tag}-s1`;
    // A client as getaddrinfo-based ones (curl, Go, a proxy's upstream retry) behave: it resolves
    // the name for each request and tries the addresses it got in turn. (timeout(1), not wget -T:
    // the static busybox wget crashes with -T.)
    await serverExec('s1', ['docker', 'run', '-d', '--name', probe, '--network', network, w.fleet.images.busybox, 'sh', '-c', `
      while :; do
        ips=$(nslookup web 2>/dev/null | sed -n '/^Name:/,$ s/^Address: *//p'); res="FAIL [$ips]"
        for ip in $ips; do if timeout 2 wget -q -O /dev/null "http://$ip/" 2>/dev/null; then res=ok; break; fi; done
        echo "$res"; sleep 0.05
      done`]);
    await waitProbes(probe, 5);
    expect((await w.admin.patch(`/api/services/${web.service.id}`, { env: { GREETING: 'two' } })).status).to.equal(200);
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'v2' });
    expect(res.body.status, JSON.stringify(res.body.steps)).to.equal('succeeded');
    await waitProbes(probe, 5);
    await serverExec('s1', ['docker', 'kill', probe]);
    const all = await probeLines(probe);
    // a failure says when, next to the step's own timed log
    // every plan of the service since the probe started (the PATCH's own rollout too), for the reader of a failure
    const plans = all.some((l) => l !== 'ok')
      ? (await w.s.db('plan_steps').join('deployment_plans', 'deployment_plans.id', 'plan_steps.planId').where('plan_steps.serviceId', web.service.id)
        .orderBy('plan_steps.createdAt').select('deployment_plans.name', 'deployment_plans.status', 'plan_steps.log')).map((x) => `${x.name} ${x.status}:\n${x.log ?? ''}`).join('\n')
      : '';
    const failed = all.some((l) => l !== 'ok')
      ? `${(await serverExec('s1', ['docker', 'logs', '--timestamps', probe])).split('\n').filter((l) => l && !l.endsWith(' ok')).join('\n')}\n${plans}`
      : '';
    expect(all.filter((l) => l !== 'ok'), `${all.length} probes\n${failed}`).to.deep.equal([]);
    expect(all.length).to.be.at.least(10);
    // the new container under the canonical name, with the new env and tag, answering to the alias
    expect(await inspect(name, '{{.Config.Image}} {{.State.Health.Status}}')).to.match(/web:v2 healthy$/);
    expect(await inspect(name, '{{json .Config.Env}}')).to.include('"GREETING=two"');
    expect(await inspect(name, `{{json (index .NetworkSettings.Networks "${network}").Aliases}}`)).to.include('"web"');
    expect(await inspect(name, '{{.Id}}')).to.not.equal(oldId);
    expect(await inspect(oldId, '{{.Id}}')).to.equal('missing');
    expect(await inspect(`${name}-stevedore-next`, '{{.Id}}')).to.equal('missing');
  });

  it('removes a new container that never gets healthy and leaves the old one serving, saying why', async () => {
    const oldId = await inspect(name, '{{.Id}}');
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'unhealthy' });
    expect(res.body.status).to.not.equal('succeeded');
    expect(res.body.steps[0].error).to.match(/unhealthy.*removed the new container .*-stevedore-next, .* was not touched and still serves/);
    expect(await inspect(name, '{{.Id}} {{.State.Status}}')).to.equal(`${oldId} running`);
    expect(await inspect(`${name}-stevedore-next`, '{{.Id}}')).to.equal('missing');
  });

  it('recognises the container an interrupted switch left as drift and settles it on the next deploy', async () => {
    const oldId = await inspect(name, '{{.Id}}');
    const d = web.deployments[0];
    // what a controller killed between "started the new one" and "switch" leaves behind
    await serverExec('s1', ['docker', 'run', '-d', '--name', `${name}-stevedore-next`, '--label', 'stevedore.managed=true',
      '--label', `stevedore.environment-id=${w.envId}`, '--label', `stevedore.deployment-id=${d.id}`, w.fleet.images.busybox, 'sleep', '2147483647']);
    const drift = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    expect(drift.body.items[0].actions.map((a: { reason: string }) => a.reason)).to.include('SwitchInterrupted');
    // the tag it runs (an earlier test may have left another one desired)
    const imageTag = await inspect(name, '{{index .Config.Labels "stevedore.image-tag"}}');
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag });
    expect(res.body.status, JSON.stringify(res.body.steps)).to.equal('succeeded');
    expect(res.body.steps[0].log).to.include('left by an interrupted start-first deploy');
    expect(await inspect(`${name}-stevedore-next`, '{{.Id}}')).to.equal('missing');
    expect(await inspect(name, '{{.Id}} {{.State.Status}}')).to.equal(`${oldId} running`);
  });
});
