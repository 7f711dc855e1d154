// Exec on the fleet: `stevedore exec web -- …` runs in the deployment's container over the pooled
// SSH connection and Docker's exec API, prints what the command printed and exits with its code;
// each session is an audit entry without the output; a container of the same name that is not
// the deployment's own is never entered. What is expected is read on the server itself.
import { expect } from 'chai';
import WebSocket from 'ws';
import { serverExec } from '../fleet/fleet.js';
import { CliHome } from '../support/cli-run.js';
import { apiToken, userWithRole } from '../support/fixtures.js';
import { until } from '../support/until.js';
import type { HttpClient } from '../support/http-client.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy/deploy-world.js';

describe('exec on the fleet (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let home: CliHome;
  let operator: HttpClient;
  let operatorId: string;
  let env: Record<string, string>;
  let envName: string;
  let container: string;
  let serviceId: string;
  let deploymentId: string;

  before(async () => {
    w = await startWorld();
    envName = (await w.admin.get(`/api/environments/${w.envId}`)).body.name;
    const op = await userWithRole(w.admin, 'operator');
    operator = op.client;
    operatorId = op.user.id;
    env = { STEVEDORE_URL: w.svc.url, STEVEDORE_TOKEN: operator.token! };
    home = new CliHome();
    const { service, deployments } = await addService(w, 'web', { servers: ['s1'] });
    serviceId = service.id;
    deploymentId = deployments[0]!.id;
    container = deployments[0]!.containerName;
    const plan = await w.admin.post(`/api/services/${serviceId}/deploy`, {});
    expect(plan.status, plan.text).to.equal(202);
    expect((await waitPlan(w, plan.body.id)).status).to.equal('succeeded');
  });
  after(async () => {
    home?.remove();
    if (w) await serverExec('s1', ['sh', '-c', `docker rm -f stranger-${w.tag} >/dev/null 2>&1 || true`]).catch(() => undefined);
    await cleanup(w);
  });

  const execEntries = async () => (await w.admin.get(`/api/audit-logs?action=execServiceDeployment&resourceId=${deploymentId}`)).body.items;

  it('stevedore exec web -- cat /etc/hostname prints the container\'s hostname and exits 0', async () => {
    const hostname = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Config.Hostname}}', container])).trim();
    expect(hostname).to.match(/^[0-9a-f]{12}$/);
    const r = await home.run(['exec', 'web', '-e', envName, '--', 'cat', '/etc/hostname'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`${hostname}\n`);
  });

  it('a failing command gives its exit code, with what it wrote to stderr', async () => {
    const r = await home.run(['exec', 'web', '-e', envName, '-s', 's1', '--', 'sh', '-c', 'echo oops >&2; exit 3'], { env });
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stdout).to.equal('oops\n');
    // a program the container lacks: Docker's own code for an exec it could not start
    const missing = await home.run(['exec', 'web', '-e', envName, '--', 'no-such-program'], { env });
    expect(missing.code, missing.stdout + missing.stderr).to.equal(126);
  });

  it('audits each session with who, which container, the command, its end and exit code, never the output', async () => {
    const marker = `secret-output-${w.tag}`;
    const r = await operator.post(`/api/services/${serviceId}/deployments/${deploymentId}/exec`, { command: ['sh', '-c', `echo ${marker}; exit 5`] });
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.deep.equal({ exitCode: 5, output: `${marker}\n`, truncated: false, timedOut: false });
    const entries = await execEntries();
    const entry = entries.find((e: { details: { exitCode: number } }) => e.details.exitCode === 5);
    expect(entry, JSON.stringify(entries)).to.not.equal(undefined);
    const containerId = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}}', container])).trim();
    expect(entry).to.include({ actorType: 'user', resourceType: 'deployments', resourceId: deploymentId, environmentId: w.envId });
    expect(entry.actorName).to.match(/^operator-/);
    expect(entry.details).to.include({ containerName: container, containerId, interactive: false, exitCode: 5, timedOut: false });
    expect(entry.details.command).to.deep.equal(['sh', '-c', `echo ${marker}; exit 5`]);
    expect(Date.parse(entry.details.endedAt)).to.be.at.least(Date.parse(entry.details.startedAt));
    // the command names the marker; the output is only in the answer, so it appears once
    expect(JSON.stringify(entry).split(marker).length - 1).to.equal(1);
    expect(entries.length).to.be.at.least(4);
  });

  it('bounds the output and answers a command that outlives its timeout with timedOut', async () => {
    const big = await operator.post(`/api/services/${serviceId}/deployments/${deploymentId}/exec`, { command: ['sh', '-c', 'head -c 3000000 /dev/zero | tr "\\0" a'] });
    expect(big.status, big.text).to.equal(200);
    expect(big.body).to.include({ exitCode: 0, truncated: true, timedOut: false });
    expect(big.body.output.length).to.equal(1024 * 1024);
    const slow = await operator.post(`/api/services/${serviceId}/deployments/${deploymentId}/exec`, { command: ['sh', '-c', 'echo started; sleep 30'], timeoutSec: 2 });
    expect(slow.status, slow.text).to.equal(200);
    expect(slow.body).to.deep.equal({ exitCode: null, output: 'started\n', truncated: false, timedOut: true });
  });

  /** A session as a browser opens it: the token as the bearer.<token> subprotocol, no header. */
  function openSession(token: string, cmd: string[] = ['sh']) {
    const url = new URL(`/api/services/${serviceId}/deployments/${deploymentId}/exec/ws`, w.svc.url);
    url.protocol = 'ws:';
    for (const a of cmd) url.searchParams.append('cmd', a);
    url.searchParams.set('cols', '100');
    url.searchParams.set('rows', '30');
    const ws = new WebSocket(url, ['stevedore.exec', `bearer.${token}`]);
    const session = { ws, output: '', exit: null as null | { exitCode: number | null; reason: string }, closed: false, protocol: '' };
    ws.on('open', () => { session.protocol = ws.protocol; });
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (binary) session.output += data.toString('utf8');
      else session.exit = JSON.parse(data.toString('utf8'));
    });
    ws.on('close', () => { session.closed = true; });
    const opened = new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    return { session, opened, type: (s: string) => ws.send(Buffer.from(s), { binary: true }) };
  }

  it('a WebSocket session types a command, reads its output, resizes, and ends with the exit code', async () => {
    const { session, opened, type } = openSession(operator.token!);
    await opened;
    expect(session.protocol).to.equal('stevedore.exec');
    type('echo sum-$((6*7))\r');
    await until('the output of the typed command', async () => session.output.includes('sum-42'), { timeoutMs: 20_000 });
    session.ws.send(JSON.stringify({ type: 'resize', cols: 123, rows: 45 }));
    // the resize reaches Docker on its own call, beside the typed input: ask again until it applies
    await until('the new terminal size', async () => {
      if (session.output.includes('45 123')) return true;
      type('stty size\r');
      return false;
    }, { timeoutMs: 20_000, everyMs: 500 });
    type('exit 7\r');
    await until('the session to close', async () => session.closed, { timeoutMs: 20_000 });
    expect(session.exit).to.deep.equal({ type: 'exit', exitCode: 7, reason: 'exit' });
    const entry = await until('the session\'s audit entry', async () =>
      (await execEntries()).find((e: { details: { interactive: boolean; exitCode: number } }) => e.details.interactive && e.details.exitCode === 7));
    expect(entry.details).to.include({ containerName: container, endedBy: 'exit', exitCode: 7 });
    expect(entry.details.command).to.deep.equal(['sh']);
    expect(JSON.stringify(entry)).to.not.include('sum-');
  });

  it('stevedore exec -it bridges the local input and exits with the command\'s code', async () => {
    const r = await home.run(['exec', 'web', '-e', envName, '-s', 's1', '-it', '--', 'sh'], { env, input: 'echo piped-$((2+3))\nexit 4\n' });
    expect(r.code, r.stdout + r.stderr).to.equal(4);
    expect(r.stdout).to.include('piped-5');
  });

  it('a session ends when its token is revoked, when its user\'s role in the environment is lowered, and when exec is turned off', async () => {
    const tokenClient = await apiToken(w.admin, operatorId);
    const tokenId = (await w.admin.get('/api/admin/tokens')).body.items.find((t: { tokenPrefix: string }) => tokenClient.token!.startsWith(t.tokenPrefix)).id;
    const revoked = openSession(tokenClient.token!);
    await revoked.opened;
    expect((await w.admin.post(`/api/admin/tokens/${tokenId}/revoke`, {})).status).to.be.oneOf([200, 204]);
    await until('the revoked session to close', async () => revoked.session.closed, { timeoutMs: 15_000 });
    expect(revoked.session.exit).to.deep.include({ type: 'exit', reason: 'revoked' });

    const lowered = openSession(operator.token!);
    await lowered.opened;
    const member = await w.admin.put(`/api/environments/${w.envId}/members/${operatorId}`, { role: 'viewer' });
    expect(member.status, member.text).to.be.oneOf([200, 201]);
    try {
      await until('the lowered session to close', async () => lowered.session.closed, { timeoutMs: 15_000 });
      expect(lowered.session.exit).to.deep.include({ type: 'exit', reason: 'role-lowered' });
    } finally {
      await w.admin.delete(`/api/environments/${w.envId}/members/${operatorId}`);
    }
    const disabled = openSession(operator.token!);
    await disabled.opened;
    expect((await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: false })).status).to.equal(200);
    try {
      await until('the session to close once exec is turned off', async () => disabled.session.closed, { timeoutMs: 15_000 });
      expect(disabled.session.exit).to.deep.include({ type: 'exit', reason: 'exec-disabled' });
    } finally {
      await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: true });
    }
    const ends = (await execEntries()).filter((e: { details: { endedBy?: string } }) => e.details.endedBy && e.details.endedBy !== 'exit');
    expect(ends.map((e: { details: { endedBy: string } }) => e.details.endedBy)).to.include.members(['revoked', 'role-lowered', 'exec-disabled']);
  });

  it('never enters a container of the same name that is not the deployment\'s (409 with the reason)', async () => {
    const name = `stranger-${w.tag}`;
    await serverExec('s1', ['docker', 'run', '-d', '--name', name, w.fleet.images.busybox, 'sleep', '600']);
    const dep = await operator.post(`/api/services/${serviceId}/deployments`, { serverId: w.servers.s2, containerName: `other-${w.tag}` });
    expect(dep.status, dep.text).to.equal(201);
    const stranger = (await operator.post(`/api/services/${serviceId}/deployments`, { serverId: w.servers.s1, containerName: name })).body;
    const r = await operator.post(`/api/services/${serviceId}/deployments/${stranger.id}/exec`, { command: ['id'] });
    expect(r.status, r.text).to.equal(409);
    expect(r.body.message).to.equal(`container ${name} was not created by Stevedore; Stevedore runs commands only in its own containers`);
    const none = await operator.post(`/api/services/${serviceId}/deployments/${dep.body.id}/exec`, { command: ['id'] });
    expect(none.status, none.text).to.equal(409);
    expect(none.body.message).to.equal(`container other-${w.tag} does not exist on its server`);
    // the service now runs on several servers: the CLI asks which
    const which = await home.run(['exec', 'web', '-e', envName, '--', 'id'], { env });
    expect(which.code).to.equal(64);
    expect(which.stderr).to.match(/runs on several servers \(.*s1.*\): choose one with -s SERVER/);
  });
});
