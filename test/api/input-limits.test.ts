import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';

// Hostile input gets a 4xx that says what is wrong, never a 500 or a token that lives forever.
describe('input limits', () => {
  let svc: TestService;
  let admin: HttpClient;
  let viewer: HttpClient;
  let env: { id: string };

  before(async () => {
    ({ svc, admin, viewer, env } = await startWithRoles());
  });
  after(() => svc.stop());

  it('refuses a JSON body nested 10,000 levels deep with 400 before validating it, and accepts 64 levels', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const res = await admin.post(`/api/environments/${env.id}/servers`, undefined, { raw: `{"name":"x","hostname":"h","tags":${deep}}` });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.code).to.equal('VALIDATION_ERROR');
    expect(res.body.message).to.match(/nested deeper than 64/);
    // brackets inside strings are text, not nesting
    const text = await admin.post(`/api/environments/${env.id}/vars`, { key: 'BRACKETS', value: '['.repeat(5000) });
    expect(text.status, text.text).to.equal(201);
    const ok64 = '['.repeat(62) + ']'.repeat(62); // 62 arrays inside the object and its "tags": 64 levels
    const at = await admin.post(`/api/environments/${env.id}/servers`, undefined, { raw: `{"name":"deep","hostname":"h","tags":${ok64}}` });
    expect(at.status).to.equal(400);
    expect(at.body.message).to.not.match(/nested deeper/);
  });

  it('refuses a JWT signed with the right secret but without exp', async () => {
    const me = await admin.get('/api/auth/me');
    const secret = svc.services.config.jwtSecret;
    const forever = jwt.sign({ role: 'admin', ver: me.body.tokenVersion ?? 0 }, secret, { algorithm: 'HS256', subject: me.body.id });
    const res = await svc.http.get('/api/environments', { token: forever });
    expect(res.status).to.equal(401);
    const user = await svc.services.users.findById(me.body.id);
    const withExp = jwt.sign({ role: 'admin', ver: user!.tokenVersion }, secret, { algorithm: 'HS256', subject: me.body.id, expiresIn: '5m' });
    expect((await svc.http.get('/api/environments', { token: withExp })).status).to.equal(200);
  });

  it('normalizes dockerSocketPath and refuses . and .. segments', async () => {
    for (const bad of ['/var/run/../../home/u/docker.sock', '/var/run/..', '/./docker.sock', 'docker.sock']) {
      const res = await admin.post(`/api/environments/${env.id}/servers`, { name: `s${Math.random().toString(36).slice(2, 7)}`, hostname: 'h1', dockerMode: 'socket', dockerSocketPath: bad });
      expect(res.status, bad).to.equal(400);
      expect(res.body.field).to.equal('dockerSocketPath');
    }
    const ok = await admin.post(`/api/environments/${env.id}/servers`, { name: 'sock', hostname: 'h1', dockerMode: 'socket', dockerSocketPath: '//run//user/1000/docker.sock/' });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.dockerSocketPath).to.equal('/run/user/1000/docker.sock');
    const patched = await admin.patch(`/api/servers/${ok.body.id}`, { dockerSocketPath: '/home/u/.docker/run//docker.sock' });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.dockerSocketPath).to.equal('/home/u/.docker/run/docker.sock');
  });

  it('checks the caller before the body: a viewer changing another user gets 403 whatever the body', async () => {
    const other = await admin.get('/api/auth/me');
    const pw = await viewer.post(`/api/users/${other.body.id}/password`, { newPassword: 'x' });
    expect(pw.status, pw.text).to.equal(403);
    expect((await viewer.post(`/api/users/${other.body.id}/password`, { bogus: [1] })).status).to.equal(403);
    const patch = await viewer.patch(`/api/users/${other.body.id}`, { role: 'nonsense' });
    expect(patch.status, patch.text).to.equal(403);
    const me = await viewer.get('/api/auth/me');
    expect((await viewer.patch(`/api/users/${me.body.id}`, { role: 'nonsense' })).status).to.equal(403);
    expect((await viewer.patch(`/api/users/${me.body.id}`, { name: 'x'.repeat(10_000) })).status).to.equal(400);
  });
});
