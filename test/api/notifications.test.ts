import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { until } from '../support/until.js';
import { openStream } from '../support/sse-stream.js';

interface Mail { from: string; to: string[]; raw: string }

describe('notifications, preferences, email and the event stream', () => {
  let svc: TestService;
  let admin: HttpClient;
  let adminToken: string;
  let viewer: HttpClient;
  let viewerUser: { id: string; email: string };
  let env: { id: string; name: string };
  let other: { id: string; name: string };
  const mails: Mail[] = [];
  let smtp: SMTPServer;
  let smtpPort: number;
  const publish = (type: string, envId: string | null, data: Record<string, unknown> = {}) => svc.services.events.publish(type, envId, data);
  const count = async (c: HttpClient, q = '') => (await c.get(`/api/notifications${q}`)).body.total as number;

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({ from: (session.envelope.mailFrom || { address: '' }).address, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    adminToken = admin.token!;
    const v = await userWithRole(admin, 'viewer');
    viewer = v.client;
    viewerUser = v.user;
    env = await createEnvironment(admin);
    other = await createEnvironment(admin);
  });
  after(async () => {
    await svc.stop();
    await new Promise<void>((r) => smtp.close(() => r()));
  });

  it('lists the notification type catalogue for admins', async () => {
    const res = await admin.get('/api/admin/notification-types');
    expect(res.status).to.equal(200);
    const codes = res.body.items.map((t: { code: string }) => t.code);
    expect(codes).to.include.members(['deployment.started', 'deployment.success', 'deployment.failed', 'plan.rolled_back', 'health.failed',
      'health.recovered', 'backup.success', 'backup.failed', 'drift.detected', 'image.update_available', 'webhook.failed']);
    for (const t of res.body.items) expect(t).to.have.keys('code', 'category', 'defaultSeverity', 'bounceThreshold', 'recoverThreshold', 'reminderIntervalSec', 'title');
    expect((await viewer.get('/api/admin/notification-types')).body.code).to.equal('FORBIDDEN_ROLE');
  });

  it('turns notification-type events into per-user notifications with filters, unread count, mark read and mark all read', async () => {
    await publish('deployment.success', env.id, { planName: 'p', imageTag: '1.0', serviceCount: 1 });
    await publish('backup.failed', other.id, { databaseName: 'db' });
    await publish('plan.updated', env.id, {}); // a stream event, not a notification
    await until('two notifications', async () => (await count(viewer)) === 2, { timeoutMs: 5000 });
    expect(await count(admin)).to.equal(2);
    const list = (await viewer.get('/api/notifications')).body;
    expect(list).to.include({ total: 2, limit: 25, offset: 0 });
    expect(list.items[0]).to.include({ type: 'backup.failed', category: 'backup', severity: 'error', environmentId: other.id, read: false });
    expect(await count(viewer, `?environmentId=${env.id}`)).to.equal(1);
    expect(await count(viewer, '?category=deployment')).to.equal(1);
    expect((await viewer.get('/api/notifications?category=nope')).body).to.include({ code: 'VALIDATION_ERROR', field: 'category' });
    expect((await viewer.get('/api/notifications?limit=500')).body).to.include({ code: 'VALIDATION_ERROR', field: 'limit' });
    expect((await viewer.get('/api/notifications?limit=1&offset=1')).body.items).to.have.length(1);
    expect((await viewer.get('/api/notifications/unread-count')).body).to.deep.equal({ count: 2 });

    const first = list.items[0].id;
    const read = await viewer.post(`/api/notifications/${first}/read`);
    expect(read.status).to.equal(200);
    expect(read.body.read).to.equal(true);
    expect(await count(viewer, '?unreadOnly=true')).to.equal(1);
    // Another user's notification is not yours to read.
    expect((await admin.post(`/api/notifications/${first}/read`)).status).to.equal(404);
    expect((await viewer.post('/api/notifications/00000000-0000-4000-8000-000000000000/read')).status).to.equal(404);
    const all = await viewer.post('/api/notifications/read-all');
    expect(all.body).to.deep.equal({ updated: 1 });
    expect((await viewer.get('/api/notifications/unread-count')).body.count).to.equal(0);
    expect((await admin.get('/api/notifications/unread-count')).body.count).to.equal(2);
    expect((await svc.http.get('/api/notifications')).status).to.equal(401);
  });

  it('an event of an environment deleted meanwhile still notifies, without the dangling environment', async () => {
    const gone = await createEnvironment(admin);
    expect((await admin.delete(`/api/environments/${gone.id}`)).status).to.equal(204);
    await publish('plan.rolled_back', gone.id, { planName: 'late' });
    await until('notified', async () => (await admin.get('/api/notifications')).body.items.some((n: { data: { planName?: string } }) => n.data.planName === 'late'), { timeoutMs: 5000 });
    const n = (await admin.get('/api/notifications')).body.items.find((x: { data: { planName?: string } }) => x.data.planName === 'late');
    expect(n).to.include({ type: 'plan.rolled_back', environmentId: null });
  });

  it('retention removes in-app notifications older than notificationRetentionDays', async () => {
    expect((await admin.patch('/api/settings/system', { notificationRetentionDays: 5 })).status).to.equal(200);
    const [old] = await svc.services.db('notifications').insert({
      userId: viewerUser.id, type: 'backup.success', category: 'backup', severity: 'info', title: 'old', message: 'old',
      createdAt: new Date(Date.now() - 6 * 86_400_000),
    }).returning('id');
    await svc.services.deliveries.prune();
    expect(await svc.services.db('notifications').where('id', old.id).first()).to.equal(undefined);
    expect(await count(viewer)).to.be.greaterThan(0);
  });

  it('retention removes live metrics announcements after a day and keeps other events', async () => {
    const dayAndMore = new Date(Date.now() - 25 * 3_600_000);
    const [metrics, kept, fresh] = await svc.services.db('events').insert([
      { type: 'metrics.collected', environmentId: env.id, data: {}, createdAt: dayAndMore },
      { type: 'plan.succeeded', environmentId: env.id, data: {}, createdAt: dayAndMore },
      { type: 'metrics.collected', environmentId: env.id, data: {} },
    ]).returning('id');
    await svc.services.deliveries.prune();
    const left = (await svc.services.db('events').whereIn('id', [metrics.id, kept.id, fresh.id]).select('id')).map((r: { id: string }) => Number(r.id));
    expect(left.sort()).to.deep.equal([Number(kept.id), Number(fresh.id)].sort());
  });

  it('per-user preferences per type switch in-app notifications off and validate the type', async () => {
    const prefs = (await viewer.get('/api/notifications/preferences')).body.items;
    expect(prefs.find((p: { type: string }) => p.type === 'drift.detected')).to.deep.equal({ type: 'drift.detected', category: 'drift', inApp: true, email: false });
    const put = await viewer.put('/api/notifications/preferences', { preferences: [{ type: 'drift.detected', inApp: false }] });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.items.find((p: { type: string }) => p.type === 'drift.detected').inApp).to.equal(false);
    expect((await viewer.put('/api/notifications/preferences', { preferences: [{ type: 'nope' }] })).body).to.include({ code: 'VALIDATION_ERROR', field: 'preferences.0.type' });
    expect((await viewer.put('/api/notifications/preferences', {})).body).to.include({ field: 'preferences' });
    const before = await count(viewer);
    const beforeAdmin = await count(admin);
    await publish('drift.detected', env.id, { serverId: 'x' });
    await until('admin notified', async () => (await count(admin)) === beforeAdmin + 1, { timeoutMs: 5000 });
    expect(await count(viewer)).to.equal(before);
  });

  it('sends every health.failed event (the alert state machine bounces at the check) and lets an admin tune the alert policy', async () => {
    const t = (await admin.get('/api/admin/notification-types')).body.items.find((x: { code: string }) => x.code === 'health.failed');
    expect(t).to.include({ bounceThreshold: 2, recoverThreshold: 1, reminderIntervalSec: 3600 });
    const n = () => count(admin, '?category=health');
    await publish('health.failed', env.id, { serviceId: 'svc-1', alert: 'down' });
    await until('the first event notifies', async () => (await n()) === 1, { timeoutMs: 5000 });
    await publish('health.recovered', env.id, { serviceId: 'svc-1', alert: 'recovered' });
    await until('recovered notifies', async () => (await n()) === 2, { timeoutMs: 5000 });

    const patched = await admin.patch('/api/admin/notification-types/health.failed', { bounceThreshold: 3, reminderIntervalSec: 60 });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body).to.include({ code: 'health.failed', bounceThreshold: 3, recoverThreshold: 1, reminderIntervalSec: 60 });
    expect((await admin.patch('/api/admin/notification-types/deployment.failed', { bounceThreshold: 2 })).body).to.include({ code: 'VALIDATION_ERROR' });
    expect((await admin.patch('/api/admin/notification-types/nope', { bounceThreshold: 2 })).status).to.equal(404);
    expect((await admin.patch('/api/admin/notification-types/health.failed', { bounceThreshold: 0 })).body).to.include({ field: 'bounceThreshold' });
    expect((await admin.patch('/api/admin/notification-types/health.failed', {})).status).to.equal(400);
    expect((await viewer.patch('/api/admin/notification-types/health.failed', { bounceThreshold: 2 })).body.code).to.equal('FORBIDDEN_ROLE');
    await admin.patch('/api/admin/notification-types/health.failed', { bounceThreshold: 2, reminderIntervalSec: 3600 });
  });

  it('emails users who chose email for a type through the SMTP configuration', async () => {
    const put = await admin.put('/api/admin/smtp', { host: '127.0.0.1', port: smtpPort, secure: false, fromAddress: 'stevedore@example.test', fromName: 'Stevedore', enabled: true });
    expect(put.status, put.text).to.equal(200);
    await viewer.put('/api/notifications/preferences', { preferences: [{ type: 'deployment.failed', email: false }] });
    await publish('deployment.failed', env.id, { serviceName: 'api', imageTag: '9.9.9', message: 'Container api exited with code 1' });
    await until('an email', () => mails.length >= 1, { timeoutMs: 8000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(mails).to.have.length(1); // the viewer opted out; the admin's default for errors is email on
    const m = mails[0];
    expect(m.to).to.deep.equal(['admin@example.test']);
    expect(m.from).to.equal('stevedore@example.test');
    expect(m.raw).to.match(/Subject: \[Stevedore\] Deployment failed in env-/);
    expect(m.raw).to.contain('Container api exited with code 1');
    expect(m.raw).to.contain(env.name);
    expect(viewerUser.email).to.not.equal('admin@example.test');
  });

  it('streams notification.created to its user only, and the general stream resumes from Last-Event-ID', async () => {
    const mine = openStream(`${svc.url}/api/events`, adminToken);
    const scoped = openStream(`${svc.url}/api/events?environmentId=${other.id}`, adminToken);
    const theirs = openStream(`${svc.url}/api/events`, viewer.token!);
    expect((await mine.ready).status).to.equal(200);
    expect((await mine.ready).headers.get('content-type')).to.match(/text\/event-stream/);
    await scoped.ready;
    await theirs.ready;
    await new Promise((r) => setTimeout(r, 100));
    const planEvent = await publish('plan.updated', env.id, { planId: 'p1', status: 'running' });
    await publish('image.update_available', env.id, { imageName: 'acme/api', imageTag: '2.0' });
    await until('notification.created', () => mine.frames.some((f) => f.event === 'notification.created'), { timeoutMs: 5000 });
    await until('viewer notification.created', () => theirs.frames.some((f) => f.event === 'notification.created'), { timeoutMs: 5000 });
    const created = mine.frames.filter((f) => f.event === 'notification.created');
    expect(created).to.have.length(1);
    expect(created[0].data).to.include({ type: 'image.update_available', environmentId: env.id, read: false });
    const adminNotification = (await admin.get('/api/notifications?category=image')).body.items[0];
    expect(created[0].data.id).to.equal(adminNotification.id);
    expect(theirs.frames.find((f) => f.event === 'notification.created')!.data.id).to.not.equal(adminNotification.id);
    const plan = mine.frames.find((f) => f.event === 'plan.updated')!;
    expect(plan.id).to.equal(String(planEvent.id));
    expect(plan.data).to.include({ planId: 'p1', status: 'running' });
    expect(mine.frames.some((f) => f.event === 'image.update_available')).to.equal(false);
    expect(scoped.frames).to.have.length(0);
    mine.close(); scoped.close(); theirs.close();

    // Resume: everything after the given id, then live.
    const later = await publish('deployment.updated', env.id, { deploymentId: 'd1' });
    const resumed = openStream(`${svc.url}/api/events`, adminToken, { 'last-event-id': String(planEvent.id) });
    await resumed.ready;
    await until('replayed event', () => resumed.frames.some((f) => f.event === 'deployment.updated'), { timeoutMs: 5000 });
    expect(resumed.frames.some((f) => f.event === 'plan.updated')).to.equal(false);
    expect(resumed.frames.find((f) => f.event === 'deployment.updated')!.id).to.equal(String(later.id));
    await publish('health.changed', env.id, { serverId: 's', status: 'unhealthy' });
    await until('live after replay', () => resumed.frames.some((f) => f.event === 'health.changed'), { timeoutMs: 5000 });
    expect(resumed.frames.filter((f) => f.event === 'deployment.updated')).to.have.length(1);
    resumed.close();

    // An environment-limited token streams only its environments.
    const { body: me } = await admin.get('/api/auth/me');
    const limited = await apiToken(admin, me.id, { environmentIds: [env.id] });
    expect((await limited.get(`/api/events?environmentId=${other.id}`)).body.code).to.equal('FORBIDDEN_SCOPE');
    const scopedToken = openStream(`${svc.url}/api/events`, limited.token!);
    expect((await scopedToken.ready).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 100));
    await publish('drift.changed', other.id, { serverId: 'hidden' });
    await publish('drift.changed', env.id, { serverId: 'visible' });
    await until('scoped drift.changed', () => scopedToken.frames.some((f) => f.event === 'drift.changed'), { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(scopedToken.frames.filter((f) => f.event === 'drift.changed').map((f) => f.data.serverId)).to.deep.equal(['visible']);
    scopedToken.close();

    const bad = await admin.get('/api/events?environmentId=00000000-0000-4000-8000-000000000000');
    expect(bad.status).to.equal(404);
    expect((await svc.http.get('/api/events')).status).to.equal(401);
  });
});
