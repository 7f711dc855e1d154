import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { createImage, createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('service operations: legacy create, status refresh, deployment record', () => {
  let svc: TestService;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let otherEnvId: string;

  before(async () => {
    svc = await startTestService();
    const admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
    envId = (await createEnvironment(admin)).id;
    otherEnvId = (await createEnvironment(admin)).id;
  });
  after(() => svc.stop());

  it('creates a service and its deployment in one call; containerName defaults to the name', async () => {
    const image = await createImage(operator, envId);
    const server = await insertServer(svc, envId);
    const res = await operator.post(`/api/environments/${envId}/services/with-deployment`, {
      name: 'legacy-web', containerImageId: image.id, imageTag: '1.0', ports: ['127.0.0.1:8080:80'], serverId: server.id,
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ name: 'legacy-web', imageTag: '1.0' });
    expect(res.body.deployments).to.have.length(1);
    expect(res.body.deployments[0]).to.include({ serverId: server.id, containerName: 'legacy-web' });
    const read = await viewer.get(`/api/services/${res.body.id}`);
    expect(read.body.deployments.map((d: { id: string }) => d.id)).to.deep.equal([res.body.deployments[0].id]);
  });

  it('creates nothing when either half is invalid', async () => {
    const image = await createImage(operator, envId);
    const foreign = await insertServer(svc, otherEnvId);
    const before = (await viewer.get(`/api/environments/${envId}/services?limit=200`)).body.total;
    expectError(await operator.post(`/api/environments/${envId}/services/with-deployment`, {
      name: 'legacy-bad', containerImageId: image.id, serverId: foreign.id,
    }), 400, 'VALIDATION_ERROR', 'serverId');
    expectError(await operator.post(`/api/environments/${envId}/services/with-deployment`, {
      name: 'legacy-bad', containerImageId: image.id,
    }), 400, 'VALIDATION_ERROR', 'serverId');
    const server = await insertServer(svc, envId);
    expectError(await operator.post(`/api/environments/${envId}/services/with-deployment`, {
      name: 'legacy-bad', containerImageId: image.id, serverId: server.id, containerName: 'Bad Name',
    }), 400, 'VALIDATION_ERROR', 'containerName');
    expectError(await operator.post(`/api/environments/${envId}/services/with-deployment`, {
      name: 'legacy-bad', containerImageId: image.id, serverId: server.id, deployments: [],
    }), 422, 'READONLY_FIELD', 'deployments');
    expectError(await viewer.post(`/api/environments/${envId}/services/with-deployment`, {
      name: 'legacy-bad', containerImageId: image.id, serverId: server.id,
    }), 403, 'FORBIDDEN_ROLE');
    expect((await viewer.get(`/api/environments/${envId}/services?limit=200`)).body.total).to.equal(before);
  });

  it('refreshing a service never deployed observes nothing and changes nothing', async () => {
    const service = await createService(operator, envId);
    const server = await insertServer(svc, envId);
    expect((await operator.post(`/api/services/${service.id}/deployments`, { serverId: server.id, containerName: 'never-deployed' })).status).to.equal(201);
    const res = await operator.post(`/api/services/${service.id}/refresh-status`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.deployments).to.have.length(1);
    expect(res.body.deployments[0]).to.include({ containerName: 'never-deployed', drifted: false });
    expectError(await viewer.post(`/api/services/${service.id}/refresh-status`), 403, 'FORBIDDEN_ROLE');
    expectError(await operator.post(`/api/services/${service.id}/refresh-status`, { extra: 1 }), 400, 'VALIDATION_ERROR');
  });

  it('a deployment record that does not exist, or belongs to another service, is 404', async () => {
    const service = await createService(operator, envId);
    expectError(await viewer.get(`/api/services/${service.id}/deployments-history/00000000-0000-4000-8000-000000000000`), 404, 'NOT_FOUND');
    expectError(await viewer.get(`/api/services/${service.id}/deployments-history/not-a-uuid`), 404, 'NOT_FOUND');
  });
});
