import { expect } from 'chai';
import crypto from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('admin routes: API tokens, service accounts, system settings, SMTP, audit log', () => {
  let svc: TestService;
  let admin: HttpClient;
  let adminId: string;
  let viewer: HttpClient;
  let operator: HttpClient;
  let envId: string;
  let limited: HttpClient;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    adminId = (await admin.get('/api/auth/me')).body.id;
    envId = (await createEnvironment(admin)).id;
    viewer = (await userWithRole(admin, 'viewer')).client;
    operator = (await userWithRole(admin, 'operator')).client;
    limited = await apiToken(admin, adminId, { environmentIds: [envId] });
  });
  after(() => svc.stop());

  describe('API tokens', () => {
    it('returns the token once, stores only its hash, lists it by owner with its prefix, and revokes it', async () => {
      const created = await admin.post('/api/admin/tokens', { name: 'ci', ownerUserId: adminId, role: 'operator' });
      expect(created.status, created.text).to.equal(201);
      const { token, id, tokenPrefix } = created.body;
      expect(token).to.match(/^svc_pat_[0-9A-Za-z]{43}$/);
      expect(tokenPrefix).to.equal(token.slice(0, 12));
      const me = await admin.withToken(token).get('/api/auth/me');
      expect(me.body).to.include({ role: 'operator', tokenType: 'api_token' });
      const list = await admin.get(`/api/admin/tokens?ownerUserId=${adminId}&limit=200`);
      expect(list.status).to.equal(200);
      expect(list.body.items.map((t: { id: string }) => t.id)).to.include(id);
      expect(list.text).to.not.include(token);
      const none = await admin.get(`/api/admin/tokens?ownerServiceAccountId=${crypto.randomUUID()}`);
      expect(none.body.total).to.equal(0);
      const revoked = await admin.post(`/api/admin/tokens/${id}/revoke`);
      expect(revoked.status).to.equal(200);
      expect(revoked.body.revokedAt).to.be.a('string');
      expect((await admin.withToken(token).get('/api/auth/me')).status).to.equal(401);
    });

    it('DELETE revokes as well', async () => {
      const created = (await admin.post('/api/admin/tokens', { name: 'gone', ownerUserId: adminId })).body;
      expect((await admin.withToken(created.token).get('/api/auth/me')).status).to.equal(200);
      expect((await admin.delete(`/api/admin/tokens/${created.id}`)).status).to.equal(204);
      expect((await admin.withToken(created.token).get('/api/auth/me')).status).to.equal(401);
      expect((await admin.delete(`/api/admin/tokens/${crypto.randomUUID()}`)).status).to.equal(404);
    });

    it('validates owner, environments and expiry, naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'x' }, 'ownerUserId'],
        [{ name: 'x', ownerUserId: adminId, ownerServiceAccountId: crypto.randomUUID() }, 'ownerUserId'],
        [{ name: 'x', ownerUserId: crypto.randomUUID() }, 'ownerUserId'],
        [{ name: 'x', ownerServiceAccountId: crypto.randomUUID() }, 'ownerServiceAccountId'],
        [{ name: 'x', ownerUserId: adminId, environmentIds: [crypto.randomUUID()] }, 'environmentIds'],
        [{ name: 'x', ownerUserId: adminId, expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
        [{ name: 'x', ownerUserId: adminId, role: 'root' }, 'role'],
        [{ ownerUserId: adminId }, 'name'],
      ];
      for (const [b, field] of cases) {
        const res = await admin.post('/api/admin/tokens', b);
        expect(res.status, JSON.stringify(b)).to.equal(400);
        expect(res.body, JSON.stringify(b)).to.include({ code: 'VALIDATION_ERROR', field });
      }
      expect((await admin.post('/api/admin/tokens', { name: 'x', ownerUserId: adminId, token: 'mine' })).status).to.equal(422);
    });

    it('an expired token is 401', async () => {
      const created = (await admin.post('/api/admin/tokens', { name: 'soon', ownerUserId: adminId, expiresAt: new Date(Date.now() + 60_000).toISOString() })).body;
      await svc.services.db('api_tokens').where('id', created.id).update({ expiresAt: new Date(Date.now() - 1000) });
      const { clearAuthCache } = await import('../../controller/auth/authenticate-token.js');
      clearAuthCache();
      expect((await admin.withToken(created.token).get('/api/auth/me')).status).to.equal(401);
    });

    it('a role-capped token acts with the lower role, and token management needs tokens:manage', async () => {
      const capped = await apiToken(admin, adminId, { role: 'viewer' });
      const res = await capped.post('/api/admin/tokens', { name: 'x', ownerUserId: adminId });
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('FORBIDDEN_ROLE');
      expect((await operator.get('/api/admin/tokens')).body.code).to.equal('FORBIDDEN_ROLE');
      expect((await limited.get('/api/admin/tokens')).body.code).to.equal('FORBIDDEN_SCOPE');
      expect((await svc.http.get('/api/admin/tokens')).status).to.equal(401);
    });
  });

  describe('service accounts', () => {
    it('creates, reads with tokenCount, updates, disables (tokens 401) and deletes with its tokens', async () => {
      const sa = await admin.post('/api/admin/service-accounts', { name: 'deployer', role: 'operator', description: 'CI' });
      expect(sa.status, sa.text).to.equal(201);
      expect(sa.body).to.include({ name: 'deployer', role: 'operator', disabled: false, tokenCount: 0 });
      const tok = (await admin.post('/api/admin/tokens', { name: 'ci', ownerServiceAccountId: sa.body.id })).body;
      const client = admin.withToken(tok.token);
      expect((await client.get('/api/auth/me')).body).to.include({ role: 'operator', id: sa.body.id });
      expect((await admin.get(`/api/admin/service-accounts/${sa.body.id}`)).body.tokenCount).to.equal(1);
      expect((await admin.get('/api/admin/service-accounts')).body.items[0]).to.have.property('tokenCount');

      const off = await admin.patch(`/api/admin/service-accounts/${sa.body.id}`, { disabled: true });
      expect(off.status).to.equal(200);
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      await admin.patch(`/api/admin/service-accounts/${sa.body.id}`, { disabled: false, role: 'viewer' });
      expect((await client.get('/api/auth/me')).body.role).to.equal('viewer');

      expect((await admin.patch(`/api/admin/service-accounts/${sa.body.id}`, { tokenCount: 3 })).status).to.equal(422);
      expect((await admin.post('/api/admin/service-accounts', { name: 'deployer', role: 'viewer' })).status).to.equal(409);
      expect((await admin.post('/api/admin/service-accounts', { name: 'x', role: 'god' })).body.field).to.equal('role');

      expect((await admin.delete(`/api/admin/service-accounts/${sa.body.id}`)).status).to.equal(204);
      expect(await svc.services.db('api_tokens').where('ownerServiceAccountId', sa.body.id).count({ n: '*' })).to.deep.equal([{ n: 0 }]);
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      expect((await admin.get(`/api/admin/service-accounts/${sa.body.id}`)).status).to.equal(404);
      expect((await operator.get('/api/admin/service-accounts')).body.code).to.equal('FORBIDDEN_ROLE');
    });
  });

  describe('system settings', () => {
    it('has the documented defaults, masks the registry token for any viewer, and only admins change it', async () => {
      const first = await viewer.get('/api/settings/system');
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ webhookMaxRetries: 3, webhookTimeoutMs: 30000, registryAccessToken: null, hasRegistryAccessToken: false });
      expect(first.body.webhookRetryDelaysMs).to.deep.equal([1000, 5000, 15000]);
      const secret = 'ghp_registry_token_1234567890';
      const res = await admin.patch('/api/settings/system', { registryAccessToken: secret, webhookMaxRetries: 5, auditLogRetentionDays: 30 });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.registryAccessToken).to.match(/\*+$/);
      // no character of it: the mask once began with the token's first four (issue 34)
      expect(res.body.registryAccessToken).to.equal('****');
      expect((await viewer.get('/api/settings/system')).body.registryAccessToken).to.equal('****');
      expect(res.text).to.not.include(secret.slice(0, 4));
      expect((await viewer.get('/api/settings/system')).body).to.include({ webhookMaxRetries: 5, hasRegistryAccessToken: true });
      expect(await svc.services.systemSettings.get()).to.include({ webhookMaxRetries: 5, auditLogRetentionDays: 30 });
      expect(await svc.services.systemSettings.registryAccessToken()).to.equal(secret);
      expect((await operator.patch('/api/settings/system', { webhookMaxRetries: 2 })).body.code).to.equal('FORBIDDEN_ROLE');
      expect((await limited.get('/api/settings/system')).body.code).to.equal('FORBIDDEN_SCOPE');
    });

    it('validates ranges and types, naming the field, and refuses read-only fields', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ webhookMaxRetries: 0 }, 'webhookMaxRetries'], [{ webhookMaxRetries: 11 }, 'webhookMaxRetries'],
        [{ webhookTimeoutMs: 99 }, 'webhookTimeoutMs'], [{ webhookRetryDelaysMs: ['1s'] }, 'webhookRetryDelaysMs.0'],
        [{ webhookRetryDelaysMs: 1000 }, 'webhookRetryDelaysMs'], [{ nope: 1 }, 'nope'],
      ];
      for (const [b, field] of cases) {
        const res = await admin.patch('/api/settings/system', b);
        expect(res.status, JSON.stringify(b)).to.equal(400);
        expect(res.body.field, JSON.stringify(b)).to.equal(field);
      }
      expect((await admin.patch('/api/settings/system', { hasRegistryAccessToken: false })).status).to.equal(422);
    });
  });

  describe('SMTP', () => {
    let server: SMTPServer;
    let port: number;
    const received: { from: string; to: string[]; data: string }[] = [];
    const PASSWORD = 'smtp-secret-pass-42';

    before(async () => {
      server = new SMTPServer({
        authOptional: false, allowInsecureAuth: true, disabledCommands: ['STARTTLS'], logger: false,
        onAuth(auth, _session, cb) {
          if (auth.username === 'mailer' && auth.password === PASSWORD) cb(null, { user: 'mailer' });
          else cb(new Error('Invalid username or password'));
        },
        onData(stream, session, cb) {
          let data = '';
          stream.on('data', (c: Buffer) => { data += c.toString(); });
          stream.on('end', () => {
            received.push({ from: String((session.envelope.mailFrom as { address: string }).address), to: session.envelope.rcptTo.map((r) => r.address), data });
            cb();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      port = (server.server.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('is 404 until saved; saving keeps the password write-only and applies defaults', async () => {
      expect((await admin.get('/api/admin/smtp')).status).to.equal(404);
      const res = await admin.put('/api/admin/smtp', { host: '127.0.0.1', fromAddress: 'ops@example.test' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ port: 587, secure: false, enabled: true, hasPassword: false });
    });

    it('validates host, port and fromAddress and refuses read-only fields', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ fromAddress: 'a@b.test' }, 'host'], [{ host: 'h', fromAddress: 'not-mail' }, 'fromAddress'],
        [{ host: 'h', fromAddress: 'a@b.test', port: 0 }, 'port'], [{ host: 'h', fromAddress: 'a@b.test', port: 65536 }, 'port'],
        [{ host: '', fromAddress: 'a@b.test' }, 'host'],
      ];
      for (const [b, field] of cases) {
        const res = await admin.put('/api/admin/smtp', b);
        expect(res.status, JSON.stringify(b)).to.equal(400);
        expect(res.body.field).to.equal(field);
      }
      expect((await admin.put('/api/admin/smtp', { host: 'h', fromAddress: 'a@b.test', hasPassword: true })).status).to.equal(422);
      expect((await operator.put('/api/admin/smtp', { host: 'h', fromAddress: 'a@b.test' })).body.code).to.equal('FORBIDDEN_ROLE');
    });

    it('sends a real test email through the configured server', async () => {
      const saved = await admin.put('/api/admin/smtp', {
        host: '127.0.0.1', port, secure: false, username: 'mailer', password: PASSWORD, fromAddress: 'ops@example.test', fromName: 'Ops',
      });
      expect(saved.body.hasPassword).to.equal(true);
      expect(saved.text).to.not.include(PASSWORD);
      const res = await admin.post('/api/admin/smtp/test', { to: 'someone@example.test' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ delivered: true });
      expect(received.at(-1)!.to).to.deep.equal(['someone@example.test']);
      expect(received.at(-1)!.data).to.include('Stevedore');
      // Omitting the password on a later PUT keeps it.
      await admin.put('/api/admin/smtp', { host: '127.0.0.1', port, username: 'mailer', fromAddress: 'ops@example.test' });
      expect((await admin.post('/api/admin/smtp/test', { to: 'again@example.test' })).status).to.equal(200);
    });

    it('answers 502 SERVICE_UNAVAILABLE without the password when the server refuses or is unreachable', async () => {
      await svc.services.db('smtp_config').update({ username: 'wrong-user' });
      const refused = await admin.post('/api/admin/smtp/test', { to: 'x@example.test' });
      expect(refused.status).to.equal(502);
      expect(refused.body.code).to.equal('SERVICE_UNAVAILABLE');
      expect(refused.text).to.not.include(PASSWORD);
      await admin.put('/api/admin/smtp', { host: '127.0.0.1', port: 1, username: 'mailer', fromAddress: 'ops@example.test' });
      const down = await admin.post('/api/admin/smtp/test', { to: 'x@example.test' });
      expect(down.status).to.equal(502);
      expect(down.text).to.not.include(PASSWORD);
      expect(svc.logs.join('\n')).to.not.include(PASSWORD);
      expect((await admin.post('/api/admin/smtp/test', { to: 'nope' })).body.field).to.equal('to');
    });
  });

  describe('audit log', () => {
    it('lists entries newest first, filters them, and refuses environment-limited tokens', async () => {
      const reg = (await admin.post(`/api/environments/${envId}/registries`, { name: 'audited', type: 'generic', registryUrl: 'https://r.example.test', token: 'never-in-audit' })).body;
      await admin.patch(`/api/registries/${reg.id}`, { username: 'u' });
      const res = await viewer.get(`/api/audit-logs?resourceId=${reg.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.items.map((e: { action: string }) => e.action)).to.deep.equal(['updateRegistry', 'createRegistry']);
      expect(res.body.items[0]).to.include({ environmentId: envId, resourceType: 'registries', actorType: 'user' });
      const byEnv = await viewer.get(`/api/audit-logs?environmentId=${envId}&action=createRegistry&resourceType=registries&limit=1`);
      expect(byEnv.body).to.include({ limit: 1, offset: 0 });
      expect(byEnv.body.items).to.have.length(1);
      expect(JSON.stringify(res.body)).to.not.include('never-in-audit');
      expect((await viewer.get('/api/audit-logs?limit=0')).body.field).to.equal('limit');
      expect((await viewer.get('/api/audit-logs?environmentId=nope')).body.field).to.equal('environmentId');
      expect((await limited.get('/api/audit-logs')).body.code).to.equal('FORBIDDEN_SCOPE');
      expect((await svc.http.get('/api/audit-logs')).status).to.equal(401);
    });
  });
});
