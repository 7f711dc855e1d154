import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { expectError, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

// The machine side (install, remove, a real agent posting) runs against the fleet in
// test/e2e/monitoring-agent.test.ts; here: tokens, ingest validation, toggles, roles, refusals.
describe('monitoring agent routes without a server: token, ingest, config, roles', () => {
  let w: RoleWorld;
  let agentHttp: HttpClient;
  const since = new Date(Date.now() - 60_000);

  before(async () => {
    w = await startWithRoles({ SCHEDULER_METRICS_SEC: '7' });
    agentHttp = w.svc.http;
  });
  after(() => w.svc.stop());

  /** A server in agent mode with a fresh token (regenerated: no agent installed, nothing reached over SSH). */
  async function agentServer() {
    const server = await insertServer(w.svc, w.envId);
    await w.svc.services.db('servers').where({ id: server.id }).update({ metricsMode: 'agent' });
    const res = await w.operator.post(`/api/servers/${server.id}/agent/token`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.token).to.match(/^agt_[0-9A-Za-z]{43}$/);
    expect(res.body.deliveredToAgent).to.equal(false);
    return { ...server, token: res.body.token as string };
  }
  const ingest = (token: string | null, body: unknown) => agentHttp.request('POST', '/api/agent/ingest', body, { token });

  it("reports the agent script's own version as /health's agentVersion", async () => {
    const script = readFileSync(new URL('../../controller/monitoring/agent/stevedore-agent.sh', import.meta.url), 'utf8');
    const version = /^AGENT_VERSION=(.+)$/m.exec(script)![1];
    const res = await w.svc.http.get('/health');
    expect(res.body.agentVersion).to.equal(version);
  });

  it('refuses ingest and config without an agent token, with a wrong one, and with a user token (401 envelope)', async () => {
    const a = await agentServer();
    expectError(await ingest(null, { cpuPercent: 1 }), 401, 'UNAUTHORIZED');
    // one character changed, whatever the token ends with (it ended in x about once in 62 runs)
    expectError(await ingest(`${a.token.slice(0, -1)}${a.token.endsWith('x') ? 'y' : 'x'}`, { cpuPercent: 1 }), 401, 'UNAUTHORIZED');
    expectError(await ingest('agt_short', { cpuPercent: 1 }), 401, 'UNAUTHORIZED');
    expectError(await w.admin.post('/api/agent/ingest', { cpuPercent: 1 }), 401, 'UNAUTHORIZED');
    expectError(await w.admin.get('/api/agent/config'), 401, 'UNAUTHORIZED');
    const noToken = await agentHttp.request('GET', '/api/agent/config', undefined, { token: null });
    expectError(noToken, 401, 'UNAUTHORIZED');
    expect(noToken.body.requestId).to.be.a('string');
    // a wrong token is refused before the body is looked at
    expectError(await ingest('agt_wrong', { serverId: 'x' }), 401, 'UNAUTHORIZED');
  });

  it('answers the configuration by the environment toggles, and stores only enabled readings under the token\'s server', async () => {
    const a = await agentServer();
    const b = await agentServer();
    const patch = await w.admin.patch(`/api/environments/${w.envId}/settings/monitoring`, { collectSwap: false, collectProcesses: false });
    expect(patch.status, patch.text).to.equal(200);
    const config = await agentHttp.request('GET', '/api/agent/config', undefined, { token: a.token, headers: { 'X-Agent-Version': '1.0.0' } });
    expect(config.status, config.text).to.equal(200);
    expect(config.body).to.include({ serverId: a.id, metricsMode: 'agent', intervalSec: 7 });
    expect(config.body.collect).to.include.members(['cpu', 'memory', 'disk', 'load', 'fds', 'tcp', 'containers']);
    expect(config.body.collect).to.not.include.members(['swap', 'processes']);

    const res = await ingest(a.token, {
      cpuPercent: 12.5, memoryUsedBytes: 1000, memoryTotalBytes: 4000, swapUsedBytes: 5, swapTotalBytes: 10, processes: 99,
      load1: 0.5, containers: [{ name: 'web-1', cpuPercent: 150, memoryUsedBytes: 10, memoryLimitBytes: 100 }],
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ serverId: a.id, stored: 1, intervalSec: 7 });
    const [stored] = await w.svc.services.serverSamples.latest([a.id], since);
    expect(stored).to.include({ serverId: a.id, source: 'agent', cpuPercent: 12.5, memoryUsedBytes: 1000, load1: 0.5 });
    expect(stored!.swapUsedBytes).to.equal(undefined);
    expect(stored!.processes).to.equal(undefined);
    expect(stored!.containers).to.deep.equal([{ name: 'web-1', cpuPercent: 150, memoryUsedBytes: 10, memoryLimitBytes: 100 }]);
    expect(await w.svc.services.serverSamples.latest([b.id], since)).to.deep.equal([]);
    await w.admin.patch(`/api/environments/${w.envId}/settings/monitoring`, { collectSwap: true, collectProcesses: true });
  });

  it('refuses a body that names a server or carries impossible readings (400 naming the field)', async () => {
    const a = await agentServer();
    const b = await agentServer();
    expectError(await ingest(a.token, { serverId: b.id, cpuPercent: 1 }), 400, 'VALIDATION_ERROR', 'serverId');
    expectError(await ingest(a.token, { cpuPercent: 101 }), 400, 'VALIDATION_ERROR', 'cpuPercent');
    expectError(await ingest(a.token, { memoryUsedBytes: -1 }), 400, 'VALIDATION_ERROR', 'memoryUsedBytes');
    expectError(await ingest(a.token, { containers: [{ name: '$(x)', cpuPercent: 1, memoryUsedBytes: 1, memoryLimitBytes: 1 }] }), 400, 'VALIDATION_ERROR');
    expect(await w.svc.services.serverSamples.latest([a.id, b.id], since)).to.deep.equal([]);
  });

  it('refuses samples while the metrics mode is not agent (409), and a regenerated token retires the old one', async () => {
    const a = await agentServer();
    await w.svc.services.db('servers').where({ id: a.id }).update({ metricsMode: 'ssh' });
    expectError(await ingest(a.token, { cpuPercent: 1 }), 409, 'CONFLICT');
    await w.svc.services.db('servers').where({ id: a.id }).update({ metricsMode: 'agent' });
    const again = await w.operator.post(`/api/servers/${a.id}/agent/token`);
    expectError(await ingest(a.token, { cpuPercent: 1 }), 401, 'UNAUTHORIZED');
    expect((await ingest(again.body.token, { cpuPercent: 1 })).status).to.equal(200);
  });

  it('lists agent events of the environment, newest first, and never shows a token in events, audit or logs', async () => {
    const a = await agentServer();
    expect((await ingest(a.token, { cpuPercent: 3 })).status).to.equal(200);
    expect((await ingest(a.token, { cpuPercent: 4 })).status).to.equal(200);
    const page = await w.viewer.get(`/api/environments/${w.envId}/agent-events?limit=200`);
    expect(page.status, page.text).to.equal(200);
    const mine = page.body.items.filter((e: { data: { serverId: string } }) => e.data.serverId === a.id);
    // one "connected" for the first sample only: no event per sample
    expect(mine.map((e: { type: string }) => e.type)).to.deep.equal(['agent.connected', 'agent.token_regenerated']);
    const audit = await w.admin.get(`/api/audit-logs?limit=200`);
    const everything = JSON.stringify(page.body) + audit.text + w.svc.logs.join('');
    expect(everything).to.not.include(a.token);
    expect(everything).to.not.include(a.token.slice(10));
  });

  it('needs operator to install, remove or regenerate, refuses a socket-mode server, and reports an unreachable one as unobserved', async () => {
    const a = await agentServer();
    expectError(await w.viewer.post(`/api/servers/${a.id}/agent`, {}), 403, 'FORBIDDEN_ROLE');
    expectError(await w.viewer.delete(`/api/servers/${a.id}/agent`), 403, 'FORBIDDEN_ROLE');
    expectError(await w.viewer.post(`/api/servers/${a.id}/agent/token`), 403, 'FORBIDDEN_ROLE');
    expectError(await w.viewer.post(`/api/servers/${a.id}/metrics-mode`, { mode: 'ssh' }), 403, 'FORBIDDEN_ROLE');
    expectError(await w.operator.post(`/api/servers/${a.id}/agent`, { controllerUrl: 'ftp://x' }), 400, 'VALIDATION_ERROR', 'controllerUrl');
    expectError(await w.operator.post(`/api/servers/${a.id}/metrics-mode`, { mode: 'push' }), 400, 'VALIDATION_ERROR', 'mode');

    // the environment has no SSH key: the server cannot be asked, and the status says so
    const status = await w.viewer.get(`/api/servers/${a.id}/agent`);
    expect(status.status, status.text).to.equal(200);
    expect(status.body).to.include({ reachable: false, installed: null, running: null, hasToken: true, metricsMode: 'agent' });
    expect(status.body.message).to.match(/could not be asked/);

    // an install that cannot reach the server records nothing: no token, mode unchanged
    const fresh = await insertServer(w.svc, w.envId);
    expectError(await w.operator.post(`/api/servers/${fresh.id}/agent`, { controllerUrl: 'http://10.0.0.1:8080' }), 409, 'CONFLICT');
    expect((await w.viewer.get(`/api/servers/${fresh.id}/agent`)).body).to.include({ hasToken: false, metricsMode: 'disabled' });

    const host = await w.admin.post(`/api/environments/${w.envId}/servers/register-host`, { name: 'controller-host' });
    expect(host.status, host.text).to.equal(201);
    expectError(await w.operator.post(`/api/servers/${host.body.id}/agent`, {}), 409, 'CONFLICT');
    expectError(await w.operator.post(`/api/servers/${host.body.id}/metrics-mode`, { mode: 'agent' }), 409, 'CONFLICT');
  });

  it('switches between ssh and disabled without touching the server, and the same mode is a no-op', async () => {
    const server = await insertServer(w.svc, w.envId);
    const toSsh = await w.operator.post(`/api/servers/${server.id}/metrics-mode`, { mode: 'ssh' });
    expect(toSsh.status, toSsh.text).to.equal(200);
    expect(toSsh.body).to.deep.include({ id: server.id, metricsMode: 'ssh', agent: null });
    const same = await w.operator.post(`/api/servers/${server.id}/metrics-mode`, { mode: 'ssh' });
    expect(same.body).to.deep.include({ metricsMode: 'ssh', agent: null, generation: toSsh.body.generation });
    expect((await w.viewer.get(`/api/servers/${server.id}`)).body.metricsMode).to.equal('ssh');
  });
});
