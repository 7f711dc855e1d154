import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { createService, expectError, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('service and database type routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
  });
  after(() => svc.stop());

  it('a viewer lists the seeded service types with their commands', async () => {
    const res = await viewer.get('/api/settings/service-types');
    expect(res.status, res.text).to.equal(200);
    const names = res.body.items.map((t: { name: string }) => t.name);
    expect(names).to.include.members(['nginx', 'postgres', 'redis', 'node-app']);
    expect(names).to.deep.equal([...names].sort());
    const nginx = res.body.items.find((t: { name: string }) => t.name === 'nginx');
    expect(nginx.builtin).to.equal(true);
    expect(nginx.commands.map((c: { name: string }) => c.name)).to.include.members(['reload', 'logs']);
  });

  it('a viewer lists the seeded database types with default ports', async () => {
    const res = await viewer.get('/api/settings/database-types');
    expect(res.status).to.equal(200);
    const pg = res.body.items.find((t: { name: string }) => t.name === 'postgres');
    expect(pg).to.include({ defaultPort: 5432 });
  });

  it('an admin creates, updates and deletes a service type', async () => {
    const created = await admin.post('/api/settings/service-types', {
      name: 'caddy', description: 'Caddy', commands: [{ name: 'reload', command: ['caddy', 'reload', '--config', '/etc/caddy/Caddyfile'] }],
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ name: 'caddy', builtin: false });
    expect(created.body.commands[0]).to.include({ target: 'container' });
    const patched = await admin.patch(`/api/settings/service-types/${created.body.id}`, { commands: [] });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.commands).to.deep.equal([]);
    expect((await admin.delete(`/api/settings/service-types/${created.body.id}`)).status).to.equal(204);
    expectError(await admin.delete(`/api/settings/service-types/${created.body.id}`), 404, 'NOT_FOUND');
  });

  it('an admin manages database types too', async () => {
    const created = await admin.post('/api/settings/database-types', { name: 'clickhouse', defaultPort: 8123 });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ defaultPort: 8123 });
    expectError(await admin.post('/api/settings/database-types', { name: 'x1', defaultPort: 70000 }), 400, 'VALIDATION_ERROR', 'defaultPort');
    expect((await admin.delete(`/api/settings/database-types/${created.body.id}`)).status).to.equal(204);
  });

  it('validates names and commands, naming the field, and refuses duplicates', async () => {
    const post = (body: Record<string, unknown>) => admin.post('/api/settings/service-types', body);
    expectError(await post({ name: 'Bad Name' }), 400, 'VALIDATION_ERROR', 'name');
    expectError(await post({ name: 'ok1', commands: [{ name: 'x', command: [] }] }), 400, 'VALIDATION_ERROR', 'commands.0.command');
    expectError(await post({ name: 'ok1', commands: [{ name: 'x', command: ['a\u0000'] }] }), 400, 'VALIDATION_ERROR', 'commands.0.command.0');
    expectError(await post({ name: 'ok1', commands: [{ name: 'x', command: ['a'] }, { name: 'x', command: ['b'] }] }), 400, 'VALIDATION_ERROR', 'commands.1.name');
    expectError(await post({ name: 'ok1', commands: [{ name: 'x', command: ['a'], target: 'shell' }] }), 400, 'VALIDATION_ERROR', 'commands.0.target');
    expectError(await post({ name: 'nginx' }), 409, 'CONFLICT');
    const nginx = (await viewer.get('/api/settings/service-types')).body.items.find((t: { name: string }) => t.name === 'nginx');
    expectError(await admin.patch(`/api/settings/service-types/${nginx.id}`, { builtin: false }), 422, 'READONLY_FIELD', 'builtin');
  });

  it('reset restores the shipped types and keeps custom ones', async () => {
    const list = async () => (await viewer.get('/api/settings/service-types?limit=200')).body.items as { id: string; name: string; commands: unknown[] }[];
    const nginx = (await list()).find((t) => t.name === 'nginx')!;
    expect((await admin.patch(`/api/settings/service-types/${nginx.id}`, { commands: [] })).status).to.equal(200);
    expect((await admin.post('/api/settings/service-types', { name: 'custom-kept' })).status).to.equal(201);
    expectError(await operator.post('/api/settings/service-types/reset'), 403, 'FORBIDDEN_ROLE');
    const reset = await admin.post('/api/settings/service-types/reset');
    expect(reset.status, reset.text).to.equal(200);
    const after = await list();
    expect(after.find((t) => t.name === 'nginx')!.commands).to.have.length.greaterThan(0);
    expect(after.find((t) => t.name === 'nginx')!.id).to.equal(nginx.id);
    expect(after.map((t) => t.name)).to.include('custom-kept');
    expect((await admin.post('/api/settings/database-types/reset')).status).to.equal(200);
  });

  it('refuses to delete or rename a service type that services use', async () => {
    const envId = (await createEnvironment(admin)).id;
    await createService(admin, envId, { name: 'uses-redis', type: 'redis' });
    const redis = (await viewer.get('/api/settings/service-types')).body.items.find((t: { name: string }) => t.name === 'redis');
    expectError(await admin.delete(`/api/settings/service-types/${redis.id}`), 409, 'CONFLICT');
    expectError(await admin.patch(`/api/settings/service-types/${redis.id}`, { name: 'redis7' }), 409, 'CONFLICT');
  });

  it('only admins write types; environment-limited tokens cannot read them', async () => {
    expectError(await svc.http.get('/api/settings/service-types'), 401, 'UNAUTHORIZED');
    expectError(await operator.post('/api/settings/service-types', { name: 'op-type' }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post('/api/settings/database-types', { name: 'op-type' }), 403, 'FORBIDDEN_ROLE');
    const any = (await viewer.get('/api/settings/service-types')).body.items[0];
    expectError(await operator.patch(`/api/settings/service-types/${any.id}`, { description: 'x' }), 403, 'FORBIDDEN_ROLE');
    expectError(await operator.delete(`/api/settings/service-types/${any.id}`), 403, 'FORBIDDEN_ROLE');
    const envId = (await createEnvironment(admin)).id;
    const me = await admin.get('/api/auth/me');
    const limited = await limitedToken(svc, svc.http, me.body.id, [envId]);
    expectError(await limited.get('/api/settings/service-types'), 403, 'FORBIDDEN_SCOPE');
    expectError(await admin.patch('/api/settings/database-types/00000000-0000-4000-8000-000000000000', { description: 'x' }), 404, 'NOT_FOUND');
  });
});
