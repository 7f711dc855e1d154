import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import { createService, expectError, insertServer, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('deployment routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let serviceId: string;
  let serverA: string;
  let serverB: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    serviceId = (await createService(operator, envId, { name: 'api' })).id;
    serverA = (await insertServer(svc, envId, 'alpha')).id;
    serverB = (await insertServer(svc, envId, 'beta')).id;
  });
  after(() => svc.stop());

  const eventsFor = async (deploymentId: string) =>
    (await svc.services.db('events').where({ type: 'deployment.updated' }).orderBy('id'))
      .filter((e: { data: { deploymentId: string } }) => e.data.deploymentId === deploymentId)
      .map((e: { data: { action: string }; environmentId: string }) => `${e.data.action}@${e.environmentId === envId}`);

  it('adds deployments to servers of the environment and lists them with observed fields', async () => {
    const a = await operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverA, containerName: 'api-1', composePath: '/srv/api/compose.yml' });
    expect(a.status, a.text).to.equal(201);
    expect(a.body).to.include({ serviceId, environmentId: envId, serverId: serverA, containerName: 'api-1', composePath: '/srv/api/compose.yml', status: 'pending', imageTag: null, lastDeployedAt: null, generation: 1 });
    expect(a.body.exposedPorts).to.deep.equal([]);
    const b = await operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverB, containerName: 'api-1' });
    expect(b.status, b.text).to.equal(201);
    const list = await viewer.get(`/api/services/${serviceId}/deployments`);
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(2);
    expect(list.body.items.map((d: { serverId: string }) => d.serverId)).to.have.members([serverA, serverB]);
    const read = await viewer.get(`/api/services/${serviceId}`);
    expect(read.body.deployments).to.have.length(2);
    expect(await eventsFor(a.body.id)).to.deep.equal(['created@true']);
  });

  it('rejects a second deployment of the same container name on one server', async () => {
    expectError(await operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverA, containerName: 'api-1' }), 409, 'CONFLICT');
  });

  it('rejects servers of another environment, unsafe container names and compose paths, naming the field', async () => {
    const otherEnv = (await createEnvironment(admin)).id;
    const foreign = (await insertServer(svc, otherEnv)).id;
    const post = (body: Record<string, unknown>) => operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverA, containerName: 'ok-name', ...body });
    expectError(await post({ serverId: foreign }), 400, 'VALIDATION_ERROR', 'serverId');
    expectError(await post({ serverId: '00000000-0000-4000-8000-000000000000' }), 400, 'VALIDATION_ERROR', 'serverId');
    expectError(await post({ serverId: 'nope' }), 400, 'VALIDATION_ERROR', 'serverId');
    for (const containerName of ['a', 'x;reboot', '$(id)', '-lead', 'has space', 'a/b', 'x'.repeat(129)]) {
      expectError(await post({ containerName }), 400, 'VALIDATION_ERROR', 'containerName');
    }
    for (const composePath of ['relative/compose.yml', '/srv/../etc/passwd', '/srv/a\u0000b.yml', '/srv/$(id).yml', '/srv/`id`.yml']) {
      expectError(await post({ composePath }), 400, 'VALIDATION_ERROR', 'composePath');
    }
    expectError(await operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverA }), 400, 'VALIDATION_ERROR', 'containerName');
  });

  it('updates spec fields with a generation bump and refuses observed fields with READONLY_FIELD', async () => {
    const created = await operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverA, containerName: 'api-2' });
    const path = `/api/services/${serviceId}/deployments/${created.body.id}`;
    const same = await operator.patch(path, { containerName: 'api-2' });
    expect(same.body.generation).to.equal(1);
    const moved = await operator.patch(path, { serverId: serverB, composePath: '/srv/api/compose.yaml' });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.body).to.include({ serverId: serverB, composePath: '/srv/api/compose.yaml', generation: 2 });
    for (const field of ['exposedPorts', 'status', 'imageTag', 'lastDeployedAt', 'id']) {
      expectError(await operator.patch(path, { [field]: field === 'exposedPorts' ? [] : 'x' }), 422, 'READONLY_FIELD', field);
    }
    expectError(await operator.patch(path, { composePath: '/a/../b' }), 400, 'VALIDATION_ERROR', 'composePath');
    expect(await eventsFor(created.body.id)).to.deep.equal(['created@true', 'updated@true']);
  });

  it('deletes a deployment and publishes the removal', async () => {
    const created = await operator.post(`/api/services/${serviceId}/deployments`, { serverId: serverB, containerName: 'api-3' });
    const path = `/api/services/${serviceId}/deployments/${created.body.id}`;
    expect((await operator.delete(path)).status).to.equal(204);
    expectError(await operator.delete(path), 404, 'NOT_FOUND');
    expect(await eventsFor(created.body.id)).to.deep.equal(['created@true', 'deleted@true']);
  });

  it('answers 404 for a deployment of another service and for unknown services', async () => {
    const other = await createService(operator, envId, { name: 'other' });
    const dep = await operator.post(`/api/services/${other.id}/deployments`, { serverId: serverA, containerName: 'other-1' });
    expectError(await operator.patch(`/api/services/${serviceId}/deployments/${dep.body.id}`, { containerName: 'zz' }), 404, 'NOT_FOUND');
    expectError(await operator.delete(`/api/services/${serviceId}/deployments/${dep.body.id}`), 404, 'NOT_FOUND');
    const ghost = '00000000-0000-4000-8000-000000000000';
    expectError(await viewer.get(`/api/services/${ghost}/deployments`), 404, 'NOT_FOUND');
    expectError(await operator.post(`/api/services/${ghost}/deployments`, { serverId: serverA, containerName: 'x1' }), 404, 'NOT_FOUND');
  });

  it('enforces authentication, roles and environment limits', async () => {
    const list = `/api/services/${serviceId}/deployments`;
    expectError(await svc.http.get(list), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(list, { serverId: serverA, containerName: 'v-1' }), 403, 'FORBIDDEN_ROLE');
    const dep = (await viewer.get(list)).body.items[0];
    expectError(await viewer.patch(`${list}/${dep.id}`, { containerName: 'v-2' }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.delete(`${list}/${dep.id}`), 403, 'FORBIDDEN_ROLE');
    const me = await admin.get('/api/auth/me');
    const limited = await limitedToken(svc, svc.http, me.body.id, [envId]);
    expectError(await limited.get(list), 403, 'FORBIDDEN_SCOPE');
  });
});
