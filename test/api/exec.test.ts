// POST /api/services/{id}/deployments/{depId}/exec without a server to reach: who may call it,
// the environment's operations.allowExec that refuses everyone, and bodies it refuses before
// anything is sent anywhere. What a command prints and the audit of a session are e2e
// (test/e2e/exec.test.ts), where a real container runs.
import { expect } from 'chai';
import WebSocket from 'ws';
import { startWithRoles } from '../support/fixtures.js';
import { createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import type { TestService } from '../support/test-service.js';
import type { HttpClient } from '../support/http-client.js';

describe('exec route', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let path: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    const serviceId = (await createService(operator, envId, { name: 'exec-api' })).id;
    const serverId = (await insertServer(svc, envId, 'exec-srv')).id;
    const dep = await operator.post(`/api/services/${serviceId}/deployments`, { serverId, containerName: 'exec-api-1' });
    expect(dep.status, dep.text).to.equal(201);
    path = `/api/services/${serviceId}/deployments/${dep.body.id}/exec`;
  });
  after(() => svc.stop());

  /** A WebSocket upgrade that is refused: its status and error envelope. */
  function refusedUpgrade(query: string, auth: { header?: string; protocol?: string }): Promise<{ status: number; body: any }> {
    const url = `${svc.url.replace(/^http/, 'ws')}${path}/ws${query}`;
    const ws = new WebSocket(url, auth.protocol ? ['stevedore.exec', auth.protocol] : [], auth.header ? { headers: { authorization: auth.header } } : {});
    return new Promise((resolve, reject) => {
      ws.on('open', () => { ws.close(); reject(new Error('the upgrade was accepted')); });
      ws.on('error', () => {});
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (d: Buffer) => { text += d; });
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
    });
  }

  const execEntries = async () => svc.services.db('auditLogs').where({ action: 'execServiceDeployment' });

  it('refuses a viewer with 403 before it reads the body', async () => {
    expectError(await viewer.post(path, { command: ['id'] }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post(path, { nonsense: true }), 403, 'FORBIDDEN_ROLE');
  });

  it('answers 404 for a deployment of another service or none', async () => {
    const other = (await createService(operator, envId, { name: 'exec-other' })).id;
    const wrong = path.replace(/\/api\/services\/[^/]+\//, `/api/services/${other}/`);
    expectError(await operator.post(wrong, { command: ['id'] }), 404, 'NOT_FOUND');
    expectError(await operator.post(path.replace(/deployments\/[^/]+\//, 'deployments/00000000-0000-4000-8000-000000000000/'), { command: ['id'] }), 404, 'NOT_FOUND');
  });

  it('refuses bodies that are not an argument vector, naming the field', async () => {
    for (const body of [{}, { command: [] }, { command: 'cat /etc/hostname' }, { command: [1] }, { command: [''] },
      { command: ['echo', 'a\u0000b'] }, { command: Array(257).fill('x') }, { command: ['x'.repeat(8193)] }]) {
      const r = await operator.post(path, body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.body.field, JSON.stringify(body).slice(0, 80)).to.match(/^command(\.\d+)?$/);
    }
    expectError(await operator.post(path, { command: ['id'], timeoutSec: 0 }), 400, 'VALIDATION_ERROR', 'timeoutSec');
    expectError(await operator.post(path, { command: ['id'], tty: true }), 400, 'VALIDATION_ERROR', 'tty');
    expect(await execEntries()).to.have.length(0);
  });

  it('with operations.allowExec false refuses everyone, an admin too, naming the setting; only an admin turns it off', async () => {
    expectError(await operator.patch(`/api/environments/${envId}/settings/operations`, { allowExec: false }), 403, 'FORBIDDEN_ROLE');
    const off = await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: false });
    expect(off.status, off.text).to.equal(200);
    expect(off.body.allowExec).to.equal(false);
    try {
      for (const caller of [admin, operator]) {
        const r = await caller.post(path, { command: ['id'] });
        expectError(r, 403, 'FORBIDDEN_SCOPE');
        expect(r.body.message).to.include('operations.allowExec');
      }
      expect(await execEntries()).to.have.length(0);
    } finally {
      await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: true });
    }
  });

  it('defaults allowExec to true and, with a server it cannot reach, answers 409 with the reason and audits no session', async () => {
    expect((await admin.get(`/api/environments/${envId}/settings/operations`)).body.allowExec).to.equal(true);
    // the environment has no SSH key: nothing can reach the server, so no container is entered
    const r = await operator.post(path, { command: ['id'] });
    expectError(r, 409, 'CONFLICT');
    expect(r.body.message).to.include('SSH key');
    expect(await execEntries()).to.have.length(0);
  });

  it('refuses WebSocket upgrades as it refuses requests: 401, viewer 403 (header or subprotocol), allowExec 403, bad cmd 400', async () => {
    expect(await refusedUpgrade('?cmd=sh', {})).to.deep.include({ status: 401 });
    expect((await refusedUpgrade('?cmd=sh', { protocol: 'bearer.not-a-token' })).status).to.equal(401);
    for (const auth of [{ header: `Bearer ${viewer.token}` }, { protocol: `bearer.${viewer.token}` }]) {
      const r = await refusedUpgrade('?cmd=sh', auth);
      expect(r.status).to.equal(403);
      expect(r.body.code).to.equal('FORBIDDEN_ROLE');
    }
    const bad = await refusedUpgrade(`?cmd=${encodeURIComponent('a\u0000b')}`, { protocol: `bearer.${operator.token}` });
    expect(bad.status).to.equal(400);
    expect(bad.body.field).to.match(/^cmd/);
    expect((await refusedUpgrade('?cmd=sh&cols=0&rows=10', { header: `Bearer ${operator.token}` })).body.field).to.equal('cols');
    await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: false });
    try {
      const off = await refusedUpgrade('?cmd=sh', { header: `Bearer ${admin.token}` });
      expect(off.status).to.equal(403);
      expect(off.body.message).to.include('operations.allowExec');
    } finally {
      await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: true });
    }
    // a plain GET (no upgrade) is told what the route answers
    const plain = await operator.get(`${path}/ws?cmd=sh`);
    expectError(plain, 400, 'VALIDATION_ERROR');
    expect(plain.body.message).to.include('WebSocket');
    expect(await execEntries()).to.have.length(0);
  });
});
