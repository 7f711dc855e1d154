// The plan, deploy, compose and drift routes against a real service and database. The servers
// here cannot be reached (127.0.0.1 port 1): anything that would touch one fails cleanly.
import { newSshKeyPair } from '../support/ssh-key.js';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import type { Services } from '../../controller/services.js';
import { checkedFetch } from '../support/openapi-check.js';
import { until } from '../support/until.js';

describe('deployment plan, deploy, compose and drift routes', function () {
  this.timeout(60_000);
  let svc: TestService;
  let s: Services;
  let admin: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let otherEnvId: string;
  let api: { id: string };
  let web: { id: string };
  let webDep: { id: string };
  let serverId: string;

  const wait = (planId: string) => until(`plan ${planId} to end`, async () => {
    const p = (await admin.get(`/api/deployment-plans/${planId}`)).body;
    return !['pending', 'running', 'rolling_back'].includes(p.status) && p;
  }, { timeoutMs: 60_000, everyMs: 100 });

  before(async () => {
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    s = svc.services;
    admin = await bootstrapAdmin(svc.http);
    viewer = (await userWithRole(admin, 'viewer')).client;
    envId = (await createEnvironment(admin)).id;
    otherEnvId = (await createEnvironment(admin)).id;
    const key = newSshKeyPair().private;
    await s.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: s.secretBox.seal(key) });
    serverId = (await s.servers.insert({ environmentId: envId, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never)).id;
    const image = await s.containerImages.insert({ environmentId: envId, imageName: 'registry.test:5000/acme/web' } as never);
    api = await s.services.create(envId, { name: 'api', containerImageId: image.id, imageTag: 'v1', env: { SECRET_ISH: 'plain-value-42' } });
    web = await s.services.create(envId, { name: 'web', containerImageId: image.id, imageTag: 'v1' });
    await s.db('service_dependencies').insert({ serviceId: web.id, dependsOnServiceId: api.id });
    await s.deployments.create(api.id, envId, { serverId, containerName: 'api-1' });
    webDep = await s.deployments.create(web.id, envId, { serverId, containerName: 'web-1' });
  });
  after(() => svc.stop());

  it('creates a plan with services expanded to deployments in dependency order', async () => {
    const res = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id, imageTag: 'v2' }, { serviceId: api.id }] });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ status: 'pending', autoRollback: true, strategy: 'rolling' });
    expect(res.body.steps.map((x: { containerName: string; imageTag: string }) => `${x.containerName}:${x.imageTag}`)).to.deep.equal(['api-1:v1', 'web-1:v2']);
    const list = await viewer.get(`/api/environments/${envId}/deployment-plans?limit=1`);
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ total: 1, limit: 1, offset: 0 });
  });

  it('refuses a dependency cycle, a foreign service, a bad tag and unknown fields with VALIDATION_ERROR', async () => {
    await s.db('service_dependencies').insert({ serviceId: api.id, dependsOnServiceId: web.id });
    const cyc = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id }, { serviceId: api.id }] });
    await s.db('service_dependencies').where({ serviceId: api.id }).delete();
    expect(cyc.status).to.equal(400);
    expect(cyc.body.code).to.equal('VALIDATION_ERROR');
    expect(cyc.body.message).to.match(/cycle: (api -> web -> api|web -> api -> web)/i);
    const foreign = await admin.post(`/api/environments/${otherEnvId}/deployment-plans`, { items: [{ serviceId: web.id }] });
    expect(foreign.status).to.equal(400);
    const badTag = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id, imageTag: 'v1;id' }] });
    expect(badTag.body).to.include({ code: 'VALIDATION_ERROR', field: 'items/0/imageTag' });
    const deployTag = await admin.post(`/api/services/${web.id}/deploy`, { imageTag: '-rm' });
    expect(deployTag.body).to.include({ code: 'VALIDATION_ERROR', field: 'imageTag' });
    const unknown = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id }], bogus: 1 });
    expect(unknown.body).to.include({ code: 'VALIDATION_ERROR', field: 'bogus' });
  });

  it('answers 404 for an unknown plan and 403 to a viewer writing', async () => {
    expect((await admin.get('/api/deployment-plans/00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    const created = await viewer.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id }] });
    expect(created.body.code).to.equal('FORBIDDEN_ROLE');
  });

  it('previews a pending plan without changing it, cancels it, then refuses execute and cancel with CONFLICT; rollback of a pending plan too', async () => {
    const plan = (await admin.get(`/api/environments/${envId}/deployment-plans`)).body.items[0];
    expect((await admin.post(`/api/deployment-plans/${plan.id}/rollback`)).body.code).to.equal('CONFLICT');
    const dry = await admin.post(`/api/deployment-plans/${plan.id}/execute`, { dryRun: true });
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body.steps[0]).to.include({ containerName: 'api-1', mode: 'direct', currentImageTag: null, imageTag: 'v1' });
    expect((await admin.get(`/api/deployment-plans/${plan.id}`)).body.status).to.equal('pending');
    const cancel = await admin.post(`/api/deployment-plans/${plan.id}/cancel`);
    expect(cancel.body.status).to.equal('cancelled');
    expect(cancel.body.steps.map((x: { status: string }) => x.status)).to.deep.equal(['cancelled', 'cancelled']);
    for (const action of ['execute', 'cancel']) {
      const res = await admin.post(`/api/deployment-plans/${plan.id}/${action}`);
      expect(res.status, action).to.equal(409);
      expect(res.body.code).to.equal('CONFLICT');
    }
  });

  it('refuses a container name that would break a shell before anything runs', async () => {
    await s.db('deployments').where({ id: webDep.id }).update({ containerName: 'web;rm -rf /' });
    const res = await admin.post(`/api/services/${web.id}/deployments/${webDep.id}/deploy`, { dryRun: true });
    const exec = await admin.post(`/api/services/${web.id}/deploy`, {});
    await s.db('deployments').where({ id: webDep.id }).update({ containerName: 'web-1' });
    expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'containerName' });
    expect(exec.body).to.include({ code: 'VALIDATION_ERROR', field: 'containerName' });
    // the refused plan was discarded, not left pending
    expect(await s.db('deployment_plans').where({ status: 'pending' }).count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    await s.db('deployments').where({ id: webDep.id }).update({ composePath: '/srv/../etc/compose.yml' });
    const path = await admin.post(`/api/services/${web.id}/deployments/${webDep.id}/deploy`, { dryRun: true });
    await s.db('deployments').where({ id: webDep.id }).update({ composePath: null });
    expect(path.body).to.include({ code: 'VALIDATION_ERROR', field: 'composePath' });
  });

  it('fails the steps of an unreachable server with a clear message; with autoRollback it ends rolled_back', async () => {
    const res = await admin.post(`/api/services/${web.id}/deploy`, { imageTag: 'v2' });
    expect(res.status, res.text).to.equal(202);
    const plan = await wait(res.body.id);
    expect(plan.status).to.equal('rolled_back');
    expect(plan.steps[0].error).to.match(/unreachable/);
    expect(plan.steps[0].log).to.match(/nothing had changed on the server/);
    // the finished plan says what happened, by name
    expect(plan.error).to.match(/^step web on nowhere failed: .*unreachable.*; rolled back$/);
    // the service records what is desired; it says it is Degraded, and why, on the server by name
    const service = (await admin.get(`/api/services/${web.id}`)).body;
    expect(service.imageTag).to.equal('v2');
    const degraded = service.conditions.find((c: { type: string }) => c.type === 'Degraded');
    expect(degraded).to.include({ status: 'True', reason: 'DeployFailed' });
    // the revision it asked for failed (there is no last good one yet), in the step's own words
    expect(degraded.message).to.match(/^r\d+ failed: deploy failed on nowhere \(service web\): .*unreachable/);
    expect(service.failedRevision).to.deep.include({ revision: service.desiredRevision });
    expect(service.currentRevision).to.equal(null);
    const dep = (await admin.get(`/api/services/${web.id}/deployments`)).body.items.find((d: { id: string }) => d.id === webDep.id);
    expect(dep.failedGeneration).to.equal(dep.generation);
    expect(dep.conditions.find((c: { type: string }) => c.type === 'Degraded')).to.include({ status: 'True', reason: 'DeployFailed' });
    const off = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id, imageTag: 'v2' }], autoRollback: false, execute: true });
    expect((await wait(off.body.id)).status).to.equal('failed');
    const hist = await viewer.get(`/api/services/${web.id}/deployments-history`);
    expect(hist.body.total).to.equal(2);
    expect(hist.body.items[0]).to.include({ status: 'failed', imageTag: 'v2' });
  });

  it('answers 503 for logs and restart of a deployment whose server is unreachable, and 404 for another service\'s deployment', async () => {
    expect((await viewer.get(`/api/services/${web.id}/deployments/${webDep.id}/logs`)).status).to.equal(503);
    expect((await admin.post(`/api/services/${web.id}/deployments/${webDep.id}/restart`)).body.code).to.equal('SERVICE_UNAVAILABLE');
    expect((await viewer.get(`/api/services/${api.id}/deployments/${webDep.id}/logs`)).status).to.equal(404);
  });

  it('reports drift of an unreachable server as unknown with the reason', async () => {
    await s.db('deployments').where({ id: webDep.id }).update({ imageTag: 'v1' });
    const res = await viewer.get(`/api/servers/${serverId}/drift`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.unreachable).to.equal(1);
    expect(res.body.items.find((i: { deploymentId: string }) => i.deploymentId === webDep.id)).to.include({ drifted: null });
    expect((await viewer.get(`/api/environments/${envId}/drift`)).body.driftPolicy).to.equal('warn');
  });

  it('gets, validates, sets and deletes the compose template', async () => {
    expect((await viewer.get(`/api/services/${web.id}/compose`)).body).to.include({ composeTemplate: null, generated: true });
    const bad = await admin.put(`/api/services/${web.id}/compose`, { composeTemplate: 'services:\n  web:\n    image: x\n' });
    expect(bad.body).to.include({ code: 'VALIDATION_ERROR', field: 'containerName' });
    expect(bad.body.message).to.include('"web-1"');
    const ok = await admin.put(`/api/services/${web.id}/compose`, { composeTemplate: 'services:\n  "{{containerName}}":\n    image: x\n    mem_limit: 64m\n' });
    expect(ok.status, ok.text).to.equal(200);
    const preview = await viewer.get(`/api/services/${web.id}/compose/preview?imageTag=v3`);
    expect(preview.status, preview.text).to.equal(200);
    expect(preview.body.items[0].compose.content).to.include('mem_limit: 64m').and.include('registry.test:5000/acme/web:v3');
    expect((await admin.delete(`/api/services/${web.id}/compose`)).status).to.equal(204);
    expect((await viewer.get(`/api/services/${web.id}/compose`)).body.generated).to.equal(true);
  });

  it('previews compose and env per deployment without putting env values in the compose document', async () => {
    const res = await viewer.get(`/api/services/${api.id}/compose/preview`);
    const item = res.body.items[0];
    expect(item.compose.content).to.not.include('plain-value-42');
    // the environment is a second compose file: values are YAML strings, never parsed as an env file
    expect(item.env.content).to.equal(`services:\n  ${item.containerName}:\n    environment:\n      SECRET_ISH: plain-value-42\n`);
    expect((await viewer.get(`/api/services/${api.id}/deployments/${item.deploymentId}/artifacts`)).body.total).to.equal(0);
  });

  it('opens the plan SSE stream with a snapshot of the plan', async () => {
    const plan = (await admin.get(`/api/environments/${envId}/deployment-plans`)).body.items[0];
    const ac = new AbortController();
    const res = await checkedFetch(`${svc.url}/api/deployment-plans/${plan.id}/events`, { headers: { authorization: `Bearer ${admin.token}` }, signal: ac.signal });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\nevent: plan.updated')) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(text).to.match(/event: plan\.updated\nid: \d+\ndata: \{"planId":/);
  });

  it('ends a plan a dead process left running once it was taken over too often: failed without autoRollback, rolled back with it', async () => {
    const { recoverStalePlans, MAX_TAKEOVERS } = await import('../../reconcilers/deployment/plans/plan-recovery.js');
    const { proposePlan } = await import('../../reconcilers/entrance.js');
    const ends: string[] = [];
    for (const autoRollback of [false, true]) {
      const plan = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback });
      await s.db('deployment_plans').where({ id: plan.id })
        .update({ status: 'running', owner: 'dead-process', heartbeatAt: s.db.raw("now() - interval '1 minute'"), takeovers: MAX_TAKEOVERS });
      await s.db('plan_steps').where({ planId: plan.id }).update({ status: 'running', startedAt: s.db.fn.now() });
      expect(await recoverStalePlans(s)).to.equal(1);
      const done = await s.plans.waitFor(plan.id, 10_000);
      const steps = await s.plans.steps.ofPlan(plan.id);
      expect(steps[0].error).to.match(/controller stopped/);
      expect(steps.map((x) => x.status)).to.not.include('running');
      ends.push(done.status);
    }
    expect(ends).to.deep.equal(['failed', 'rolled_back']);
  });

  it('a recovered plan rolled back after a newer plan deployed the same container leaves that container as it is (found by bench/chaos.ts)', async () => {
    const { recoverStalePlans, MAX_TAKEOVERS } = await import('../../reconcilers/deployment/plans/plan-recovery.js');
    const { proposePlan } = await import('../../reconcilers/entrance.js');
    const plan = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    const [step] = await s.plans.steps.ofPlan(plan.id);
    // the plan's step rolled out r3 over r2 and its replica died; a newer plan has since deployed r4
    await s.db('plan_steps').where({ id: step!.id }).update({ status: 'succeeded', revision: 3, previousRevision: 2, previousImageTag: 'v1', mode: 'direct' });
    await s.db('deployment_plans').where({ id: plan.id })
      .update({ status: 'running', owner: 'dead-process', heartbeatAt: s.db.raw("now() - interval '1 minute'"), takeovers: MAX_TAKEOVERS });
    const before = await s.db('deployments').where({ id: step!.deploymentId }).first();
    await s.db('deployments').where({ id: step!.deploymentId }).update({ revision: 4, imageTag: 'v4' });
    try {
      expect(await recoverStalePlans(s)).to.equal(1);
      const done = await s.plans.waitFor(plan.id, 10_000);
      const [after] = await s.plans.steps.ofPlan(plan.id);
      // (rolling r2 back onto the unreachable server would have failed: rollback_failed)
      expect(done.status, after!.log ?? '').to.equal('rolled_back');
      expect(after!.log).to.match(/left as it is: a newer plan has since deployed it \(it runs revision 4;/);
      const d = await s.db('deployments').where({ id: step!.deploymentId }).first();
      expect([d.revision, d.imageTag]).to.deep.equal([4, 'v4']);
    } finally {
      await s.db('deployments').where({ id: step!.deploymentId }).update({ revision: before.revision, imageTag: before.imageTag });
    }
  });

  it('a plan taken over with its step running, superseded meanwhile, ends cancelled: never succeeded with a step left running (found by bench/chaos.ts)', async () => {
    const { recoverStalePlans } = await import('../../reconcilers/deployment/plans/plan-recovery.js');
    const { proposePlan } = await import('../../reconcilers/entrance.js');
    const plan = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    const newer = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    // its replica died in the middle of the step, and a newer request superseded it meanwhile
    await s.db('deployment_plans').where({ id: plan.id }).update({
      status: 'running', owner: 'dead-process', heartbeatAt: s.db.raw("now() - interval '1 minute'"), takeovers: 0, cancelRequested: true, supersededBy: newer.id,
    });
    await s.db('plan_steps').where({ planId: plan.id }).update({ status: 'running', startedAt: s.db.fn.now() });
    try {
      expect(await recoverStalePlans(s)).to.equal(1);
      const done = await s.plans.waitFor(plan.id, 10_000);
      const steps = await s.plans.steps.ofPlan(plan.id);
      expect(steps.map((x) => x.status), 'no step left running').to.not.include('running');
      expect(done.status).to.equal('cancelled');
      expect(done.error).to.equal(`superseded by plan ${newer.id}`);
      expect(steps[0]!.log).to.match(/not run again: superseded by plan/);
    } finally {
      await s.db('deployment_plans').where({ id: newer.id }).update({ status: 'cancelled' });
    }
  });

  it('a superseded plan ended by recovery is cancelled, never rolled back: the newer plan owns its containers (found by bench/chaos.ts)', async () => {
    const { recoverStalePlans, MAX_TAKEOVERS } = await import('../../reconcilers/deployment/plans/plan-recovery.js');
    const { proposePlan } = await import('../../reconcilers/entrance.js');
    const plan = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    const newer = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    // taken over too often to be resumed, and superseded: before, it was rolled back like any other
    await s.db('deployment_plans').where({ id: plan.id }).update({
      status: 'running', owner: 'dead-process', heartbeatAt: s.db.raw("now() - interval '1 minute'"), takeovers: MAX_TAKEOVERS, cancelRequested: true, supersededBy: newer.id,
    });
    await s.db('plan_steps').where({ planId: plan.id }).update({ status: 'running', startedAt: s.db.fn.now(), mode: 'direct', previousImageTag: 'v1' });
    try {
      expect(await recoverStalePlans(s)).to.equal(1);
      const done = await s.plans.waitFor(plan.id, 10_000);
      const steps = await s.plans.steps.ofPlan(plan.id);
      expect(done.status, steps[0]!.log).to.equal('cancelled');
      expect(done.error).to.equal(`superseded by plan ${newer.id}`);
      expect(steps.map((x) => x.status)).to.deep.equal(steps.map(() => 'cancelled'));
      expect(steps[0]!.log).to.match(/the controller stopped .*; not run again: superseded by plan/).and.not.match(/rollback:/);
    } finally {
      await s.db('deployment_plans').where({ id: newer.id }).update({ status: 'cancelled' });
    }
  });

  it('a rollback leaves a container a newer plan deployed, even at the same revision (found by bench/chaos.ts)', async () => {
    const { recoverStalePlans, MAX_TAKEOVERS } = await import('../../reconcilers/deployment/plans/plan-recovery.js');
    const { proposePlan } = await import('../../reconcilers/entrance.js');
    const plan = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    const newer = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    const [step] = await s.plans.steps.ofPlan(plan.id);
    // both rolled out r3 (the same spec asked for again); the newer one has deployed it since
    await s.db('plan_steps').where({ id: step!.id }).update({ status: 'succeeded', revision: 3, previousRevision: 2, previousImageTag: 'v1', mode: 'direct' });
    await s.db('plan_steps').where({ planId: newer.id }).update({ status: 'succeeded', revision: 3 });
    await s.db('deployment_plans').where({ id: newer.id }).update({ status: 'succeeded' });
    await s.db('deployment_plans').where({ id: plan.id })
      .update({ status: 'running', owner: 'dead-process', heartbeatAt: s.db.raw("now() - interval '1 minute'"), takeovers: MAX_TAKEOVERS });
    const before = await s.db('deployments').where({ id: step!.deploymentId }).first();
    await s.db('deployments').where({ id: step!.deploymentId }).update({ revision: 3, imageTag: 'v3' });
    try {
      expect(await recoverStalePlans(s)).to.equal(1);
      const done = await s.plans.waitFor(plan.id, 10_000);
      const [after] = await s.plans.steps.ofPlan(plan.id);
      expect(done.status, after!.log ?? '').to.equal('rolled_back');
      expect(after!.log).to.match(/left as it is: a newer plan has since deployed it \(it runs revision 3;/);
      const d = await s.db('deployments').where({ id: step!.deploymentId }).first();
      expect([d.revision, d.imageTag]).to.deep.equal([3, 'v3']);
    } finally {
      await s.db('deployments').where({ id: step!.deploymentId }).update({ revision: before.revision, imageTag: before.imageTag });
    }
  });

  it('an automatic rollback starts once the older plans of its services have ended (found by bench/chaos.ts)', async () => {
    const { proposePlan } = await import('../../reconcilers/entrance.js');
    const older = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    const plan = await proposePlan(s, { environmentId: envId, items: [{ serviceId: web.id }], autoRollback: true });
    // the newer plan's step failed before changing anything; the older one is still active
    await s.db('plan_steps').where({ planId: plan.id }).update({ status: 'failed', error: 'pull failed' });
    const rolling = (await s.plans.repo.transition(plan.id, ['pending'], { status: 'rolling_back', owner: s.plans.owner, heartbeatAt: new Date() }))!;
    s.plans.launch(plan.id, () => s.plans.rollBackSteps(rolling));
    try {
      // (a bound, not a wait for something to happen: the rollback must not end while the older plan runs)
      const early = await Promise.race([s.plans.waitFor(plan.id, 60_000), new Promise((r) => setTimeout(() => r('waiting'), 1500))]);
      expect(early).to.equal('waiting');
      expect((await s.plans.repo.findById(plan.id))!.status).to.equal('rolling_back');
    } finally {
      await s.db('deployment_plans').where({ id: older.id }).update({ status: 'cancelled', finishedAt: s.db.fn.now() });
    }
    const done = await s.plans.waitFor(plan.id, 10_000);
    expect(done.status).to.equal('rolled_back');
    const olderEnd = (await s.plans.repo.findById(older.id))!.finishedAt!;
    expect(new Date(done.finishedAt!).getTime()).to.be.at.least(new Date(olderEnd).getTime());
  });

  it('refuses with 409 a deploy that would change an imageTag a manifest owns, naming the file, and writes nothing', async () => {
    const before = await s.services.findById(web.id);
    const plans = await s.db('deployment_plans').count({ n: '*' });
    await s.db('services').where({ id: web.id }).update({ source: JSON.stringify({ kind: 'manifest', path: 'services.yaml', fields: ['imageTag'] }) });
    try {
      for (const path of [`/api/services/${web.id}/deploy`, `/api/services/${web.id}/deployments/${webDep.id}/deploy`]) {
        const res = await admin.post(path, { imageTag: 'v9' });
        expect(res.status, res.text).to.equal(409);
        expect(res.body).to.include({ code: 'CONFLICT', field: 'imageTag' });
        expect(res.body.hint).to.include('services.yaml');
      }
      const plan = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: web.id, imageTag: 'v9' }], execute: true });
      expect(plan.status, plan.text).to.equal(409);
    } finally {
      await s.db('services').where({ id: web.id }).update({ source: JSON.stringify({ kind: 'api' }) });
    }
    const after = await s.services.findById(web.id);
    expect([after!.imageTag, after!.generation]).to.deep.equal([before!.imageTag, before!.generation]);
    expect(await s.db('deployment_plans').count({ n: '*' })).to.deep.equal(plans);
  });

  it('a newer request supersedes a pending plan of the same service: it ends cancelled naming the newer plan and cannot run', async () => {
    const pending = await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: api.id, imageTag: 'v3' }] });
    expect(pending.status, pending.text).to.equal(201);
    expect((await s.services.findById(api.id))!.imageTag, 'a proposal changes nothing desired').to.equal('v1');
    const newer = await admin.post(`/api/services/${api.id}/deploy`, { imageTag: 'v4' });
    expect(newer.status, newer.text).to.equal(202);
    const old = (await admin.get(`/api/deployment-plans/${pending.body.id}`)).body;
    expect(old).to.include({ status: 'cancelled', error: `superseded by plan ${newer.body.id}`, supersededBy: newer.body.id });
    expect(old.steps.map((x: { status: string }) => x.status)).to.deep.equal(['cancelled']);
    expect((await admin.post(`/api/deployment-plans/${pending.body.id}/execute`)).status).to.equal(409);
    expect((await s.services.findById(api.id))!.imageTag).to.equal('v4');
    await wait(newer.body.id);
  });
});
