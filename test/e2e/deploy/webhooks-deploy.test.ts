// Incoming webhooks that really deploy to the local fleet: /deploy (one service, answers when the
// plan has finished) and /deploy-image (every linked service, dependency order, auto-rollback),
// with replay protection, and the outgoing webhook that reports the outcome.
import crypto from 'node:crypto';
import { expect } from 'chai';
import { addService, cleanup, httpBody, startWorld, waitPlan, type World } from './deploy-world.js';
import { Receiver } from '../../support/receiver.js';

const SECRET = 'fleet-ci-secret';
const CODEHOST_SECRET = 'fleet-codehost-secret';
const sign = (body: string) => crypto.createHmac('sha256', SECRET).update(body).digest('hex');

describe('incoming webhooks deploying to the fleet (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let envName: string;
  const rx = new Receiver();
  const hook = (path: string, payload: unknown) => {
    const body = JSON.stringify(payload);
    return w.svc.http.post(path, undefined, { raw: body, headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(body) } });
  };

  before(async () => {
    await rx.start();
    w = await startWorld({ WEBHOOK_SECRET: SECRET, CODEHOST_WEBHOOK_SECRET: CODEHOST_SECRET });
    envName = (await w.s.environments.findById(w.envId))!.name;
    await w.admin.post('/api/admin/webhooks', { name: 'ci-report', url: rx.url, enabled: true, eventTypes: ['deployment.success', 'deployment.failed'] });
  });
  after(async () => {
    await cleanup(w);
    await rx.stop();
  });

  it('deploy answers {success, deploymentId, status} once the plan has finished; deploy-image rolls the image out once, even when replayed', async () => {
    const web = await addService(w, 'hookweb', { servers: ['s1'] });
    const api = await addService(w, 'hookapi', { servers: ['s2'], dependsOn: [web.service.id] });
    const res = await hook('/api/webhooks/deploy', { service: 'hookweb', environment: envName, imageTag: 'v1' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ success: true, status: 'succeeded' });
    expect(res.body.deploymentId).to.be.a('string');
    expect(await httpBody('s1', web.deployments[0].containerName)).to.contain('web v1');

    const notYet = await hook('/api/webhooks/deploy-image', { imageName: w.fleet.images.webV1.replace(/:v1$/, ''), environment: envName, imageTag: 'v2' });
    expect(notYet.status).to.equal(400);
    expect(notYet.body.hint).to.match(/autoUpdate/);
    await w.s.db('container_images').where({ id: w.imageId }).update({ autoUpdate: true });

    const payload = { imageName: w.fleet.images.webV1.replace(/:v1$/, ''), environment: envName, imageTag: 'v2' };
    const started = await hook('/api/webhooks/deploy-image', payload);
    expect(started.status, started.text).to.equal(202);
    expect(started.body).to.include({ success: true, serviceCount: 2 });
    expect(started.body.services).to.have.members(['hookweb', 'hookapi']);
    const replay = await hook('/api/webhooks/deploy-image', payload);
    expect(replay.status).to.equal(202);
    expect(replay.headers.get('webhook-replayed')).to.equal('true');
    expect(replay.body.planId).to.equal(started.body.planId);
    const plan = await waitPlan(w, started.body.planId);
    expect(plan.status).to.equal('succeeded');
    expect(plan.autoRollback).to.equal(true);
    expect((await w.s.db('deployment_plans').where({ trigger: 'webhook' })).length).to.equal(2); // the replay made none
    expect(await httpBody('s1', web.deployments[0].containerName)).to.contain('web v2');
    expect(await httpBody('s2', api.deployments[0].containerName)).to.contain('web v2');

    // The outcome reaches the outgoing webhook in the spec's shape.
    await rx.waitFor(() => rx.requests.some((r) => r.json?.data?.planId === started.body.planId), 10_000, 'deployment.success delivery');
    const sent = rx.requests.find((r) => r.json.data.planId === started.body.planId)!;
    expect(sent.json).to.include({ event: 'deployment.success', environmentId: w.envId, environmentName: envName });
    expect(sent.json.data).to.include({ imageTag: 'v2', serviceCount: 2 });
    expect(sent.json.data.planName).to.be.a('string');
  });

  it('codehost: a published package deploys every service whose image name contains the package name', async () => {
    // v2: newer than the services' v1, or (after the tests above) a re-push of their current tag;
    // an older version is skipped, as the update check would (test/api/webhooks-incoming.test.ts)
    const body = JSON.stringify({ action: 'published', package: { name: 'stevedore-test/web', package_version: { version: 'v2' } } });
    const sig = 'sha256=' + crypto.createHmac('sha256', CODEHOST_SECRET).update(body).digest('hex');
    const res = await w.svc.http.post('/api/webhooks/codehost', undefined, {
      raw: body, headers: { 'content-type': 'application/json', 'x-github-event': 'package', 'x-hub-signature-256': sig },
    });
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ success: true, ignored: false, serviceCount: 2 });
    expect(res.body.plans).to.have.length(1);
    expect(res.body.plans[0].services).to.have.members(['hookweb', 'hookapi']);
    const plan = await waitPlan(w, res.body.plans[0].planId);
    expect(plan.status).to.equal('succeeded');
    const web = await w.s.db('deployments').join('services', 'services.id', 'deployments.service_id').where('services.name', 'hookweb').first('deployments.container_name as containerName');
    expect(await httpBody('s1', web.containerName)).to.contain('web v2');
  });

  it('a deploy that fails answers {error}', async () => {
    await addService(w, 'hookbad', { servers: ['s3'] });
    const res = await hook('/api/webhooks/deploy', { service: 'hookbad', environment: envName, imageTag: 'no-such-tag' });
    expect(res.status).to.be.at.least(400);
    expect(res.body.error).to.be.a('string');
    expect(res.body).to.not.have.property('code');
  });
});
