import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { Receiver } from '../support/receiver.js';

describe('chat channels, routings and the environment notification setting', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let env: { id: string; name: string };
  const rx = new Receiver();
  const mk = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await admin.post('/api/admin/chat-channels', { name, webhookUrl: `${rx.url}/${name}`, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.body as { id: string };
  };
  /** Paths that got the event published now (waits for a marker delivered to the default). */
  async function pathsFor(type: string, envId: string | null, expected: number): Promise<string[]> {
    rx.reset();
    await svc.services.events.publish(type, envId, { serviceName: 'api' });
    await rx.waitFor(() => rx.requests.length >= expected, 5000, `${expected} chat posts`);
    await new Promise((r) => setTimeout(r, 250));
    return rx.requests.map((r) => r.path).sort();
  }

  before(async () => {
    await rx.start();
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    env = await createEnvironment(admin);
  });
  after(async () => {
    await svc.stop();
    await rx.stop();
  });

  it('CRUD keeps the incoming-webhook URL write-only, moves the default flag and follows the roles', async () => {
    const a = await admin.post('/api/admin/chat-channels', { name: 'ops-a', webhookUrl: `${rx.url}/x`, isDefault: true });
    expect(a.status).to.equal(201);
    expect(a.body).to.include({ name: 'ops-a', isDefault: true, enabled: true, hasWebhookUrl: true });
    expect(a.text).to.not.contain(rx.url);
    const b = await admin.post('/api/admin/chat-channels', { name: 'ops-b', webhookUrl: `${rx.url}/y`, isDefault: true });
    expect((await admin.get(`/api/admin/chat-channels/${a.body.id}`)).body.isDefault).to.equal(false);
    expect((await admin.post('/api/admin/chat-channels', { name: 'ops-b', webhookUrl: `${rx.url}/z` })).status).to.equal(409);
    expect((await admin.post('/api/admin/chat-channels', { name: 'x' })).body).to.include({ code: 'VALIDATION_ERROR', field: 'webhookUrl' });
    expect((await admin.patch(`/api/admin/chat-channels/${a.body.id}`, { hasWebhookUrl: false })).status).to.equal(422);
    const patched = await admin.patch(`/api/admin/chat-channels/${a.body.id}`, { enabled: false });
    expect(patched.body.enabled).to.equal(false);
    expect((await admin.get('/api/admin/chat-channels')).body.total).to.equal(2);
    expect((await operator.get('/api/admin/chat-channels')).body.code).to.equal('FORBIDDEN_ROLE');
    expect((await admin.get('/api/admin/chat-channels/00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await admin.delete(`/api/admin/chat-channels/${a.body.id}`)).status).to.equal(204);
    expect((await admin.delete(`/api/admin/chat-channels/${b.body.id}`)).status).to.equal(204);
    expect((await admin.get('/api/admin/chat-channels')).body.total).to.equal(0);
  });

  it('test send posts a Slack-compatible body; a refusing endpoint is 502', async () => {
    const c = await mk('tester');
    rx.reset();
    const ok = await admin.post(`/api/admin/chat-channels/${c.id}/test`);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body).to.include({ delivered: true, status: 200 });
    expect(rx.requests[0].path).to.equal('/tester');
    expect(rx.requests[0].json.text).to.be.a('string');
    expect(rx.requests[0].json.blocks).to.be.an('array');
    rx.mode = 'fail';
    const bad = await admin.post(`/api/admin/chat-channels/${c.id}/test`);
    expect(bad.status).to.equal(502);
    expect(bad.body.message).to.contain('500');
    rx.mode = 'ok';
    await admin.delete(`/api/admin/chat-channels/${c.id}`);
  });

  it('applies the three fan-out rules with routings, the global default and the environment override', async () => {
    const def = await mk('default', { isDefault: true });
    const r1 = await mk('r1');
    const r2 = await mk('r2');
    const single = await mk('single');
    const ovr = await mk('override');
    for (const [type, ch] of [['deployment.failed', r1.id], ['deployment.failed', r2.id], ['backup.failed', single.id]]) {
      const res = await admin.post('/api/admin/notification-routings', { type, chatChannelId: ch });
      expect(res.status, res.text).to.equal(201);
    }
    expect((await admin.post('/api/admin/notification-routings', { type: 'backup.failed', chatChannelId: single.id })).status).to.equal(409);
    expect((await admin.post('/api/admin/notification-routings', { type: 'nope', chatChannelId: single.id })).body.field).to.equal('type');
    expect((await admin.post('/api/admin/notification-routings', { type: 'backup.failed', chatChannelId: '00000000-0000-4000-8000-000000000000' })).body.field).to.equal('chatChannelId');
    expect((await admin.get('/api/admin/notification-routings?type=deployment.failed')).body.total).to.equal(2);

    // No override.
    expect(await pathsFor('deployment.failed', env.id, 2)).to.deep.equal(['/r1', '/r2']);
    expect(await pathsFor('backup.failed', env.id, 1)).to.deep.equal(['/single']);
    expect(await pathsFor('drift.detected', env.id, 1)).to.deep.equal(['/default']);
    const post = rx.requests[0].json;
    expect(post.text).to.contain(env.name);
    expect(post.blocks[0].type).to.equal('section');

    // The environment override.
    const view = await admin.get(`/api/environments/${env.id}/settings/notifications`);
    expect(view.status).to.equal(200);
    expect(view.body.settings).to.deep.equal({ chatChannelId: null });
    expect(view.body.defaultChannel.id).to.equal(def.id);
    expect(view.body.channels.map((c: { name: string }) => c.name)).to.include.members(['default', 'r1', 'r2', 'single', 'override']);
    const set = await admin.patch(`/api/environments/${env.id}/settings/notifications`, { chatChannelId: ovr.id });
    expect(set.status, set.text).to.equal(200);
    expect(set.body.settings.chatChannelId).to.equal(ovr.id);
    expect(await pathsFor('deployment.failed', env.id, 1)).to.deep.equal(['/override']); // many routed: collapses
    expect(await pathsFor('backup.failed', env.id, 1)).to.deep.equal(['/single']); // one routed: unaffected
    expect(await pathsFor('drift.detected', env.id, 1)).to.deep.equal(['/override']); // unrouted: stands in for the default

    rx.reset();
    const test = await admin.post(`/api/environments/${env.id}/settings/notifications/test`);
    expect(test.status, test.text).to.equal(200);
    expect(test.body.chatChannelId).to.equal(ovr.id);
    expect(rx.requests.map((r) => r.path)).to.deep.equal(['/override']);

    expect((await admin.patch(`/api/environments/${env.id}/settings/notifications`, { chatChannelId: 'nope' })).body.field).to.equal('chatChannelId');
    expect((await admin.patch(`/api/environments/${env.id}/settings/notifications`, { chatChannelId: null, other: 1 })).body.field).to.equal('other');
    expect((await operator.get(`/api/environments/${env.id}/settings/notifications`)).body.code).to.equal('FORBIDDEN_ROLE');
    expect((await admin.get('/api/environments/00000000-0000-4000-8000-000000000000/settings/notifications')).status).to.equal(404);
    await admin.patch(`/api/environments/${env.id}/settings/notifications`, { chatChannelId: null });
    rx.reset();
    expect((await admin.post(`/api/environments/${env.id}/settings/notifications/test`)).body.chatChannelId).to.equal(def.id);

    const routings = (await admin.get('/api/admin/notification-routings')).body.items;
    expect((await admin.delete(`/api/admin/notification-routings/${routings[0].id}`)).status).to.equal(204);
    expect((await admin.delete(`/api/admin/notification-routings/${routings[0].id}`)).status).to.equal(404);
    // With no channel at all the test has nothing to send to.
    for (const c of (await admin.get('/api/admin/chat-channels')).body.items) await admin.delete(`/api/admin/chat-channels/${c.id}`);
    expect((await admin.post(`/api/environments/${env.id}/settings/notifications/test`)).status).to.equal(409);
  });
});
