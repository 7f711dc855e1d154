import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { createEnvironment, startWithRoles } from '../support/fixtures.js';
import { createService, expectError, insertServer, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('GET /api/environments/{envId}/overview', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
  });
  after(() => svc.stop());

  it('answers servers, services with each deployment (server, running against desired tag, conditions), plans, unread notes and manifests', async () => {
    const alpha = await insertServer(svc, envId, 'alpha');
    const beta = await insertServer(svc, envId, 'beta');
    const web = await createService(operator, envId, { name: 'web', imageTag: '2.0' });
    await createService(operator, envId, { name: 'api' });
    for (const [serverId, containerName] of [[alpha.id, 'web-1'], [beta.id, 'web-2']]) {
      const d = await operator.post(`/api/services/${web.id}/deployments`, { serverId, containerName });
      expect(d.status, d.text).to.equal(201);
    }
    const degraded = { type: 'Degraded', status: 'True', reason: 'RolloutFailed', message: 'health check failed', lastTransitionTime: '2026-11-26T06:00:00.000Z' } as const;
    await svc.services.db('deployments').where({ containerName: 'web-2' }).update({ imageTag: '1.0', conditions: JSON.stringify([degraded]) });
    await svc.services.services.recordConditions(web.id, [degraded]);
    const plan = await operator.post(`/api/environments/${envId}/deployment-plans`, { name: 'roll web', items: [{ serviceId: web.id }] });
    expect(plan.status, plan.text).to.equal(201);
    const me = (await viewer.get('/api/auth/me')).body;
    await svc.services.db('notifications').insert([
      { userId: me.id, environmentId: envId, type: 'plan.failed', category: 'deploy', severity: 'error', title: 'web failed', message: 'boom' },
      { userId: me.id, environmentId: envId, type: 'plan.failed', category: 'deploy', severity: 'error', title: 'read', message: 'x', readAt: new Date() },
    ]);

    const res = await viewer.get(`/api/environments/${envId}/overview`);
    expect(res.status, res.text).to.equal(200);
    const o = res.body;
    expect(o.environmentId).to.equal(envId);
    expect(o.servers.map((s: { name: string }) => s.name)).to.deep.equal(['alpha', 'beta']);
    expect(o.servers[0]).to.deep.equal({ id: alpha.id, name: 'alpha', hostname: '127.0.0.1', labels: {}, status: 'unknown', message: null, checkedAt: null, conditions: [] });
    expect(o.services.map((s: { name: string }) => s.name)).to.deep.equal(['api', 'web']);
    const w = o.services[1];
    expect(w).to.include({ id: web.id, desiredTag: '2.0' });
    expect(w.conditions).to.deep.equal([degraded]);
    expect(w.deployments.map((d: Record<string, unknown>) => [d.containerName, d.serverName, d.runningTag])).to.deep.equal([['web-1', 'alpha', null], ['web-2', 'beta', '1.0']]);
    expect(w.deployments[1]).to.include({ serverId: beta.id, status: 'pending' });
    expect(w.deployments[1].conditions).to.deep.equal([degraded]);
    expect(o.services[0].deployments).to.deep.equal([]);
    expect(o.plans).to.have.length(1);
    expect(o.plans[0]).to.include({ id: plan.body.id, name: 'roll web', status: plan.body.status, error: null });
    expect(o.notifications.unread).to.equal(1);
    expect(o.notifications.items.map((n: { title: string }) => n.title)).to.deep.equal(['web failed']);
    expect(o.manifests).to.include({ dir: null, watching: false, lastAttempted: null, lastApplied: null });
    expect(o.manifests.degraded).to.deep.equal([{ name: 'web', reason: 'RolloutFailed', message: 'health check failed' }]);
    // the unread notes are the caller's own: the admin has none
    expect((await admin.get(`/api/environments/${envId}/overview`)).body.notifications).to.deep.equal({ unread: 0, items: [] });
  });

  it('answers an unknown environment with 404 in the error envelope, and no token with 401', async () => {
    expectError(await viewer.get('/api/environments/00000000-0000-4000-8000-000000000000/overview'), 404, 'NOT_FOUND');
    expectError(await svc.http.get(`/api/environments/${envId}/overview`), 401, 'UNAUTHORIZED');
  });

  it('answers a token limited to another environment with 403 and shows nothing of this one', async () => {
    const other = (await createEnvironment(admin)).id;
    const me = (await admin.get('/api/auth/me')).body;
    const limited = await limitedToken(svc, svc.http, me.id, [other]);
    const res = await limited.get(`/api/environments/${envId}/overview`);
    expectError(res, 403, 'FORBIDDEN_SCOPE');
    expect(res.text).not.to.include('alpha');
    const own = await limited.get(`/api/environments/${other}/overview`);
    expect(own.status, own.text).to.equal(200);
    expect(own.body).to.include({ environmentId: other });
    expect(own.body.servers).to.deep.equal([]);
  });

  it('is in the OpenAPI document as a viewer read with its response schema', async () => {
    const doc = (await svc.http.get('/api/openapi.json')).body;
    const op = doc.paths['/api/environments/{envId}/overview'].get;
    expect(op.operationId).to.equal('getEnvironmentOverview');
    expect(JSON.stringify(op.responses['200'])).to.include('runningTag');
  });
});
