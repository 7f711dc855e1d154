// The monitoring agent on a real fleet server: installed over SSH, it fetches its configuration
// and posts samples to the controller across the fleet network; a wrong token is refused; a
// regenerated token is handed to it; removal leaves no file and no process behind.
// The fleet has no systemd (its /run is private), so this exercises the supervised loop.
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { until } from '../support/until.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { AGENT_VERSION } from '../../controller/version.js';

describe('monitoring agent on a fleet server (e2e)', function () {
  this.timeout(90_000);
  let svc: TestService;
  let fleet: Fleet;
  let operator: HttpClient;
  let viewer: HttpClient;
  let serverId: string;
  /** Where the fleet's servers reach the controller: the host's address on the fleet bridge. */
  let controllerUrl: string;

  before(async () => {
    fleet = loadFleet();
    const hostAddress = fleet.registry.address.split(':')[0]!;
    svc = await startTestService({ HOST: hostAddress, SCHEDULER_METRICS_SEC: '1', SCHEDULER_HEALTH_CHECK_SEC: '86400' });
    controllerUrl = svc.url;
    const admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
    const envId = (await createEnvironment(admin)).id;
    expect((await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) })).status).to.equal(200);
    const s1 = fleet.servers[0]!;
    const res = await admin.post(`/api/environments/${envId}/servers`, { name: s1.name, hostname: s1.host, sshPort: s1.port, sshUser: s1.user });
    expect(res.status, res.text).to.equal(201);
    serverId = res.body.id;
  });
  after(async () => {
    // never leave an agent running on the fleet, whatever failed
    await serverExec('s1', ['sh', '-c', 'if [ -f /opt/stevedore-agent/stevedore-agent ]; then sh /opt/stevedore-agent/stevedore-agent stop; fi; rm -rf /opt/stevedore-agent'])
      .catch(() => undefined);
    await svc?.stop();
  });

  const agentSamples = async (since: Date) => (await svc.services.serverSamples.latest([serverId], since)).filter((x) => x.source === 'agent');
  const onServer = (script: string) => serverExec('s1', ['sh', '-c', script]);

  it('installs, posts plausible samples, refuses a wrong token, is handed a new token, and is removed without a trace', async () => {
    const since = new Date();
    const install = await operator.post(`/api/servers/${serverId}/agent`, { controllerUrl, waitSec: 30 });
    expect(install.status, install.text).to.equal(200);
    expect(install.body).to.include({
      reachable: true, installed: true, installedVersion: AGENT_VERSION, upToDate: true, supervisor: 'loop', running: true,
      reachedController: true, metricsMode: 'agent', hasToken: true,
    });
    const pid = install.body.pid as number;
    // observed on the server itself, not through the controller (one call: each costs a second or two)
    const env = '/opt/stevedore-agent/agent.env';
    const seen = (await onServer(`cat /opt/stevedore-agent/agent.pid; stat -c %a ${env}; kill -0 ${pid} && echo alive; sed -n 's/^STEVEDORE_AGENT_TOKEN=//p' ${env}`))
      .trim().split('\n');
    expect(seen.slice(0, 3)).to.deep.equal([String(pid), '600', 'alive']);
    const firstToken = seen[3]!;
    expect(firstToken).to.match(/^agt_/);

    let sample: Awaited<ReturnType<typeof agentSamples>>[number] | undefined;
    await until('a sample from the agent', async () => { [sample] = await agentSamples(since); return !!sample; }, { timeoutMs: 30_000 });
    expect(sample!.cpuPercent).to.be.within(0, 100);
    expect(sample!.memoryUsedBytes).to.be.above(0).and.below(sample!.memoryTotalBytes!);
    expect(sample!.diskUsedBytes).to.be.above(0).and.below(sample!.diskTotalBytes!);
    expect(sample!.processes).to.be.above(0);
    expect(sample!.containers).to.be.an('array');
    // and through the metrics read path
    const read = await viewer.get(`/api/servers/${serverId}/metrics`);
    expect(read.status, read.text).to.equal(200);
    expect(read.body).to.deep.include({ metricsMode: 'agent', stale: false });
    expect(read.body.sample.source).to.equal('agent');

    // from the server, across the fleet network, as the agent would call: a wrong token is 401
    const wrong = await onServer(`curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer agt_not-the-token' `
      + `-H 'Content-Type: application/json' --data '{}' ${controllerUrl}/api/agent/ingest`);
    expect(wrong.trim()).to.equal('401');

    const status = await viewer.get(`/api/servers/${serverId}/agent`);
    expect(status.body).to.include({ running: true, installed: true, reportedVersion: AGENT_VERSION });
    expect(status.body.lastIngestAt).to.be.a('string');

    // a new token goes to the running agent's agent.env (read before every post: no restart); the old one is refused
    const regenerated = await operator.post(`/api/servers/${serverId}/agent/token`);
    expect(regenerated.body.deliveredToAgent, regenerated.text).to.equal(true);
    expect((await svc.http.request('GET', '/api/agent/config', undefined, { token: firstToken })).status).to.equal(401);
    expect((await onServer(`sed -n 's/^STEVEDORE_AGENT_TOKEN=//p' ${env}`)).trim()).to.equal(regenerated.body.token);

    const removed = await operator.delete(`/api/servers/${serverId}/agent`);
    expect(removed.status, removed.text).to.equal(200);
    expect(removed.body).to.include({ reachable: true, installed: false, running: false, hasToken: false, metricsMode: 'disabled' });
    // nothing left on the server: no directory, no process of the agent's session (the supervisor leads it)
    expect((await onServer(`test -e /opt/stevedore-agent && echo present || echo gone; ps -o pid= -g ${pid} || true`)).trim()).to.equal('gone');
    // removal revokes the token
    expect((await svc.http.request('POST', '/api/agent/ingest', { cpuPercent: 1 }, { token: regenerated.body.token })).status).to.equal(401);

    const envId = (await viewer.get(`/api/servers/${serverId}`)).body.environmentId;
    const events = await viewer.get(`/api/environments/${envId}/agent-events`);
    expect(events.body.items.map((e: { type: string }) => e.type)).to.include.members(['agent.installed', 'agent.connected', 'agent.token_regenerated', 'agent.removed']);
  });

  it('installs through a metrics-mode change to agent and removes it when the mode changes away', async () => {
    const toAgent = await operator.post(`/api/servers/${serverId}/metrics-mode`, { mode: 'agent', controllerUrl, waitSec: 30 });
    expect(toAgent.status, toAgent.text).to.equal(200);
    expect(toAgent.body.metricsMode).to.equal('agent');
    expect(toAgent.body.agent).to.include({ installed: true, running: true, reachedController: true });
    const toSsh = await operator.post(`/api/servers/${serverId}/metrics-mode`, { mode: 'ssh' });
    expect(toSsh.status, toSsh.text).to.equal(200);
    expect(toSsh.body.metricsMode).to.equal('ssh');
    expect(toSsh.body.agent).to.include({ installed: false, running: false });
    expect((await onServer(`test -e /opt/stevedore-agent && echo present || echo gone; ps -o pid= -g ${toAgent.body.agent.pid} || true`)).trim())
      .to.equal('gone');
  });
});
