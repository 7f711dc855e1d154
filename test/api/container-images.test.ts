import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import { createImage, createService, expectError, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('container image routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
  });
  after(() => svc.stop());

  it('creates an image without a tag, autoUpdate off by default, and pages the list by name', async () => {
    const res = await operator.post(`/api/environments/${envId}/container-images`, { imageName: 'registry.local:5000/acme/web' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ imageName: 'registry.local:5000/acme/web', autoUpdate: false, currentTag: null, registryConnectionId: null, environmentId: envId });
    await createImage(operator, envId, 'acme/api');
    const page = await viewer.get(`/api/environments/${envId}/container-images?limit=1&offset=1`);
    expect(page.status).to.equal(200);
    expect(page.body).to.include({ total: 2, limit: 1, offset: 1 });
    expect(page.body.items[0].imageName).to.equal('registry.local:5000/acme/web');
    expectError(await viewer.get(`/api/environments/${envId}/container-images?limit=500`), 400, 'VALIDATION_ERROR', 'limit');
  });

  it('rejects tags, digests, bad names, foreign registries and duplicates', async () => {
    const post = (body: Record<string, unknown>) => operator.post(`/api/environments/${envId}/container-images`, body);
    for (const imageName of ['acme/api:1.0', 'acme/api@sha256:0123', 'UPPER/case', 'acme/api;id', 'a b']) {
      expectError(await post({ imageName }), 400, 'VALIDATION_ERROR', 'imageName');
    }
    expectError(await post({ imageName: 'acme/x', registryConnectionId: '00000000-0000-4000-8000-000000000000' }), 400, 'VALIDATION_ERROR', 'registryConnectionId');
    expectError(await post({ imageName: 'acme/x', currentTag: '1' }), 422, 'READONLY_FIELD', 'currentTag');
    expectError(await post({ imageName: 'acme/api' }), 409, 'CONFLICT');
  });

  it('accepts a registry connection of the same environment only', async () => {
    const other = (await createEnvironment(admin)).id;
    const reg = async (environmentId: string) => (await svc.services.db('registryConnections')
      .insert({ environmentId, name: `r-${Math.random()}`, type: 'generic', registryUrl: 'https://registry.local:5000' }).returning('*'))[0].id as string;
    const ok = await operator.post(`/api/environments/${envId}/container-images`, { imageName: 'acme/with-reg', registryConnectionId: await reg(envId) });
    expect(ok.status, ok.text).to.equal(201);
    expectError(await operator.patch(`/api/container-images/${ok.body.id}`, { registryConnectionId: await reg(other) }), 400, 'VALIDATION_ERROR', 'registryConnectionId');
  });

  it('detail lists digests and linked services; the digest list pages newest first', async () => {
    const img = await createImage(operator, envId, 'acme/detail');
    const s1 = await createService(operator, envId, { name: 'detail-svc', containerImageId: img.id });
    await svc.services.containerImages.recordDigest(img.id, '1.0', 'sha256:aaa');
    await svc.services.containerImages.recordDigest(img.id, '1.1', 'sha256:bbb');
    const got = await viewer.get(`/api/container-images/${img.id}`);
    expect(got.status).to.equal(200);
    expect(got.body.services).to.deep.equal([{ id: s1.id, name: 'detail-svc' }]);
    expect(got.body.digests.map((d: { digest: string }) => d.digest)).to.have.members(['sha256:aaa', 'sha256:bbb']);
    const digests = await viewer.get(`/api/container-images/${img.id}/digests?limit=1`);
    expect(digests.body).to.include({ total: 2, limit: 1 });
    expect(digests.body.items[0]).to.include({ tag: '1.1', digest: 'sha256:bbb' });
  });

  it('updates autoUpdate and name with a generation bump', async () => {
    const img = await createImage(operator, envId, 'acme/upd');
    const res = await operator.patch(`/api/container-images/${img.id}`, { autoUpdate: true, imageName: 'acme/upd2' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ autoUpdate: true, imageName: 'acme/upd2', generation: 2 });
    expectError(await operator.patch(`/api/container-images/${img.id}`, { imageName: 'acme/upd2:latest' }), 400, 'VALIDATION_ERROR', 'imageName');
    expectError(await operator.patch(`/api/container-images/${img.id}`, { digests: [] }), 422, 'READONLY_FIELD', 'digests');
  });

  it('links a service of the same environment and bumps its generation', async () => {
    const from = await createImage(operator, envId, 'acme/from');
    const to = await createImage(operator, envId, 'acme/to');
    const s1 = await createService(operator, envId, { name: 'relink', containerImageId: from.id });
    const res = await operator.post(`/api/container-images/${to.id}/link-service`, { serviceId: s1.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.services).to.deep.equal([{ id: s1.id, name: 'relink' }]);
    const after = await viewer.get(`/api/services/${s1.id}`);
    expect(after.body).to.include({ containerImageId: to.id, generation: 2 });
    const other = (await createEnvironment(admin)).id;
    const foreign = await createService(admin, other, { name: 'foreign' });
    expectError(await operator.post(`/api/container-images/${to.id}/link-service`, { serviceId: foreign.id }), 400, 'VALIDATION_ERROR', 'serviceId');
    expectError(await operator.post(`/api/container-images/${to.id}/link-service`, {}), 400, 'VALIDATION_ERROR', 'serviceId');
  });

  it('refuses to delete an image while services use it, then deletes it', async () => {
    const img = await createImage(operator, envId, 'acme/busy');
    const s1 = await createService(operator, envId, { name: 'busy-svc', containerImageId: img.id });
    const refused = await operator.delete(`/api/container-images/${img.id}`);
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body.message).to.contain('busy-svc');
    expect((await operator.delete(`/api/services/${s1.id}`)).status).to.equal(204);
    expect((await operator.delete(`/api/container-images/${img.id}`)).status).to.equal(204);
    expectError(await viewer.get(`/api/container-images/${img.id}`), 404, 'NOT_FOUND');
  });

  it('enforces authentication, roles, environment limits and 404s', async () => {
    const img = await createImage(operator, envId, 'acme/guard');
    const ghost = '00000000-0000-4000-8000-000000000000';
    expectError(await svc.http.get(`/api/environments/${envId}/container-images`), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(`/api/environments/${envId}/container-images`, { imageName: 'acme/v' }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.patch(`/api/container-images/${img.id}`, { autoUpdate: true }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.delete(`/api/container-images/${img.id}`), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post(`/api/container-images/${img.id}/link-service`, { serviceId: ghost }), 403, 'FORBIDDEN_ROLE');
    const me = await admin.get('/api/auth/me');
    const limited = await limitedToken(svc, svc.http, me.body.id, [envId]);
    expect((await limited.get(`/api/environments/${envId}/container-images`)).status).to.equal(200);
    expectError(await limited.get(`/api/container-images/${img.id}`), 403, 'FORBIDDEN_SCOPE');
    for (const path of [`/api/container-images/${ghost}`, `/api/container-images/${ghost}/digests`, `/api/environments/${ghost}/container-images`]) {
      expectError(await viewer.get(path), 404, 'NOT_FOUND');
    }
    expectError(await operator.patch(`/api/container-images/${ghost}`, { autoUpdate: true }), 404, 'NOT_FOUND');
    expectError(await operator.delete(`/api/container-images/${ghost}`), 404, 'NOT_FOUND');
    expectError(await operator.post(`/api/container-images/${ghost}/link-service`, { serviceId: ghost }), 404, 'NOT_FOUND');
  });
});
