import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { apiToken, createEnvironment, startWithRoles } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import type { TestService } from '../support/test-service.js';

/** A self-signed certificate valid for `days`, made by the host's openssl. */
function selfSigned(days: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), '-subj', '/CN=expiring.test',
    '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
  const out = { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) };
  fs.rmSync(dir, { recursive: true });
  return out;
}

const listen = async (server: net.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

describe('health checks API', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let serverId: string;
  const servers: net.Server[] = [];

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    // socket mode: the controller's own machine, so checks connect from here (no Docker socket: the server check fails)
    const res = await admin.post(`/api/environments/${envId}/servers/register-host`, { dockerSocketPath: '/nonexistent/docker.sock' });
    expect(res.status, res.text).to.equal(201);
    serverId = res.body.id;
  });
  after(async () => {
    servers.forEach((x) => x.close());
    await svc.stop();
  });

  it('runs the checks of an environment now, logs each result and keeps the alert state of each check', async () => {
    expect((await viewer.post(`/api/environments/${envId}/health-checks/run`, {})).body.code).to.equal('FORBIDDEN_ROLE');
    const run = await operator.post(`/api/environments/${envId}/health-checks/run`, { timeoutMs: 2000 });
    expect(run.status, run.text).to.equal(200);
    expect(run.body).to.include({ servers: 1, failed: 1 });
    expect(run.body.items[0]).to.include({ kind: 'server', serverId, status: 'failed', checkKey: `server:${serverId}` });
    expect(run.body.items[0].error).to.match(/nonexistent\/docker\.sock|ENOENT/);
    await operator.post(`/api/environments/${envId}/health-checks/run`, { timeoutMs: 2000 });

    const logs = await viewer.get(`/api/environments/${envId}/health-logs?kind=server&status=failed`);
    expect(logs.status).to.equal(200);
    expect(logs.body).to.include({ total: 2, limit: 25, offset: 0 });
    expect(logs.body.items[0]).to.include({ environmentId: envId, kind: 'server', serverId, deploymentId: null, status: 'failed' });
    expect(logs.body.items[0].latencyMs).to.be.a('number');
    expect((await viewer.get(`/api/environments/${envId}/health-logs?kind=cert`)).body.total).to.equal(0);
    expect((await viewer.get(`/api/environments/${envId}/health-logs?kind=nope`)).body).to.include({ code: 'VALIDATION_ERROR', field: 'kind' });

    // two failures reach health.failed's bounce threshold (2): down, and exactly one alert
    const checks = await viewer.get(`/api/environments/${envId}/health-checks`);
    expect(checks.body.total).to.equal(1);
    expect(checks.body.items[0]).to.include({ checkKey: `server:${serverId}`, status: 'down', failures: 2, reminders: 0, lastResult: 'failed' });
    expect((await viewer.get(`/api/environments/${envId}/health-checks?status=up`)).body.total).to.equal(0);
    const alerts = (await svc.services.events.since(0, envId)).filter((e) => e.type === 'health.failed');
    expect(alerts.map((e) => e.data.alert)).to.deep.equal(['down']);

    // the server's conditions say what the checks saw
    const server = await svc.services.servers.findById(serverId);
    const byType = Object.fromEntries(server!.conditions.map((c) => [c.type, `${c.status}/${c.reason}`]));
    expect(byType).to.deep.equal({ Ready: 'False/ServerUnreachable', Degraded: 'True/ChecksFailing' });
  });

  it('answers the SSH status without touching the server and refuses an SSH test of a socket-mode server', async () => {
    const status = await viewer.get(`/api/servers/${serverId}/ssh-status`);
    expect(status.status, status.text).to.equal(200);
    expect(status.body).to.include({ serverId, dockerMode: 'socket', connectionOpen: false, connects: 0 });
    expect(status.body.health.status).to.equal('unhealthy');
    expect(status.body.check).to.include({ kind: 'server', status: 'down' });
    const test = await operator.post(`/api/servers/${serverId}/ssh-test`, {});
    expect(test.status).to.equal(409);
    expect((await viewer.post(`/api/servers/${serverId}/ssh-test`, {})).body.code).to.equal('FORBIDDEN_ROLE');
  });

  it('tests a TCP connection and reads the certificate of a TLS port, failing one that expires in 5 days', async () => {
    const plain = net.createServer((c) => c.end());
    servers.push(plain);
    const plainPort = await listen(plain);
    const tlsServer = tls.createServer(selfSigned(5), (c) => c.end());
    servers.push(tlsServer);
    const tlsPort = await listen(tlsServer);

    const ok = await operator.post(`/api/servers/${serverId}/connection-test`, { port: plainPort, tls: true });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body).to.include({ host: '127.0.0.1', port: plainPort, cert: null });
    expect(ok.body.tcp).to.include({ status: 'ok', error: null });

    const cert = await operator.post(`/api/servers/${serverId}/connection-test`, { port: tlsPort, tls: true });
    expect(cert.body.tcp.status).to.equal('ok');
    expect(cert.body.cert).to.include({ status: 'failed' });
    expect(cert.body.cert.details).to.include({ subject: 'expiring.test', selfSigned: true });
    expect(cert.body.cert.details.daysToExpiry).to.be.within(4, 5);
    expect(cert.body.cert.error).to.match(/^certificate expires in [45] days/);

    plain.close();
    const closed = await operator.post(`/api/servers/${serverId}/connection-test`, { port: plainPort });
    expect(closed.body.tcp).to.include({ status: 'failed' });
    expect(closed.body.tcp.error).to.match(/ECONNREFUSED/);
    expect((await operator.post(`/api/servers/${serverId}/connection-test`, { port: 70000 })).body).to.include({ field: 'port' });
    expect((await operator.post(`/api/servers/${serverId}/connection-test`, { port: 80, host: '$(reboot)' })).body).to.include({ field: 'host' });
  });

  it('checks the reachability of a database with monitoring on, with the run route and as a health log', async () => {
    const listener = net.createServer((c) => c.end());
    servers.push(listener);
    const port = await listen(listener);
    const created = await operator.post(`/api/environments/${envId}/databases`, {
      name: 'orders', type: 'postgres', databaseName: 'app', host: '127.0.0.1', port, monitoringEnabled: true,
    });
    expect(created.status, created.text).to.equal(201);
    const key = `database:${created.body.id}`;
    const up = await operator.post(`/api/environments/${envId}/health-checks/run`, { timeoutMs: 2000 });
    expect(up.body.items.find((i: { kind: string }) => i.kind === 'database')).to.include({ checkKey: key, status: 'ok', error: null });
    listener.close();
    const down = await operator.post(`/api/environments/${envId}/health-checks/run`, { timeoutMs: 2000 });
    const failed = down.body.items.find((i: { kind: string }) => i.kind === 'database');
    expect(failed).to.include({ checkKey: key, status: 'failed', target: `database orders (127.0.0.1:${port})` });
    expect(failed.error).to.include('ECONNREFUSED');
    const logs = (await viewer.get(`/api/environments/${envId}/health-logs?checkKey=${encodeURIComponent(key)}`)).body;
    expect(logs.items.map((l: { status: string }) => l.status)).to.deep.equal(['failed', 'ok']);
  });

  it('keeps other environments out (scope) and answers 404 for unknown ones', async () => {
    const adminId = (await admin.get('/api/auth/me')).body.id;
    const other = await createEnvironment(admin);
    const limited = await apiToken(admin, adminId, { environmentIds: [other.id] });
    expect((await limited.get(`/api/environments/${envId}/health-logs`)).body.code).to.equal('FORBIDDEN_SCOPE');
    expect((await limited.get(`/api/environments/${envId}/health-checks`)).body.code).to.equal('FORBIDDEN_SCOPE');
    expect((await limited.get(`/api/servers/${serverId}/ssh-status`)).body.code).to.equal('FORBIDDEN_SCOPE');
    expect((await limited.post(`/api/servers/${serverId}/connection-test`, { port: 1 })).body.code).to.equal('FORBIDDEN_SCOPE');
    expect((await limited.get(`/api/environments/${other.id}/health-logs`)).body.total).to.equal(0);
    expect((await viewer.get('/api/environments/00000000-0000-4000-8000-000000000000/health-logs')).status).to.equal(404);
  });
});
