// GET /api/environments/{envId}/events: the environment's recent events, what GET /api/events
// streams (the stream's types and data), newest first, for `stevedore events`.
import { expect } from 'chai';
import { apiToken, createEnvironment, startWithRoles, type RoleWorld } from '../support/fixtures.js';

describe('GET /api/environments/{envId}/events', function () {
  this.timeout(60_000);
  let w: RoleWorld;
  let other: { id: string; name: string };
  before(async () => {
    w = await startWithRoles();
    other = await createEnvironment(w.admin);
    const bus = w.svc.services.events;
    await bus.publish('plan.updated', w.envId, { planId: 'p1', name: 'deploy web', status: 'running' });
    await bus.publish('deployment.success', w.envId, { serviceName: 'web' }); // a notification code: not the stream's
    await bus.publish('notification.created', w.envId, { userId: 'u', notification: { title: 'hi' } }); // one user's
    await bus.publish('plan.updated', other.id, { planId: 'p2', status: 'running' });
    await bus.publish('deployment.updated', w.envId, { deploymentId: 'd1', containerName: 'web-1', status: 'running' });
  });
  after(() => w.svc.stop());

  it('lists the stream\'s events of the environment, newest first, with the stream\'s ids and data; pages', async () => {
    const res = await w.viewer.get(`/api/environments/${w.envId}/events`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.total).to.equal(2);
    expect(res.body.items.map((e: { type: string }) => e.type)).to.deep.equal(['deployment.updated', 'plan.updated']);
    const [newest, oldest] = res.body.items;
    expect(newest.id).to.be.greaterThan(oldest.id);
    expect(oldest.data).to.deep.include({ planId: 'p1', name: 'deploy web', status: 'running', environmentId: w.envId, at: oldest.at });
    const page = await w.viewer.get(`/api/environments/${w.envId}/events?limit=1&offset=1`);
    expect(page.body).to.deep.include({ total: 2, limit: 1, offset: 1 });
    expect(page.body.items.map((e: { id: number }) => e.id)).to.deep.equal([oldest.id]);
  });

  it('answers 404 for an unknown environment and 403 to a token limited to another', async () => {
    expect((await w.viewer.get('/api/environments/00000000-0000-4000-8000-000000000000/events')).status).to.equal(404);
    const me = (await w.admin.get('/api/auth/me')).body;
    const limited = await apiToken(w.admin, me.id, { environmentIds: [other.id] });
    expect((await limited.get(`/api/environments/${w.envId}/events`)).status).to.equal(403);
    expect((await limited.get(`/api/environments/${other.id}/events`)).body.total).to.equal(1);
  });
});
