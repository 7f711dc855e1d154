import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { awayFromBucketEdge, connectMcp, toolJson } from '../../support/mcp-client.js';
import { addService, cleanup, containerImage, httpBody, startWorld, waitPlan, type World } from './deploy-world.js';

describe('MCP write tools reach the fleet (e2e)', function () {
  this.timeout(400_000);
  let w: World;
  let mcp: Client;
  let web: Awaited<ReturnType<typeof addService>>;
  const plansOfEnv = async () => (await w.admin.get(`/api/environments/${w.envId}/deployment-plans`)).body;

  before(async () => {
    w = await startWorld({ MCP_ENABLED: 'true' });
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: true });
    web = await addService(w, 'mcpweb', { servers: ['s1'] });
    mcp = await connectMcp(w.svc.url, w.admin.token);
  });
  after(async () => {
    await mcp?.close();
    await cleanup(w);
  });

  it('deploy_service deploys to the server; the same call within the bucket replays the first plan', async () => {
    await awayFromBucketEdge(30_000);
    const args = { id: web.service.id, imageTag: 'v2', strategy: 'rolling' };
    const first = await mcp.callTool({ name: 'deploy_service', arguments: args });
    expect(first.isError, JSON.stringify(first)).to.equal(undefined);
    expect(first._meta).to.include({ 'stevedore/status': 202 });
    const plan = toolJson(first);
    const again = await mcp.callTool({ name: 'deploy_service', arguments: { strategy: 'rolling', imageTag: 'v2', id: web.service.id } });
    expect(again._meta).to.include({ 'stevedore/idempotentReplayed': true, 'stevedore/status': 202 });
    expect(toolJson(again).id).to.equal(plan.id);

    const done = await waitPlan(w, plan.id);
    expect(done.status, JSON.stringify(done.steps.map((x: { error: string }) => x.error))).to.equal('succeeded');
    const container = web.deployments[0].containerName;
    expect(await containerImage('s1', container)).to.match(/web:v2 running$/);
    expect(await httpBody('s1', container)).to.include('web v2');
    expect((await plansOfEnv()).total).to.equal(1);
  });

  it('execute_deployment_plan: a dry run is recomputed each time; the real run replays instead of conflicting', async () => {
    await awayFromBucketEdge(30_000);
    const created = await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, { items: [{ serviceId: web.service.id, imageTag: 'v1' }] });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    for (let i = 0; i < 2; i++) {
      const dry = await mcp.callTool({ name: 'execute_deployment_plan', arguments: { id, dryRun: true } });
      expect(dry.isError, JSON.stringify(dry)).to.equal(undefined);
      expect(dry._meta).to.not.have.property('stevedore/idempotentReplayed');
      expect(dry._meta).to.not.have.property('stevedore/idempotencyKey');
      expect(toolJson(dry)).to.include({ dryRun: true });
    }
    expect((await w.admin.get(`/api/deployment-plans/${id}`)).body.status).to.equal('pending');

    const run = await mcp.callTool({ name: 'execute_deployment_plan', arguments: { id } });
    expect(run.isError, JSON.stringify(run)).to.equal(undefined);
    // Executing a plan that is no longer pending is a CONFLICT; the repeat replays the first answer instead.
    const repeat = await mcp.callTool({ name: 'execute_deployment_plan', arguments: { id } });
    expect(repeat.isError, JSON.stringify(repeat)).to.equal(undefined);
    expect(repeat._meta).to.include({ 'stevedore/idempotentReplayed': true });
    const direct = await w.admin.post(`/api/deployment-plans/${id}/execute`, {});
    expect(direct.body.code).to.equal('CONFLICT');

    const done = await waitPlan(w, id);
    expect(done.status).to.equal('succeeded');
    expect(await containerImage('s1', web.deployments[0].containerName)).to.match(/web:v1 running$/);
  });

  it('read tools see the fleet: the container logs of the deployment', async () => {
    const logs = await mcp.callTool({ name: 'get_service_logs', arguments: { id: web.service.id, depId: web.deployments[0].id, tail: 20 } });
    expect(logs.isError, JSON.stringify(logs)).to.equal(undefined);
    expect(toolJson(logs)).to.include({ containerName: web.deployments[0].containerName });
  });
});
