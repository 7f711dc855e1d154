import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, PASSWORD, userWithRole } from '../support/fixtures.js';
import { expectError } from '../support/catalog-fixtures.js';
import { Receiver } from '../support/receiver.js';
import type { HttpClient } from '../support/http-client.js';
import { syncShippedTypes } from '../../controller/catalog/shipped-types-sync.js';

describe('admin operations: error tracking, plugin sync, type export and reorder, recently active users', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let receiver: Receiver;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver.stop();
    await svc.stop();
  });

  describe('error tracking', () => {
    it('stores a DSN without ever returning it, and a test sends one Sentry envelope to it', async () => {
      const unset = await admin.get('/api/admin/error-tracking');
      expect(unset.status, unset.text).to.equal(200);
      expect(unset.body).to.include({ configured: false, enabled: false });
      expectError(await admin.post('/api/admin/error-tracking/test'), 409, 'CONFLICT');

      const port = new URL(receiver.url).port;
      const dsn = `http://publickey123@127.0.0.1:${port}/42`;
      const set = await admin.put('/api/admin/error-tracking', { dsn, environment: 'ci' });
      expect(set.status, set.text).to.equal(200);
      expect(set.body).to.include({ configured: true, enabled: true, endpoint: `http://127.0.0.1:${port}`, projectId: '42', environment: 'ci' });
      expect(set.text).not.to.contain('publickey123');

      receiver.reset();
      const test = await admin.post('/api/admin/error-tracking/test');
      expect(test.status, test.text).to.equal(200);
      expect(test.body).to.include({ ok: true, status: 200 });
      expect(receiver.requests).to.have.length(1);
      const req = receiver.requests[0];
      expect(req.method).to.equal('POST');
      expect(req.path).to.equal('/api/42/envelope/');
      expect(req.headers['content-type']).to.equal('application/x-sentry-envelope');
      expect(req.headers['x-sentry-auth']).to.match(/^Sentry sentry_version=7, sentry_key=publickey123, sentry_client=stevedore\//);
      const [header, itemHeader, event] = req.body.trim().split('\n').map((l) => JSON.parse(l));
      expect(header.event_id).to.equal(test.body.eventId);
      expect(itemHeader).to.include({ type: 'event' });
      expect(event).to.include({ event_id: test.body.eventId, level: 'info', environment: 'ci', platform: 'node' });

      const status = await admin.get('/api/admin/error-tracking');
      expect(status.body.lastTest).to.include({ ok: true, eventId: test.body.eventId });
      expect(status.text).not.to.contain('publickey123');
    });

    it('a tracker that refuses the event makes the test answer 502 with its status', async () => {
      const port = new URL(receiver.url).port;
      expect((await admin.put('/api/admin/error-tracking', { dsn: `http://k@127.0.0.1:${port}/7` })).status).to.equal(200);
      receiver.reset();
      receiver.mode = 'fail';
      const res = await admin.post('/api/admin/error-tracking/test');
      expectError(res, 502, 'SERVICE_UNAVAILABLE');
      expect(res.body.message).to.contain('500');
      expect(receiver.requests).to.have.length(1);
      receiver.reset();
    });

    it('reports an unexpected failure as an error event with its stack', async () => {
      const port = new URL(receiver.url).port;
      expect((await admin.put('/api/admin/error-tracking', { dsn: `http://k@127.0.0.1:${port}/9`, enabled: true })).status).to.equal(200);
      receiver.reset();
      // what the error envelope middleware does with every 500
      svc.services.errorTracking.capture(new Error('boom in a route'), { requestId: 'req-1', route: 'GET /api/x' });
      await receiver.waitFor(() => receiver.requests.length === 1, 10_000, 'the error event');
      const event = JSON.parse(receiver.requests[0].body.trim().split('\n')[2]);
      expect(event.level).to.equal('error');
      expect(event.exception.values[0]).to.include({ type: 'Error', value: 'boom in a route' });
      expect(event.exception.values[0].stacktrace.frames.length).to.be.greaterThan(0);
      expect(event.tags).to.deep.equal({ route: 'GET /api/x', requestId: 'req-1' });
      receiver.reset();
    });

    it('validates the DSN without echoing it, and only admins may see or change it', async () => {
      const bad = await admin.put('/api/admin/error-tracking', { dsn: 'https://secretish.example.test/1' });
      expectError(bad, 400, 'VALIDATION_ERROR', 'dsn');
      expectError(await admin.put('/api/admin/error-tracking', { dsn: 'not a url' }), 400, 'VALIDATION_ERROR', 'dsn');
      expectError(await admin.put('/api/admin/error-tracking', { unknown: 1 }), 400, 'VALIDATION_ERROR');
      expectError(await operator.get('/api/admin/error-tracking'), 403, 'FORBIDDEN_ROLE');
      expectError(await operator.post('/api/admin/error-tracking/test'), 403, 'FORBIDDEN_ROLE');
      const off = await admin.put('/api/admin/error-tracking', { dsn: null });
      expect(off.body).to.include({ configured: false, endpoint: null });
    });
  });

  describe('shipped types (plugins)', () => {
    it('reports the start-up sync; a shipped type that went missing is added back, a customized one is kept', async () => {
      const first = await admin.get('/api/admin/plugins/sync');
      expect(first.status, first.text).to.equal(200);
      expect(first.body.ok).to.equal(true);
      expect(first.body.serviceTypes.unchanged).to.include('nginx');
      expect(first.body.databaseTypes.unchanged).to.include('postgres');
      expectError(await operator.get('/api/admin/plugins/sync'), 403, 'FORBIDDEN_ROLE');

      const types = (await admin.get('/api/settings/service-types?limit=200')).body.items as Array<{ id: string; name: string }>;
      const redis = types.find((t) => t.name === 'redis')!;
      const nginx = types.find((t) => t.name === 'nginx')!;
      expect((await admin.delete(`/api/settings/service-types/${redis.id}`)).status).to.equal(204);
      expect((await admin.patch(`/api/settings/service-types/${nginx.id}`, { description: 'ours' })).status).to.equal(200);
      await syncShippedTypes(svc.services); // what the next start-up does
      const again = await admin.get('/api/admin/plugins/sync');
      expect(again.body.serviceTypes.added).to.deep.equal(['redis']);
      expect(again.body.serviceTypes.customized).to.include('nginx');
      const after = (await admin.get('/api/settings/service-types?limit=200')).body.items as Array<{ name: string; description: string }>;
      expect(after.find((t) => t.name === 'redis')).to.include({ builtin: true });
      expect(after.find((t) => t.name === 'nginx')).to.include({ description: 'ours' });
    });

    it('exports every type as create bodies a viewer can read, which import elsewhere as they are', async () => {
      const res = await viewer.get('/api/settings/database-types/export');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.kind).to.equal('database-types');
      const pg = res.body.items.find((t: { name: string }) => t.name === 'postgres');
      expect(pg).to.include({ defaultPort: 5432 });
      expect(pg).not.to.have.any.keys('id', 'createdAt', 'builtin');
      expect(res.headers.get('content-disposition')).to.contain('stevedore-database-types.json');
      const copy = await admin.post('/api/settings/database-types', { ...pg, name: 'postgres-copy' });
      expect(copy.status, copy.text).to.equal(201);
      expect(copy.body.commands).to.deep.equal(pg.commands);
    });

    it('reorders a type\'s commands; names must be exactly the current commands', async () => {
      const created = await admin.post('/api/settings/service-types', {
        name: 'reorder-me', commands: [{ name: 'a', command: ['true'] }, { name: 'b', command: ['true'] }, { name: 'c', command: ['true'] }],
      });
      const path = `/api/settings/service-types/${created.body.id}/commands/reorder`;
      const res = await admin.post(path, { names: ['c', 'a', 'b'] });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.commands.map((c: { name: string }) => c.name)).to.deep.equal(['c', 'a', 'b']);
      const listed = (await viewer.get('/api/settings/service-types?limit=200')).body.items.find((t: { name: string }) => t.name === 'reorder-me');
      expect(listed.commands.map((c: { name: string }) => c.name)).to.deep.equal(['c', 'a', 'b']);
      expectError(await admin.post(path, { names: ['a', 'b'] }), 400, 'VALIDATION_ERROR', 'names');
      expectError(await admin.post(path, { names: ['a', 'b', 'c', 'd'] }), 400, 'VALIDATION_ERROR', 'names');
      expectError(await admin.post(path, { names: ['a', 'a', 'b'] }), 400, 'VALIDATION_ERROR', 'names');
      expectError(await operator.post(path, { names: ['a', 'b', 'c'] }), 403, 'FORBIDDEN_ROLE');
      expectError(await admin.post('/api/settings/service-types/00000000-0000-4000-8000-000000000000/commands/reorder', { names: [] }), 404, 'NOT_FOUND');
    });
  });

  describe('recently active users', () => {
    it('lists users who signed in or used an API token recently, most recent first; never-active users are left out', async () => {
      const idle = await admin.post('/api/users', { email: `idle-${Date.now()}@example.test`, password: PASSWORD, role: 'viewer' });
      const tokenUser = await admin.post('/api/users', { email: `token-${Date.now()}@example.test`, password: PASSWORD, role: 'viewer' });
      const byToken = await apiToken(admin, tokenUser.body.id);
      expect((await byToken.get('/api/auth/me')).status).to.equal(200);
      const res = await admin.get('/api/users/recently-active?withinDays=1');
      expect(res.status, res.text).to.equal(200);
      const emails = res.body.items.map((u: { email: string }) => u.email);
      expect(emails).to.include('admin@example.test');
      expect(emails).to.include(tokenUser.body.email);
      expect(emails).not.to.include(idle.body.email);
      const times = res.body.items.map((u: { lastActiveAt: string }) => Date.parse(u.lastActiveAt));
      expect(times).to.deep.equal([...times].sort((a: number, b: number) => b - a));
      expect(res.body.items[0]).not.to.have.any.keys('passwordHash', 'tokenVersion');
      expectError(await admin.get('/api/users/recently-active?withinDays=0'), 400, 'VALIDATION_ERROR', 'withinDays');
      expectError(await viewer.get('/api/users/recently-active'), 403, 'FORBIDDEN_ROLE');
    });
  });
});
