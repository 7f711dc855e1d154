import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

// The machine-side behaviour is tested against the fleet (test/e2e/servers-bootstrap.test.ts);
// here: the answers that need no server.
describe('server operations without a server: bootstrap status, refusals, roles', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let hostId: string;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
    const envId = (await createEnvironment(admin)).id;
    const host = await admin.post(`/api/environments/${envId}/servers/register-host`, { name: 'controller-host' });
    expect(host.status, host.text).to.equal(201);
    hostId = host.body.id;
  });
  after(() => svc.stop());

  it('a server never bootstrapped has no bootstrap status (404)', async () => {
    expectError(await viewer.get(`/api/servers/${hostId}/bootstrap`), 404, 'NOT_FOUND');
  });

  it('refuses to bootstrap or add swap on the controller\'s own machine (socket mode) with 409, and stores no run', async () => {
    expectError(await operator.post(`/api/servers/${hostId}/bootstrap`), 409, 'CONFLICT');
    expectError(await operator.post(`/api/servers/${hostId}/swap`, { sizeMb: 128 }), 409, 'CONFLICT');
    expectError(await viewer.get(`/api/servers/${hostId}/bootstrap`), 404, 'NOT_FOUND');
  });

  it('needs operator for the live operations, validates their bodies, and 404s an unknown server', async () => {
    expectError(await viewer.post(`/api/servers/${hostId}/bootstrap`), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post(`/api/servers/${hostId}/host-gateway`), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post(`/api/servers/${hostId}/swap`, { sizeMb: 128 }), 403, 'FORBIDDEN_ROLE');
    expectError(await operator.post(`/api/servers/${hostId}/swap`, { sizeMb: 128, path: '/tmp/x;rm -rf /' }), 400, 'VALIDATION_ERROR', 'path');
    expectError(await operator.post(`/api/servers/${hostId}/swap`, { sizeMb: 1 }), 400, 'VALIDATION_ERROR', 'sizeMb');
    expectError(await operator.post(`/api/servers/${hostId}/bootstrap`, { force: true }), 400, 'VALIDATION_ERROR');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await operator.post(`/api/servers/${unknown}/bootstrap`), 404, 'NOT_FOUND');
    expectError(await viewer.get(`/api/servers/${unknown}/bootstrap`), 404, 'NOT_FOUND');
  });
});
