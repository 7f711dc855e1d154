import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import { createImage, createService, expectError, insertServer, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('service template routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let imageId: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    imageId = (await createImage(admin, envId, 'registry.local:5000/acme/api')).id;
  });
  after(() => svc.stop());

  const full = (name: string) => ({
    name, containerImageId: imageId, imageTag: '1.4.2', type: 'node-app',
    env: { API_URL: 'http://${API_HOST}:8080', LOG_LEVEL: 'info' },
    ports: ['127.0.0.1:8080:80'], volumes: ['data:/var/lib/app', '/srv/conf:/etc/app:ro'],
    command: ['node', 'server.js'],
    healthCheck: { test: ['CMD', 'curl', '-f', 'http://localhost/health'], intervalSec: 10, timeoutSec: 5, retries: 3, startPeriodSec: 5 },
    composeTemplate: 'services:\n  api:\n    image: ${IMAGE}\n',
  });

  it('an operator creates a service template and reads it back with its deployments', async () => {
    const res = await operator.post(`/api/environments/${envId}/services`, full('api'));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ name: 'api', environmentId: envId, imageTag: '1.4.2', type: 'node-app', generation: 1 });
    expect(res.body.env).to.deep.equal({ API_URL: 'http://${API_HOST}:8080', LOG_LEVEL: 'info' });
    expect(res.body.deployments).to.deep.equal([]);
    const got = await viewer.get(`/api/services/${res.body.id}`);
    expect(got.status).to.equal(200);
    expect(got.body.ports).to.deep.equal(['127.0.0.1:8080:80']);
    expect(got.body.healthCheck.retries).to.equal(3);
    expect(got.body.command).to.deep.equal(['node', 'server.js']);
  });

  it('a minimal service gets empty env, ports and volumes', async () => {
    const res = await operator.post(`/api/environments/${envId}/services`, { name: 'minimal', containerImageId: imageId });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.include({ env: {}, ports: [], volumes: [], command: null, type: null, imageTag: null });
  });

  it('lists services by name, filters by type and counts by type', async () => {
    const env2 = (await createEnvironment(admin)).id;
    const img = (await createImage(admin, env2)).id;
    for (const [name, type] of [['web', 'nginx'], ['cache', 'redis'], ['proxy', 'nginx'], ['misc', null]] as const) {
      await createService(operator, env2, { name, type, containerImageId: img });
    }
    const all = await viewer.get(`/api/environments/${env2}/services`);
    expect(all.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['cache', 'misc', 'proxy', 'web']);
    expect(all.body).to.include({ total: 4, limit: 25, offset: 0 });
    const nginx = await viewer.get(`/api/environments/${env2}/services?type=nginx&limit=1`);
    expect(nginx.body.total).to.equal(2);
    expect(nginx.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['proxy']);
    const counts = await viewer.get(`/api/environments/${env2}/services/count-by-type`);
    expect(counts.status).to.equal(200);
    expect(counts.body.total).to.equal(4);
    expect(counts.body.counts).to.deep.include.members([{ type: 'nginx', count: 2 }, { type: 'redis', count: 1 }, { type: null, count: 1 }]);
  });

  it('rejects unsafe or malformed values with a VALIDATION_ERROR naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'a' }, 'name'],
      [{ name: 'bad name;rm' }, 'name'],
      [{ imageTag: '1.0;reboot' }, 'imageTag'],
      [{ imageTag: '-x' }, 'imageTag'],
      [{ ports: ['80', '127.0.0.1:80:80; id'] }, 'ports.1'],
      [{ volumes: ['../../etc:/etc'] }, 'volumes.0'],
      [{ env: { 'bad-key': 'x' } }, 'env.bad-key'],
      [{ env: { GOOD: 'line\nbreak' } }, 'env.GOOD'],
      [{ command: ['node', 'a\u0000b'] }, 'command.1'],
      [{ healthCheck: { test: ['curl'] } }, 'healthCheck.test.0'],
      [{ healthCheck: { test: ['CMD', 'x'], retries: -1 } }, 'healthCheck.retries'],
      [{ composeTemplate: '- not\n- a mapping\n' }, 'composeTemplate'],
      [{ type: 'no-such-type' }, 'type'],
      [{ containerImageId: '00000000-0000-4000-8000-000000000000' }, 'containerImageId'],
      [{ extra: true }, 'extra'],
    ];
    for (const [patch, field] of cases) {
      const res = await operator.post(`/api/environments/${envId}/services`, { name: 'checked', containerImageId: imageId, ...patch });
      expectError(res, 400, 'VALIDATION_ERROR', field);
    }
    expectError(await operator.post(`/api/environments/${envId}/services`, { name: 'noimage' }), 400, 'VALIDATION_ERROR', 'containerImageId');
  });

  it('restartPolicy: unless-stopped by default, each of Docker\'s forms stored and read back, a bad value 400 naming it and nothing changed', async () => {
    const column = async (id: string) => (await svc.services.db('services').where({ id }).first('restartPolicy', 'generation'));
    const plain = await createService(operator, envId, { name: 'restart-default' });
    expect((await viewer.get(`/api/services/${plain.id}`)).body.restartPolicy).to.equal('unless-stopped');
    expect(await column(plain.id)).to.deep.equal({ restartPolicy: 'unless-stopped', generation: 1 });
    for (const [i, policy] of ['no', 'always', 'unless-stopped', 'on-failure', 'on-failure:3', 'on-failure:9999'].entries()) {
      const res = await operator.post(`/api/environments/${envId}/services`, { name: `restart-${i}`, containerImageId: imageId, restartPolicy: policy });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.restartPolicy).to.equal(policy);
      expect((await viewer.get(`/api/services/${res.body.id}`)).body.restartPolicy).to.equal(policy);
      expect((await column(res.body.id)).restartPolicy).to.equal(policy);
    }
    const changed = await operator.patch(`/api/services/${plain.id}`, { restartPolicy: 'on-failure:5' });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.include({ restartPolicy: 'on-failure:5', generation: 2 });
    expect(await column(plain.id)).to.deep.equal({ restartPolicy: 'on-failure:5', generation: 2 });
    const names = async () => (await svc.services.db('services').where({ environmentId: envId }).pluck('name')).sort();
    const before = await names();
    for (const bad of ['sometimes', 'on-failure:0', 'on-failure:-1', 'on-failure:10000', 'on-failure:', 'always:3', 'Always', ' no', 3, null, true]) {
      const created = await operator.post(`/api/environments/${envId}/services`, { name: 'restart-bad', containerImageId: imageId, restartPolicy: bad });
      expectError(created, 400, 'VALIDATION_ERROR', 'restartPolicy');
      expect(created.body.message, JSON.stringify(bad)).to.match(/restartPolicy/);
      expectError(await operator.patch(`/api/services/${plain.id}`, { restartPolicy: bad }), 400, 'VALIDATION_ERROR', 'restartPolicy');
    }
    expect(await names()).to.deep.equal(before);
    expect(await column(plain.id)).to.deep.equal({ restartPolicy: 'on-failure:5', generation: 2 });
  });

  it('refuses an image of another environment and a duplicate name', async () => {
    const other = (await createEnvironment(admin)).id;
    const foreign = (await createImage(admin, other)).id;
    expectError(await operator.post(`/api/environments/${envId}/services`, { name: 'x1', containerImageId: foreign }), 400, 'VALIDATION_ERROR', 'containerImageId');
    await createService(operator, envId, { name: 'dup' });
    expectError(await operator.post(`/api/environments/${envId}/services`, { name: 'dup', containerImageId: imageId }), 409, 'CONFLICT');
  });

  it('an update bumps the generation only when a spec field changes and rejects read-only fields', async () => {
    const s1 = await createService(operator, envId, { name: 'gen-test' });
    const same = await operator.patch(`/api/services/${s1.id}`, { imageTag: '1.0' });
    expect(same.status, same.text).to.equal(200);
    expect(same.body.generation).to.equal(1);
    const changed = await operator.patch(`/api/services/${s1.id}`, { imageTag: '1.1', env: { A: 'b' } });
    expect(changed.body).to.include({ generation: 2, imageTag: '1.1' });
    expect(changed.body.env).to.deep.equal({ A: 'b' });
    expectError(await operator.patch(`/api/services/${s1.id}`, { generation: 7 }), 422, 'READONLY_FIELD', 'generation');
    expectError(await operator.patch(`/api/services/${s1.id}`, { deployments: [] }), 422, 'READONLY_FIELD', 'deployments');
    expectError(await operator.patch(`/api/services/${s1.id}`, { ports: ['x'] }), 400, 'VALIDATION_ERROR', 'ports.0');
    expectError(await operator.patch(`/api/services/${s1.id}`, {}), 400, 'VALIDATION_ERROR');
    const audit = await svc.services.db('auditLogs').where({ resourceId: s1.id, action: 'updateService' }).orderBy('createdAt');
    expect(audit.map((a: { details: { changed: string[] } }) => a.details.changed)).to.deep.equal([[], ['imageTag', 'env']]);
  });

  it('concurrent updates each count in the generation', async () => {
    const s1 = await createService(operator, envId, { name: 'racy' });
    const results = await Promise.all(['2.0', '2.1', '2.2'].map((imageTag) => operator.patch(`/api/services/${s1.id}`, { imageTag })));
    expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    expect((await viewer.get(`/api/services/${s1.id}`)).body.generation).to.equal(4);
  });

  it('delete cascades to deployments and publishes their removal', async () => {
    const s1 = await createService(operator, envId, { name: 'doomed' });
    const server = await insertServer(svc, envId);
    const dep = await operator.post(`/api/services/${s1.id}/deployments`, { serverId: server.id, containerName: 'doomed-1' });
    expect(dep.status, dep.text).to.equal(201);
    const del = await operator.delete(`/api/services/${s1.id}`);
    expect(del.status).to.equal(204);
    expectError(await viewer.get(`/api/services/${s1.id}`), 404, 'NOT_FOUND');
    expect(await svc.services.db('deployments').where({ id: dep.body.id }).first()).to.equal(undefined);
    const events = await svc.services.db('events').where({ type: 'deployment.updated' }).orderBy('id');
    expect(events.map((e: { data: { action: string; deploymentId: string } }) => `${e.data.action}:${e.data.deploymentId}`))
      .to.include.members([`created:${dep.body.id}`, `deleted:${dep.body.id}`]);
  });

  it('resolves the predefined commands of the service type for each deployment', async () => {
    const s1 = await createService(operator, envId, { name: 'edge', type: 'nginx' });
    const server = await insertServer(svc, envId);
    await operator.post(`/api/services/${s1.id}/deployments`, { serverId: server.id, containerName: 'edge-1' });
    const res = await viewer.get(`/api/services/${s1.id}/commands`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.type).to.equal('nginx');
    expect(res.body.commands.map((c: { name: string }) => c.name)).to.include('reload');
    const reload = res.body.deployments[0].commands.find((c: { name: string }) => c.name === 'reload');
    expect(reload.argv).to.deep.equal(['docker', 'exec', 'edge-1', 'nginx', '-s', 'reload']);
    const untyped = await createService(operator, envId, { name: 'untyped' });
    expect((await viewer.get(`/api/services/${untyped.id}/commands`)).body.commands).to.deep.equal([]);
  });

  it('enforces authentication, roles and environment limits', async () => {
    const s1 = await createService(operator, envId, { name: 'guarded' });
    expectError(await svc.http.get(`/api/environments/${envId}/services`), 401, 'UNAUTHORIZED');
    expectError(await svc.http.get(`/api/services/${s1.id}`), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(`/api/environments/${envId}/services`, { name: 'nope', containerImageId: imageId }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.patch(`/api/services/${s1.id}`, { imageTag: '2' }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.delete(`/api/services/${s1.id}`), 403, 'FORBIDDEN_ROLE');
    const me = await admin.get('/api/auth/me');
    const limited = await limitedToken(svc, svc.http, me.body.id, [envId]);
    expect((await limited.get(`/api/environments/${envId}/services`)).status).to.equal(200);
    expectError(await limited.get(`/api/services/${s1.id}`), 403, 'FORBIDDEN_SCOPE');
    const other = (await createEnvironment(admin)).id;
    expectError(await limited.get(`/api/environments/${other}/services`), 403, 'FORBIDDEN_SCOPE');
  });

  it('answers 404 for unknown services and environments', async () => {
    const ghost = '00000000-0000-4000-8000-000000000000';
    expectError(await viewer.get(`/api/services/${ghost}`), 404, 'NOT_FOUND');
    expectError(await viewer.get('/api/services/not-a-uuid'), 404, 'NOT_FOUND');
    expectError(await operator.patch(`/api/services/${ghost}`, { imageTag: '1' }), 404, 'NOT_FOUND');
    expectError(await operator.delete(`/api/services/${ghost}`), 404, 'NOT_FOUND');
    expectError(await viewer.get(`/api/environments/${ghost}/services`), 404, 'NOT_FOUND');
    expectError(await viewer.get(`/api/environments/${ghost}/services/count-by-type`), 404, 'NOT_FOUND');
    expectError(await viewer.get(`/api/services/${ghost}/commands`), 404, 'NOT_FOUND');
  });
});
