import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('secrets and vars routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let env: { id: string };
  const SECRET = `planted-${Math.random().toString(36).slice(2)}-Zq9`;

  before(async () => {
    const w = await startWithRoles();
    ({ svc, admin, operator, viewer } = w);
    env = w.env;
  });
  after(() => svc.stop());

  it('an operator creates a secret; reads give key, metadata and usage but never the value', async () => {
    const res = await operator.post(`/api/environments/${env.id}/secrets`, { key: 'DB_PASSWORD', value: SECRET, description: 'db' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ key: 'DB_PASSWORD', hasValue: true, description: 'db' });
    expect(res.text).to.not.include(SECRET);
    const stored = await svc.services.db('secrets').where({ id: res.body.id }).first();
    expect(stored.valueSealed).to.match(/^v1:/).and.not.include(SECRET);
    await operator.post(`/api/environments/${env.id}/config-files`, { name: 'app.env', content: 'DB_PASSWORD=${DB_PASSWORD}\n' });
    const list = await viewer.get(`/api/environments/${env.id}/secrets`);
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(1);
    expect(list.body.items[0].usage.configFiles.map((f: { name: string }) => f.name)).to.deep.equal(['app.env']);
    expect(list.text).to.not.include(SECRET);
    const one = await viewer.get(`/api/secrets/${res.body.id}`);
    expect(one.status).to.equal(200);
    expect(one.text).to.not.include(SECRET);
  });

  it('rejects keys that are not [A-Z_][A-Z0-9_]* and missing values with VALIDATION_ERROR naming the field', async () => {
    for (const key of ['lower', '1ABC', 'A-B', 'A B', 'A;rm', '']) {
      const res = await operator.post(`/api/environments/${env.id}/secrets`, { key, value: 'x' });
      expect(res.status, key).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'key' });
    }
    const noValue = await operator.post(`/api/environments/${env.id}/secrets`, { key: 'OK' });
    expect(noValue.body).to.include({ code: 'VALIDATION_ERROR', field: 'value' });
    const unknown = await operator.post(`/api/environments/${env.id}/vars`, { key: 'OK', value: 'v', extra: 1 });
    expect(unknown.body).to.include({ code: 'VALIDATION_ERROR', field: 'extra' });
  });

  it('a duplicate key is 409, a viewer may not write (403), an unknown environment or id is 404, no token is 401', async () => {
    const dup = await operator.post(`/api/environments/${env.id}/secrets`, { key: 'DB_PASSWORD', value: 'other' });
    expect(dup.status).to.equal(409);
    expect(dup.body.code).to.equal('CONFLICT');
    const forbidden = await viewer.post(`/api/environments/${env.id}/secrets`, { key: 'X', value: 'y' });
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body.code).to.equal('FORBIDDEN_ROLE');
    expect((await viewer.post(`/api/environments/${env.id}/vars`, { key: 'X', value: 'y' })).status).to.equal(403);
    expect((await operator.get('/api/environments/00000000-0000-4000-8000-000000000000/secrets')).status).to.equal(404);
    expect((await operator.get('/api/secrets/00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await svc.http.get(`/api/environments/${env.id}/secrets`)).status).to.equal(401);
  });

  it('updating a secret replaces the value; the key is read-only (422)', async () => {
    const [row] = await svc.services.db('secrets').where({ environmentId: env.id, key: 'DB_PASSWORD' });
    const ro = await operator.patch(`/api/secrets/${row.id}`, { key: 'OTHER' });
    expect(ro.status).to.equal(422);
    expect(ro.body).to.include({ code: 'READONLY_FIELD', field: 'key' });
    const upd = await operator.patch(`/api/secrets/${row.id}`, { value: `${SECRET}-2`, description: 'rotated' });
    expect(upd.status, upd.text).to.equal(200);
    expect(upd.body.description).to.equal('rotated');
    expect(upd.text).to.not.include(SECRET);
    const empty = await operator.patch(`/api/secrets/${row.id}`, {});
    expect(empty.body).to.include({ code: 'VALIDATION_ERROR' });
  });

  it('reveal answers the value to an admin only, and only while allowSecretReveal is true', async () => {
    const [row] = await svc.services.db('secrets').where({ environmentId: env.id, key: 'DB_PASSWORD' });
    expect((await operator.post(`/api/secrets/${row.id}/reveal`)).status).to.equal(403);
    const ok = await admin.post(`/api/secrets/${row.id}/reveal`);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body).to.deep.include({ key: 'DB_PASSWORD', value: `${SECRET}-2` });
    const withKey = await admin.post(`/api/secrets/${row.id}/reveal`, undefined, { headers: { 'Idempotency-Key': 'k1' } });
    expect(withKey.body).to.include({ code: 'VALIDATION_ERROR', field: 'Idempotency-Key' });
    await admin.patch(`/api/environments/${env.id}/settings/configuration`, { allowSecretReveal: false });
    const off = await admin.post(`/api/secrets/${row.id}/reveal`);
    expect(off.status).to.equal(403);
    expect(off.text).to.not.include(SECRET);
    await admin.patch(`/api/environments/${env.id}/settings/configuration`, { allowSecretReveal: true });
    const audit = await svc.services.db('audit_logs').where({ action: 'revealSecret' });
    expect(audit).to.have.length(1);
    expect(JSON.stringify(audit)).to.not.include(SECRET);
  });

  it('vars are readable, written by operators, listed with usage, updated and deleted', async () => {
    const created = await operator.post(`/api/environments/${env.id}/vars`, { key: 'DB_HOST', value: 'db.internal' });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.value).to.equal('db.internal');
    await operator.post(`/api/environments/${env.id}/config-files`, { name: 'db.conf', content: 'host=${DB_HOST}\n' });
    const list = await viewer.get(`/api/environments/${env.id}/vars`);
    expect(list.body.items[0].usage.configFiles[0].name).to.equal('db.conf');
    const upd = await operator.patch(`/api/vars/${created.body.id}`, { value: 'db2.internal' });
    expect(upd.body.value).to.equal('db2.internal');
    expect((await viewer.get(`/api/vars/${created.body.id}`)).body.value).to.equal('db2.internal');
    expect((await operator.delete(`/api/vars/${created.body.id}`)).status).to.equal(204);
    expect((await viewer.get(`/api/vars/${created.body.id}`)).status).to.equal(404);
  });

  it('deleting a secret is 204 and audited without its value', async () => {
    const [row] = await svc.services.db('secrets').where({ environmentId: env.id, key: 'DB_PASSWORD' });
    expect((await operator.delete(`/api/secrets/${row.id}`)).status).to.equal(204);
    expect((await operator.delete(`/api/secrets/${row.id}`)).status).to.equal(404);
    const audit = await svc.services.db('audit_logs').where({ resourceType: 'secrets' });
    expect(audit.map((a: { action: string }) => a.action)).to.include.members(['createSecret', 'updateSecret', 'deleteSecret']);
    expect(JSON.stringify(audit)).to.not.include(SECRET);
    expect(svc.logs.join('')).to.not.include(SECRET);
  });
});
