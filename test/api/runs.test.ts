// POST /api/services/{id}/run and GET /api/runs/{id} without a server to reach: who may call them,
// the bodies and servers refused before anything runs, the run's shape, and a run whose watching
// controller went away. What a run sees and that it leaves nothing behind is e2e (test/e2e/runs.test.ts).
import { expect } from 'chai';
import { startWithRoles } from '../support/fixtures.js';
import { createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import type { TestService } from '../support/test-service.js';
import type { HttpClient } from '../support/http-client.js';

describe('one-off run routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let serviceId: string;
  let serverId: string;
  let depId: string;
  let path: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    serviceId = (await createService(operator, envId, { name: 'run-api' })).id;
    serverId = (await insertServer(svc, envId, 'run-srv')).id;
    const dep = await operator.post(`/api/services/${serviceId}/deployments`, { serverId, containerName: 'run-api-1' });
    expect(dep.status, dep.text).to.equal(201);
    depId = dep.body.id;
    path = `/api/services/${serviceId}/run`;
  });
  after(() => svc.stop());

  const runRows = () => svc.services.db('serviceRuns').where({ serviceId });
  const runAudits = () => svc.services.db('auditLogs').where({ action: 'runService' });

  it('refuses a viewer with 403, whatever the body', async () => {
    expectError(await viewer.post(path, { command: ['id'] }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post(path, { nonsense: true }), 403, 'FORBIDDEN_ROLE');
    expect(await runRows()).to.have.length(0);
  });

  it('answers 404 for a service that does not exist, and for a run that does not', async () => {
    expectError(await operator.post('/api/services/00000000-0000-4000-8000-000000000000/run', { command: ['id'] }), 404, 'NOT_FOUND');
    expectError(await viewer.get('/api/runs/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await viewer.get('/api/runs/not-a-uuid'), 404, 'NOT_FOUND');
  });

  it('refuses bad bodies with 400 naming the field, and changes nothing', async () => {
    for (const body of [{}, { command: [] }, { command: 'echo hi' }, { command: [1] }, { command: ['echo', 'a\u0000b'] }]) {
      const r = await operator.post(path, body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.body.field, JSON.stringify(body)).to.match(/^command(\.\d+)?$/);
    }
    expectError(await operator.post(path, { command: ['id'], serverId: 'srv' }), 400, 'VALIDATION_ERROR', 'serverId');
    expectError(await operator.post(path, { command: ['id'], tty: true }), 400, 'VALIDATION_ERROR', 'tty');
    expect(await runRows()).to.have.length(0);
    expect(await runAudits()).to.have.length(0);
  });

  it('refuses a server the service does not run on with 400 on serverId', async () => {
    const elsewhere = (await insertServer(svc, envId, 'run-other-srv')).id;
    for (const id of [elsewhere, '00000000-0000-4000-8000-000000000000']) {
      const r = await operator.post(path, { command: ['id'], serverId: id });
      expectError(r, 400, 'VALIDATION_ERROR', 'serverId');
      expect(r.body.message).to.include('not one of the servers');
    }
    expect(await runRows()).to.have.length(0);
  });

  it('answers 409 while the service has nothing deployed to run from', async () => {
    const r = await operator.post(path, { command: ['id'], serverId });
    expectError(r, 409, 'CONFLICT');
    expect(r.body.message).to.include('not deployed');
    expectError(await operator.post(path, { command: ['id'] }), 409, 'CONFLICT');
    expect(await runRows()).to.have.length(0);
  });

  it('is refused for everyone, an admin too, while operations.allowExec is false', async () => {
    const off = await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: false });
    expect(off.status, off.text).to.equal(200);
    try {
      for (const caller of [admin, operator]) {
        const r = await caller.post(path, { command: ['id'] });
        expectError(r, 403, 'FORBIDDEN_SCOPE');
        expect(r.body.message).to.include('operations.allowExec');
      }
    } finally {
      await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: true });
    }
  });

  it('answers a run with its status, exit code, log tail and times, to a viewer', async () => {
    const id = crypto.randomUUID();
    await svc.services.serviceRuns.insert({ id, serviceId, environmentId: envId, deploymentId: depId, serverId, containerName: `run-api-1-run-${id.slice(0, 8)}`, command: ['sh', '-c', 'exit 3'], createdBy: 'op' });
    const running = await viewer.get(`/api/runs/${id}`);
    expect(running.status, running.text).to.equal(200);
    expect(running.body).to.include({ id, serviceId, serverId, status: 'running', exitCode: null, logTail: '', finishedAt: null });
    expect(running.body.command).to.deep.equal(['sh', '-c', 'exit 3']);
    expect(Date.parse(running.body.startedAt)).to.be.a('number').and.not.NaN;
    await svc.services.serviceRuns.finish(id, { status: 'failed', exitCode: 3, logTail: 'boom\n', reason: 'exited with 3' });
    const ended = await viewer.get(`/api/runs/${id}`);
    expect(ended.body).to.include({ status: 'failed', exitCode: 3, logTail: 'boom\n', reason: 'exited with 3' });
    expect(Date.parse(ended.body.finishedAt)).to.be.at.least(Date.parse(ended.body.startedAt));
    // ended once: a late finish does not rewrite it
    expect(await svc.services.serviceRuns.finish(id, { status: 'succeeded', exitCode: 0, logTail: '', reason: null })).to.equal(false);
    expect((await viewer.get(`/api/runs/${id}`)).body.status).to.equal('failed');
  });

  it('fails a run whose watching controller stopped renewing its heartbeat, with the reason', async () => {
    const id = crypto.randomUUID();
    await svc.services.serviceRuns.insert({ id, serviceId, environmentId: envId, deploymentId: depId, serverId, containerName: `run-api-1-run-${id.slice(0, 8)}`, command: ['sleep', '600'], createdBy: 'op' });
    expect((await viewer.get(`/api/runs/${id}`)).body.status).to.equal('running');
    await svc.services.db('serviceRuns').where({ id }).update({ heartbeatAt: svc.services.db.raw("now() - interval '31 seconds'") });
    const r = await viewer.get(`/api/runs/${id}`);
    expect(r.body).to.include({ status: 'failed', exitCode: null });
    expect(r.body.reason).to.include('controller watching the run stopped');
    expect(r.body.finishedAt).to.be.a('string');
  });
});
