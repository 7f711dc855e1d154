import { expect } from 'chai';
import crypto from 'node:crypto';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('registry connection routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let viewer: HttpClient;
  let operator: HttpClient;
  let envId: string;
  let otherEnvId: string;
  let limited: HttpClient;

  const body = (extra: Record<string, unknown> = {}) => ({
    name: `reg-${crypto.randomBytes(3).toString('hex')}`, type: 'generic', registryUrl: 'https://registry.example.test', ...extra,
  });

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    otherEnvId = (await createEnvironment(admin)).id;
    viewer = (await userWithRole(admin, 'viewer')).client;
    operator = (await userWithRole(admin, 'operator')).client;
    const me = (await admin.get('/api/auth/me')).body;
    limited = await apiToken(admin, me.id, { environmentIds: [envId] });
  });
  after(() => svc.stop());

  it('creates a connection with defaults and answers it credential-free with hasToken and hasPassword', async () => {
    const res = await operator.post(`/api/environments/${envId}/registries`,
      body({ token: 'tok-1234567890', username: 'bot', password: 'pw-1234567890' }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ environmentId: envId, hasToken: true, hasPassword: true, username: 'bot', isDefault: false, refreshIntervalMinutes: 60 });
    expect(res.body).to.not.have.any.keys('token', 'password', 'tokenEnc', 'passwordEnc');
    const got = await viewer.get(`/api/registries/${res.body.id}`);
    expect(got.status).to.equal(200);
    expect(got.text).to.not.include('tok-1234567890');
    const list = await limited.get(`/api/environments/${envId}/registries`);
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ total: 1, limit: 25, offset: 0 });
    expect(list.text).to.not.include('pw-1234567890');
  });

  it('refuses a duplicate name in the same environment with 409 but allows it in another', async () => {
    const b = body();
    expect((await admin.post(`/api/environments/${envId}/registries`, b)).status).to.equal(201);
    const dup = await admin.post(`/api/environments/${envId}/registries`, b);
    expect(dup.status).to.equal(409);
    expect(dup.body).to.include({ code: 'CONFLICT', field: 'name' });
    expect((await admin.post(`/api/environments/${otherEnvId}/registries`, b)).status).to.equal(201);
  });

  it('validates the fields, naming the one that is wrong', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'dockerish' }, 'type'], [{ registryUrl: 'not a url' }, 'registryUrl'], [{ refreshIntervalMinutes: 4 }, 'refreshIntervalMinutes'],
      [{ refreshIntervalMinutes: 1441 }, 'refreshIntervalMinutes'], [{ name: '' }, 'name'], [{ autoLinkPattern: '([' }, 'autoLinkPattern'],
      [{ bogus: 1 }, 'bogus'],
    ];
    for (const [extra, field] of cases) {
      const res = await admin.post(`/api/environments/${envId}/registries`, body(extra));
      expect(res.status, JSON.stringify(extra)).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field });
    }
    const missing = await admin.post(`/api/environments/${envId}/registries`, { type: 'generic' });
    expect(missing.body).to.include({ code: 'VALIDATION_ERROR', field: 'name' });
  });

  it('refuses read-only fields with 422 READONLY_FIELD on create and update', async () => {
    for (const field of ['id', 'hasToken', 'hasPassword', 'createdAt', 'environmentId']) {
      const res = await admin.post(`/api/environments/${envId}/registries`, body({ [field]: true }));
      expect(res.status, field).to.equal(422);
      expect(res.body).to.include({ code: 'READONLY_FIELD', field });
    }
    const created = (await admin.post(`/api/environments/${envId}/registries`, body())).body;
    const res = await admin.patch(`/api/registries/${created.id}`, { hasToken: false });
    expect(res.status).to.equal(422);
  });

  it('updates fields, removes a secret with null, and bumps the generation', async () => {
    const created = (await admin.post(`/api/environments/${envId}/registries`, body({ token: 'abc-token-value' }))).body;
    const res = await operator.patch(`/api/registries/${created.id}`, { token: null, repositoryPrefix: 'acme/', refreshIntervalMinutes: 5 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ hasToken: false, repositoryPrefix: 'acme/', refreshIntervalMinutes: 5, generation: 2 });
    expect((await operator.patch(`/api/registries/${created.id}`, {})).status).to.equal(400);
  });

  it('keeps at most one default per environment', async () => {
    const a = (await admin.post(`/api/environments/${otherEnvId}/registries`, body({ isDefault: true }))).body;
    const b = (await admin.post(`/api/environments/${otherEnvId}/registries`, body({ isDefault: true }))).body;
    expect((await admin.get(`/api/registries/${a.id}`)).body.isDefault).to.equal(false);
    expect((await admin.get(`/api/registries/${b.id}`)).body.isDefault).to.equal(true);
    await admin.patch(`/api/registries/${a.id}`, { isDefault: true });
    expect((await admin.get(`/api/registries/${b.id}`)).body.isDefault).to.equal(false);
    const defaults = (await admin.get(`/api/environments/${otherEnvId}/registries?limit=200`)).body.items.filter((r: { isDefault: boolean }) => r.isDefault);
    expect(defaults).to.have.length(1);
  });

  it('refuses to delete a connection that container images use, then deletes it once they are gone', async () => {
    const reg = (await admin.post(`/api/environments/${envId}/registries`, body())).body;
    const [img] = await svc.services.db('container_images')
      .insert({ environmentId: envId, registryConnectionId: reg.id, imageName: `registry.local/acme/${reg.name}` }).returning('id');
    const refused = await operator.delete(`/api/registries/${reg.id}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('CONFLICT');
    expect(refused.body.hint).to.be.a('string');
    await svc.services.db('container_images').where('id', img.id).delete();
    expect((await operator.delete(`/api/registries/${reg.id}`)).status).to.equal(204);
    expect((await operator.get(`/api/registries/${reg.id}`)).status).to.equal(404);
  });

  it('answers 401, FORBIDDEN_ROLE, FORBIDDEN_SCOPE and 404 as the rules say', async () => {
    expect((await svc.http.get(`/api/environments/${envId}/registries`)).status).to.equal(401);
    const asViewer = await viewer.post(`/api/environments/${envId}/registries`, body());
    expect(asViewer.status).to.equal(403);
    expect(asViewer.body.code).to.equal('FORBIDDEN_ROLE');
    const other = await limited.get(`/api/environments/${otherEnvId}/registries`);
    expect(other.body.code).to.equal('FORBIDDEN_SCOPE');
    const item = (await admin.post(`/api/environments/${envId}/registries`, body())).body;
    expect((await limited.get(`/api/registries/${item.id}`)).body.code).to.equal('FORBIDDEN_SCOPE');
    expect((await admin.get(`/api/registries/${crypto.randomUUID()}`)).status).to.equal(404);
    expect((await admin.patch(`/api/registries/${crypto.randomUUID()}`, { name: 'x' })).status).to.equal(404);
    expect((await admin.get(`/api/environments/${crypto.randomUUID()}/registries`)).status).to.equal(404);
    expect((await admin.get('/api/registries/not-a-uuid')).status).to.equal(404);
  });
});
