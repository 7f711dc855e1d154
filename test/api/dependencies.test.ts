import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import { createImage, createService, expectError, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('service dependency routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    const img = (await createImage(operator, envId)).id;
    for (const name of ['web', 'api', 'db', 'cache']) ids[name] = (await createService(operator, envId, { name, containerImageId: img })).id;
  });
  after(() => svc.stop());

  const add = (from: string, to: string) => operator.post(`/api/services/${ids[from]}/dependencies`, { dependsOnServiceId: ids[to] });

  it('adds dependencies and lists dependencies and dependents with names', async () => {
    const res = await add('web', 'api');
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ serviceId: ids.web, dependsOnServiceId: ids.api });
    expect(res.body.service).to.include({ name: 'api' });
    expect((await add('api', 'db')).status).to.equal(201);
    expect((await add('api', 'cache')).status).to.equal(201);
    const list = await viewer.get(`/api/services/${ids.api}/dependencies`);
    expect(list.status).to.equal(200);
    expect(list.body.dependencies.map((d: { service: { name: string } }) => d.service.name)).to.have.members(['db', 'cache']);
    expect(list.body.dependents.map((d: { service: { name: string } }) => d.service.name)).to.deep.equal(['web']);
  });

  it('computes the graph with nodes, edges, levels and the deployment order', async () => {
    const g = await viewer.get(`/api/environments/${envId}/dependency-graph`);
    expect(g.status, g.text).to.equal(200);
    const name = (id: string) => Object.keys(ids).find((k) => ids[k] === id);
    expect(g.body.order.map(name)).to.deep.equal(['cache', 'db', 'api', 'web']);
    expect(g.body.levels.map((l: string[]) => l.map(name))).to.deep.equal([['cache', 'db'], ['api'], ['web']]);
    expect(g.body.edges).to.have.length(3);
    expect(g.body.nodes.find((n: { name: string }) => n.name === 'web').level).to.equal(2);
  });

  it('rejects an edge that closes a cycle with a VALIDATION_ERROR naming it', async () => {
    const res = await add('db', 'web');
    expectError(res, 400, 'VALIDATION_ERROR', 'dependsOnServiceId');
    expect(res.body.message).to.equal('Dependency cycle: db -> web -> api -> db');
    const self = await add('db', 'db');
    expectError(self, 400, 'VALIDATION_ERROR', 'dependsOnServiceId');
    expect(self.body.message).to.contain('db -> db');
  });

  it('offers only candidates that close no cycle', async () => {
    const c = await viewer.get(`/api/services/${ids.db}/dependencies/candidates`);
    expect(c.status).to.equal(200);
    expect(c.body.items.map((i: { name: string }) => i.name)).to.deep.equal(['cache']);
    const w = await viewer.get(`/api/services/${ids.web}/dependencies/candidates`);
    expect(w.body.items.map((i: { name: string }) => i.name)).to.deep.equal(['cache', 'db']);
  });

  it('refuses duplicates and services of another environment', async () => {
    expectError(await add('web', 'api'), 409, 'CONFLICT');
    const other = (await createEnvironment(admin)).id;
    const foreign = await createService(admin, other, { name: 'far' });
    expectError(await operator.post(`/api/services/${ids.web}/dependencies`, { dependsOnServiceId: foreign.id }), 400, 'VALIDATION_ERROR', 'dependsOnServiceId');
    expectError(await operator.post(`/api/services/${ids.web}/dependencies`, {}), 400, 'VALIDATION_ERROR', 'dependsOnServiceId');
  });

  it('deletes a dependency, after which the edge that was a cycle is allowed', async () => {
    const list = await viewer.get(`/api/services/${ids.web}/dependencies`);
    const edge = list.body.dependencies[0];
    expectError(await viewer.delete(`/api/dependencies/${edge.id}`), 403, 'FORBIDDEN_ROLE');
    expect((await operator.delete(`/api/dependencies/${edge.id}`)).status).to.equal(204);
    expectError(await operator.delete(`/api/dependencies/${edge.id}`), 404, 'NOT_FOUND');
    expect((await add('db', 'web')).status).to.equal(201);
  });

  it('enforces authentication, roles, environment limits and 404s', async () => {
    const ghost = '00000000-0000-4000-8000-000000000000';
    expectError(await svc.http.get(`/api/environments/${envId}/dependency-graph`), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(`/api/services/${ids.web}/dependencies`, { dependsOnServiceId: ids.cache }), 403, 'FORBIDDEN_ROLE');
    const me = await admin.get('/api/auth/me');
    const limited = await limitedToken(svc, svc.http, me.body.id, [envId]);
    expect((await limited.get(`/api/environments/${envId}/dependency-graph`)).status).to.equal(200);
    expectError(await limited.get(`/api/services/${ids.web}/dependencies`), 403, 'FORBIDDEN_SCOPE');
    for (const path of [`/api/services/${ghost}/dependencies`, `/api/services/${ghost}/dependencies/candidates`, `/api/environments/${ghost}/dependency-graph`]) {
      expectError(await viewer.get(path), 404, 'NOT_FOUND');
    }
    expectError(await operator.post(`/api/services/${ghost}/dependencies`, { dependsOnServiceId: ids.web }), 404, 'NOT_FOUND');
    expectError(await operator.delete(`/api/dependencies/${ghost}`), 404, 'NOT_FOUND');
  });
});
