import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, login, PASSWORD, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('auth routes', () => {
  let svc: TestService;
  let admin: HttpClient;

  let setupBefore: { status: number; body: unknown };

  before(async () => {
    svc = await startTestService();
    setupBefore = await svc.http.get('/api/auth/setup');
    admin = await bootstrapAdmin(svc.http);
  });
  after(() => svc.stop());

  it('says publicly whether the first admin is still to be created, and no more', async () => {
    expect(setupBefore.status).to.equal(200);
    expect(setupBefore.body).to.deep.equal({ needsFirstAdmin: true, passwordLogin: true, sso: false });
    const after = await svc.http.get('/api/auth/setup');
    expect(after.status).to.equal(200);
    expect(after.body).to.deep.equal({ needsFirstAdmin: false, passwordLogin: true, sso: false });
  });

  it('answers 404 for single sign-on while OIDC_ISSUER is unset (the flow itself: test/e2e/sso.test.ts)', async () => {
    for (const path of ['/api/auth/oidc/login', '/api/auth/oidc/callback?code=x&state=y']) {
      const res = await svc.http.get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body.message).to.match(/Single sign-on/);
    }
  });

  it('the first user to register becomes admin and later registrations are refused with a hint', async () => {
    const me = await admin.get('/api/auth/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ role: 'admin', tokenType: 'jwt', email: 'admin@example.test' });
    expect(me.body.scopes).to.have.members(['*:read', 'services:write', 'admin:*', 'tokens:manage']);
    const again = await svc.http.post('/api/auth/register', { email: 'late@example.test', password: PASSWORD });
    expect(again.status).to.equal(403);
    expect(again.body).to.include({ code: 'FORBIDDEN_ROLE' });
    expect(again.body.hint).to.match(/admin/i);
  });

  it('login answers a JWT with expiry and the user; wrong credentials are 401 in the envelope', async () => {
    const ok = await svc.http.post('/api/auth/login', { email: 'ADMIN@example.test', password: PASSWORD });
    expect(ok.status).to.equal(200);
    expect(ok.body.token).to.be.a('string');
    expect(Date.parse(ok.body.expiresAt)).to.be.greaterThan(Date.now());
    expect(ok.body.user).to.have.keys('id', 'email', 'name', 'role');
    const bad = await svc.http.post('/api/auth/login', { email: 'nobody@example.test', password: 'whatever1' });
    expect(bad.status).to.equal(401);
    expect(bad.body).to.include({ code: 'UNAUTHORIZED' });
    expect(bad.body.requestId).to.equal(bad.headers.get('x-request-id'));
  });

  it('register validates email format and password length, naming the field', async () => {
    const res = await svc.http.post('/api/auth/register', { email: 'not-an-email', password: 'longenough' });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'email' });
    const short = await svc.http.post('/api/auth/register', { email: 'x@example.test', password: 'short' });
    expect(short.body).to.include({ code: 'VALIDATION_ERROR', field: 'password' });
  });

  it('repeated failed logins for one account are throttled with 429 and Retry-After', async () => {
    const { user } = await userWithRole(admin, 'viewer');
    for (let i = 0; i < 5; i++) {
      const r = await svc.http.post('/api/auth/login', { email: user.email, password: 'wrong-password' });
      expect(r.status).to.equal(401);
    }
    const locked = await svc.http.post('/api/auth/login', { email: user.email, password: PASSWORD });
    expect(locked.status).to.equal(429);
    expect(locked.body.code).to.equal('RATE_LIMITED');
    expect(Number(locked.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('a password change invalidates the user\'s existing JWTs', async () => {
    const { client, user } = await userWithRole(admin, 'operator');
    expect((await client.get('/api/auth/me')).status).to.equal(200);
    const change = await client.post(`/api/users/${user.id}/password`, { currentPassword: PASSWORD, newPassword: 'another-password' });
    expect(change.status, change.text).to.equal(204);
    expect((await client.get('/api/auth/me')).status).to.equal(401);
    const fresh = await login(svc.http, user.email, 'another-password');
    expect((await fresh.get('/api/auth/me')).status).to.equal(200);
  });

  it('an admin changing their own password must give the current one; another user\'s needs none', async () => {
    const me = (await admin.get('/api/auth/me')).body;
    const without = await admin.post(`/api/users/${me.id}/password`, { newPassword: 'whatever-new-1' });
    expect(without.status).to.equal(400);
    expect(without.body.field).to.equal('currentPassword');
    const { user } = await userWithRole(admin, 'viewer');
    const forOther = await admin.post(`/api/users/${user.id}/password`, { newPassword: 'reset-by-admin' });
    expect(forOther.status, forOther.text).to.equal(204);
  });

  it('a garbage, expired-looking or missing token is 401', async () => {
    expect((await svc.http.get('/api/auth/me')).status).to.equal(401);
    expect((await svc.http.get('/api/auth/me', { token: 'garbage' })).status).to.equal(401);
    expect((await svc.http.get('/api/auth/me', { token: 'svc_pat_doesnotexist' })).status).to.equal(401);
  });
});
