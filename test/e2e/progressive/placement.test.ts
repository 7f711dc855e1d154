// Placement by serverSelector on the fleet's three servers: a service selecting role=web runs on
// every server labelled so, and a server relabelled away loses its container through a plan of
// remove steps. Containers are checked with docker inspect on the servers themselves.
import { expect } from 'chai';
import { cleanup, startWorld, waitPlan, type World } from '../deploy/deploy-world.js';
import { serverExec } from '../../fleet/fleet.js';
import { until } from '../../support/until.js';

/** The container's id on the server, or null when there is none. */
export async function containerId(server: string, name: string): Promise<string | null> {
  const out = await serverExec(server, ['sh', '-c', `docker inspect --format '{{.Id}}' ${name} 2>/dev/null || true`]);
  return out.trim() || null;
}

describe('placement by serverSelector on the fleet (e2e)', function () {
  this.timeout(240_000);
  let w: World;
  let name: string;
  let serviceId: string;

  before(async () => {
    w = await startWorld();
    name = `pd-${w.tag}-web`;
    for (const [server, role] of [['s1', 'web'], ['s2', 'web'], ['s3', 'db']]) {
      const res = await w.admin.patch(`/api/servers/${w.servers[server]}`, { labels: { role } });
      expect(res.status, res.text).to.equal(200);
    }
    const created = await w.admin.post(`/api/environments/${w.envId}/services`, {
      name, containerImageId: w.imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } },
    });
    expect(created.status, created.text).to.equal(201);
    serviceId = created.body.id;
  });
  after(() => cleanup(w));

  it('a service selecting role=web gets a deployment per matching server and its deploy runs a container on each', async () => {
    const svc = (await w.admin.get(`/api/services/${serviceId}`)).body;
    expect(svc.deployments.map((d: { serverId: string }) => d.serverId).sort()).to.deep.equal([w.servers.s1, w.servers.s2].sort());
    const plan = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, {});
    expect(plan.body.status, plan.text).to.equal('succeeded');
    for (const server of ['s1', 's2']) {
      const state = (await serverExec(server, ['docker', 'inspect', '--format', '{{.Config.Image}} {{.State.Status}} {{index .Config.Labels "stevedore.service-id"}}', name])).trim();
      expect(state, server).to.match(new RegExp(`web:v1 running ${serviceId}$`));
    }
    expect(await containerId('s3', name)).to.equal(null);
  });

  it('relabelling a server removes its container through a plan, and leaves the others be', async () => {
    const s1Before = await containerId('s1', name);
    expect(s1Before).to.be.a('string');
    expect(await containerId('s2', name)).to.be.a('string');
    const res = await w.admin.patch(`/api/servers/${w.servers.s2}`, { labels: { role: 'db' } });
    expect(res.status, res.text).to.equal(200);
    const planRow = await until('the removal plan', async () =>
      w.s.db('deployment_plans').where({ environmentId: w.envId, trigger: 'selector' }).first(), { timeoutMs: 20_000, everyMs: 100 });
    const plan = await waitPlan(w, planRow.id);
    expect(plan.status, JSON.stringify(plan)).to.equal('succeeded');
    expect(plan.steps.map((x: { action: string; serverId: string }) => [x.action, x.serverId])).to.deep.equal([['remove', w.servers.s2]]);
    expect(plan.steps[0].log).to.include('no longer matches the serverSelector');
    expect(await containerId('s2', name)).to.equal(null);
    expect(await containerId('s1', name)).to.equal(s1Before);
    const svc = (await w.admin.get(`/api/services/${serviceId}`)).body;
    expect(svc.deployments.map((d: { serverId: string }) => d.serverId)).to.deep.equal([w.servers.s1]);
  });

  it('a server labelled into the selector under driftPolicy heal gets its container at once', async () => {
    expect((await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { driftPolicy: 'heal' })).status).to.equal(200);
    const res = await w.admin.patch(`/api/servers/${w.servers.s3}`, { labels: { role: 'web' } });
    expect(res.status, res.text).to.equal(200);
    const planRow = await until('the placement plan', async () =>
      w.s.db('deployment_plans').where({ environmentId: w.envId, trigger: 'drift-heal' }).first(), { timeoutMs: 20_000, everyMs: 100 });
    const plan = await waitPlan(w, planRow.id);
    expect(plan.status, JSON.stringify(plan)).to.equal('succeeded');
    const state = (await serverExec('s3', ['docker', 'inspect', '--format', '{{.Config.Image}} {{.State.Status}}', name])).trim();
    expect(state).to.match(/web:v1 running$/);
  });
});
