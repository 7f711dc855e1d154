// The revision routes against a real service and database. The server cannot be reached
// (127.0.0.1 port 1): every rollout fails, which is enough to see revisions accepted, listed,
// diffed, reverted and failed (what runs on servers is tested on the fleet: test/e2e/deploy/revisions.test.ts).
import { expect } from 'chai';
import { newSshKeyPair } from '../support/ssh-key.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import type { Services } from '../../controller/services.js';
import { until } from '../support/until.js';

describe('service revision routes', function () {
  this.timeout(60_000);
  let svc: TestService;
  let s: Services;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let serviceId: string;
  let imageId: string;
  const SECRET = 'sup3r-secret-value-never-shown';
  let secretId: string;

  const ended = (planId: string) => until(`plan ${planId} to end`, async () => {
    const p = (await admin.get(`/api/deployment-plans/${planId}`)).body;
    return !['pending', 'running', 'rolling_back'].includes(p.status) && p;
  }, { timeoutMs: 30_000, everyMs: 100 });

  before(async () => {
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    s = svc.services;
    admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
    envId = (await createEnvironment(admin)).id;
    await s.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
    const serverId = (await s.servers.insert({ environmentId: envId, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never)).id;
    imageId = (await s.containerImages.insert({ environmentId: envId, imageName: 'registry.test:5000/acme/web' } as never)).id;
    const secret = await admin.post(`/api/environments/${envId}/secrets`, { key: 'DB_PASSWORD', value: SECRET });
    expect(secret.status, secret.text).to.equal(201);
    secretId = secret.body.id;
    const service = await s.services.create(envId, { name: 'web', containerImageId: imageId, imageTag: 'v1', env: { DB_URL: 'pg://app:${DB_PASSWORD}@db', MODE: 'a' } });
    serviceId = service.id;
    await s.deployments.create(serviceId, envId, { serverId, containerName: 'web-1' });
  });
  after(() => svc.stop());

  it('accepts each deploy as a revision (a new number only when the spec differs) and lists them newest first', async () => {
    const one = await operator.post(`/api/services/${serviceId}/deploy`, {});
    expect(one.status, one.text).to.equal(202);
    expect(one.body.steps.map((x: { revision: number }) => x.revision)).to.deep.equal([1]);
    await ended(one.body.id);
    const two = await operator.post(`/api/services/${serviceId}/deploy`, { imageTag: 'v2' });
    await ended(two.body.id);
    // the same spec again is the same revision, asked for again
    const again = await operator.post(`/api/services/${serviceId}/deploy`, { imageTag: 'v2' });
    expect(again.body.steps[0].revision).to.equal(2);
    await ended(again.body.id);
    const list = await viewer.get(`/api/services/${serviceId}/revisions`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body).to.include({ total: 2, limit: 25, offset: 0 });
    expect(list.body.items.map((r: { revision: number; imageTag: string; source: string; outcome: string }) => [r.revision, r.imageTag, r.source, r.outcome]))
      .to.deep.equal([[2, 'v2', 'deploy', 'failed'], [1, 'v1', 'deploy', 'failed']]);
    expect(list.body.items[0].reason).to.match(/nowhere/);
    // each names the plan that last rolled it out: a new revision its first, one asked for again the newer
    expect(list.body.items.map((r: { planId: string }) => r.planId)).to.deep.equal([again.body.id, one.body.id]);
    expect(list.body.items[0]).to.not.have.property('spec');
    // the first deploy never succeeded: no last good revision
    const service = (await viewer.get(`/api/services/${serviceId}`)).body;
    expect(service).to.include({ desiredRevision: 2, currentRevision: null });
    expect(service.failedRevision.revision).to.equal(2);
    expect(service.failedRevision.reason).to.match(/nowhere/);
  });

  it('shows one revision with its rendered spec: secrets as references and versions, never the value', async () => {
    const res = await viewer.get(`/api/services/${serviceId}/revisions/1`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ revision: 1, imageTag: 'v1', source: 'deploy' });
    expect(res.text).to.not.include(SECRET);
    expect(res.body.spec.secrets.DB_PASSWORD).to.match(/^v[0-9a-f]{12}$/);
    expect(res.body.spec.deployments[0].env.DB_URL).to.match(/^pg:\/\/app:\$\{secret:DB_PASSWORD@v[0-9a-f]{12}\}@db$/);
    for (const bad of ['0', '99', 'abc', '1.5', '01']) {
      const r = await viewer.get(`/api/services/${serviceId}/revisions/${bad}`);
      expect(r.status, bad).to.equal(404);
      expect(r.body.code).to.equal('NOT_FOUND');
    }
  });

  it('diffs two revisions by path and as a unified diff; a changed secret shows as changed, not its value', async () => {
    const res = await viewer.get(`/api/services/${serviceId}/revisions/diff?from=1&to=2`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ from: 1, to: 2 });
    expect(res.body.changes).to.deep.include({ path: 'image.tag', from: 'v1', to: 'v2' });
    expect(res.body.unified).to.match(/^-\s+tag: v1$/m);
    const rotate = await admin.patch(`/api/secrets/${secretId}`, { value: 'another-secret-value' });
    expect(rotate.status, rotate.text).to.equal(200);
    const rotated = await operator.post(`/api/services/${serviceId}/deploy`, {});
    expect(rotated.body.steps[0].revision).to.equal(3);
    await ended(rotated.body.id);
    const diff = await viewer.get(`/api/services/${serviceId}/revisions/diff?from=2&to=3`);
    expect(diff.body.changes.map((c: { path: string }) => c.path)).to.include('secrets.DB_PASSWORD');
    expect(diff.text).to.not.include(SECRET).and.not.include('another-secret-value');
    expect((await viewer.get(`/api/services/${serviceId}/revisions/diff?from=1`)).body).to.include({ code: 'VALIDATION_ERROR', field: 'to' });
    expect((await viewer.get(`/api/services/${serviceId}/revisions/diff?from=1&to=42`)).status).to.equal(404);
    expect((await viewer.get(`/api/services/${serviceId}/revisions/diff?from=0&to=1`)).status).to.equal(400);
  });

  it('reverts through the entrance (a new revision naming the old one, a plan), and only for operators', async () => {
    expect((await viewer.post(`/api/services/${serviceId}/revisions/1/revert`, {})).status).to.equal(403);
    expect((await operator.post(`/api/services/${serviceId}/revisions/77/revert`, {})).status).to.equal(404);
    const res = await operator.post(`/api/services/${serviceId}/revisions/1/revert`, {});
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ trigger: 'revert', name: 'revert web to revision 1' });
    expect(res.body.steps[0]).to.include({ revision: 4, imageTag: 'v1' });
    await ended(res.body.id);
    const r4 = (await viewer.get(`/api/services/${serviceId}/revisions/4`)).body;
    expect(r4).to.include({ source: 'revert', revertedFrom: 1, imageTag: 'v1' });
    const service = (await viewer.get(`/api/services/${serviceId}`)).body;
    expect(service).to.include({ imageTag: 'v1', desiredRevision: 4 });
  });

  it('refuses a revert that would change a field a manifest owns, naming the file, and writes nothing', async () => {
    await s.db('services').where({ id: serviceId }).update({ source: JSON.stringify({ kind: 'manifest', path: 'web.yaml', fields: ['imageTag'] }) });
    try {
      const before = await s.db('service_revisions').where({ serviceId }).count({ n: '*' });
      const res = await operator.post(`/api/services/${serviceId}/revisions/2/revert`, {});
      expect(res.status, res.text).to.equal(409);
      expect(res.body.message).to.match(/imageTag of web is managed by the manifest web\.yaml/);
      expect(await s.db('service_revisions').where({ serviceId }).count({ n: '*' })).to.deep.equal(before);
      expect((await s.services.findById(serviceId))!.imageTag).to.equal('v1');
    } finally {
      await s.db('services').where({ id: serviceId }).update({ source: JSON.stringify({}) });
    }
  });

  it('a PATCH of a deployed service moves its generation with its deployments and rolls out as a revision; a rename does not', async () => {
    const before = (await s.services.findById(serviceId))!;
    const [dep] = await s.deployments.listByService(serviceId);
    await s.deployments.recordObserved(dep!.id, { imageTag: 'v1' });
    const res = await operator.patch(`/api/services/${serviceId}`, { env: { DB_URL: 'pg://app:${DB_PASSWORD}@db', MODE: 'b' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.desiredRevision).to.equal(5);
    const plan = await s.db('deployment_plans').where({ environmentId: envId }).orderBy('createdAt', 'desc').first();
    expect(plan).to.include({ trigger: 'api' });
    const steps = await s.db('plan_steps').where({ planId: plan.id });
    expect(steps.map((x) => x.revision)).to.deep.equal([5]);
    await ended(plan.id);
    const after = (await s.services.findById(serviceId))!;
    const depAfter = (await s.deployments.findById(dep!.id))!;
    expect(after.generation).to.be.greaterThan(before.generation);
    expect(depAfter.generation).to.be.greaterThan(dep!.generation);
    const plans = await s.db('deployment_plans').where({ environmentId: envId }).count({ n: '*' });
    const rename = await operator.patch(`/api/services/${serviceId}`, { name: 'web-renamed' });
    expect(rename.status).to.equal(200);
    expect(await s.db('deployment_plans').where({ environmentId: envId }).count({ n: '*' })).to.deep.equal(plans);
    expect(rename.body.desiredRevision).to.equal(5);
  });

  it('a changed restartPolicy is a new revision whose diff names it; a revert to the one before restores unless-stopped', async () => {
    const service = await s.services.create(envId, { name: 'restarting', containerImageId: imageId, imageTag: 'v1' });
    const [server] = await s.servers.listByEnvironment(envId);
    const dep = await s.deployments.create(service.id, envId, { serverId: server!.id, containerName: 'restarting-1' });
    const first = await operator.post(`/api/services/${service.id}/deploy`, {});
    expect(first.status, first.text).to.equal(202);
    const r1 = first.body.steps[0].revision as number;
    await ended(first.body.id);
    // as if it ran: a PATCH of a service that runs somewhere rolls out
    await s.deployments.recordObserved(dep.id, { imageTag: 'v1' });
    const patched = await operator.patch(`/api/services/${service.id}`, { restartPolicy: 'on-failure:3' });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body).to.include({ restartPolicy: 'on-failure:3', desiredRevision: r1 + 1 });
    const r2 = r1 + 1;
    await ended((await s.db('plan_steps').where({ serviceId: service.id, revision: r2 }).first()).planId);
    const spec = (await viewer.get(`/api/services/${service.id}/revisions/${r2}`)).body.spec;
    expect(spec.template.restartPolicy).to.equal('on-failure:3');
    expect(spec.deployments.map((d: { restart: string }) => d.restart)).to.deep.equal(['on-failure:3']);
    const diff = await viewer.get(`/api/services/${service.id}/revisions/diff?from=${r1}&to=${r2}`);
    expect(diff.status, diff.text).to.equal(200);
    expect(diff.body.changes).to.deep.equal([
      { path: 'deployments.nowhere/restarting-1.restart', from: 'unless-stopped', to: 'on-failure:3' },
      { path: 'template.restartPolicy', from: 'unless-stopped', to: 'on-failure:3' },
    ]);
    expect(diff.body.unified).to.match(/^-\s+restartPolicy: unless-stopped$/m).and.match(/^\+\s+restartPolicy: on-failure:3$/m);
    // the same value again is no change: no new revision
    const same = await operator.patch(`/api/services/${service.id}`, { restartPolicy: 'on-failure:3' });
    expect(same.body).to.include({ desiredRevision: r2, generation: patched.body.generation });
    const revert = await operator.post(`/api/services/${service.id}/revisions/${r1}/revert`, {});
    expect(revert.status, revert.text).to.equal(202);
    expect(revert.body.steps[0]).to.include({ revision: r2 + 1 });
    await ended(revert.body.id);
    expect((await viewer.get(`/api/services/${service.id}`)).body).to.include({ restartPolicy: 'unless-stopped', desiredRevision: r2 + 1 });
    expect(await s.db('services').where({ id: service.id }).first('restartPolicy')).to.deep.equal({ restartPolicy: 'unless-stopped' });
  });

  it('refuses a manual rollback while a newer plan runs for the same service, naming it', async () => {
    const failed = await operator.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId }], autoRollback: false, execute: true });
    expect(failed.status, failed.text).to.equal(201);
    const older = await ended(failed.body.id);
    expect(older.status).to.equal('failed');
    const [dep] = await s.deployments.listByService(serviceId);
    const running = await s.transaction(async (trx) => {
      const p = await s.plans.repo.create({ environmentId: envId, name: 'a newer deploy', trigger: 'deploy', items: JSON.stringify([{ serviceId }]) as never }, trx);
      await s.plans.steps.insertForPlan(p.id, [{ stage: 0, serviceId, deploymentId: dep!.id, serverId: dep!.serverId, containerName: 'web-1', imageTag: 'v9' }], trx);
      return p;
    });
    await s.db('deployment_plans').where({ id: running.id }).update({ status: 'running' });
    try {
      const res = await operator.post(`/api/deployment-plans/${older.id}/rollback`, {});
      expect(res.status, res.text).to.equal(409);
      expect(res.body.message).to.equal(`plan "a newer deploy" (${running.id}) is running for the same services`);
      expect((await s.plans.repo.findById(older.id))!.status).to.equal('failed');
    } finally {
      await s.db('deployment_plans').where({ id: running.id }).update({ status: 'cancelled' });
    }
  });

  it('keeps the newest revisions up to the limit, never one that is desired, current, failed or running', async () => {
    await s.settings.patch(envId, 'operations', { revisionHistoryLimit: 2 });
    const [dep] = await s.deployments.listByService(serviceId);
    await s.deployments.recordObserved(dep!.id, { revision: 1 });
    for (const mode of ['c', 'd', 'e']) {
      const r = await operator.patch(`/api/services/${serviceId}`, { env: { DB_URL: 'x', MODE: mode } });
      expect(r.status, r.text).to.equal(200);
      await ended((await s.db('deployment_plans').where({ environmentId: envId }).orderBy('createdAt', 'desc').first()).id);
    }
    const kept = (await s.db('service_revisions').where({ serviceId }).orderBy('revision')).map((r) => r.revision);
    // 8 is desired (and failed), 7 the one before it; 1 runs on the server
    expect(kept).to.deep.equal([1, 7, 8]);
  });

  it('heals one deployment only when a heal can help: never a first deploy, never a retry of a failed revision', async () => {
    const other = await s.services.create(envId, { name: 'other', containerImageId: imageId, imageTag: 'v1' });
    const [server] = await s.servers.listByEnvironment(envId);
    const dep = await s.deployments.create(other.id, envId, { serverId: server!.id, containerName: 'other-1' });
    const heal = (c: HttpClient) => c.post(`/api/services/${other.id}/deployments/${dep.id}/heal`, {});
    expect((await heal(viewer)).status).to.equal(403);
    const never = await heal(operator);
    expect(never.status, never.text).to.equal(409);
    expect(never.body.message).to.equal('other-1 was never deployed: deploy it instead');
    await ended((await operator.post(`/api/services/${other.id}/deploy`, {})).body.id);
    await s.deployments.recordObserved(dep.id, { imageTag: 'v1' });
    const retry = await heal(operator);
    expect(retry.status, retry.text).to.equal(409);
    expect(retry.body.message).to.equal('r1 of other failed and no earlier revision succeeded: a heal would only retry it');
    expect(await s.db('deployment_plans').where({ trigger: 'drift-heal' }).count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('accepts thirty requests for one service at once: the revision is rendered before the lock, never starving the pool', async () => {
    const svc2 = await s.services.create(envId, { name: 'busy', containerImageId: imageId, imageTag: 'v1' });
    const [server] = await s.servers.listByEnvironment(envId);
    await s.deployments.create(svc2.id, envId, { serverId: server!.id, containerName: 'busy-1' });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => operator.post(`/api/services/${svc2.id}/deploy`, { imageTag: `t${i}` })));
    expect(answers.map((a) => a.status), answers.find((a) => a.status !== 202)?.text).to.deep.equal(Array(30).fill(202));
    const revisions = answers.map((a) => a.body.steps[0].revision as number);
    expect(new Set(revisions).size).to.equal(30);
    for (const a of answers) await ended(a.body.id);
  });
});
