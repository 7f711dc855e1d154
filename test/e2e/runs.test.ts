// One-off runs on the fleet: `stevedore run web -- …` starts a container from the service's
// current revision (its env and secrets) with another command, prints its output, exits with its
// code, and leaves no container behind; the run is never the service's container, so its
// deployment, status and drift stay as they were. What is expected is read on the server itself.
import { expect } from 'chai';
import { serverExec } from '../fleet/fleet.js';
import { CliHome } from '../support/cli-run.js';
import { userWithRole } from '../support/fixtures.js';
import { until } from '../support/until.js';
import type { HttpClient } from '../support/http-client.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy/deploy-world.js';

describe('one-off runs on the fleet (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let home: CliHome;
  let operator: HttpClient;
  let env: Record<string, string>;
  let envName: string;
  let serviceId: string;
  let deploymentId: string;
  let container: string;
  let containerId: string;
  const secret = `run-secret-${Math.random().toString(36).slice(2, 10)}`;

  before(async () => {
    w = await startWorld();
    envName = (await w.admin.get(`/api/environments/${w.envId}`)).body.name;
    const op = await userWithRole(w.admin, 'operator');
    operator = op.client;
    env = { STEVEDORE_URL: w.svc.url, STEVEDORE_TOKEN: operator.token! };
    home = new CliHome();
    const made = await w.admin.post(`/api/environments/${w.envId}/secrets`, { key: 'RUN_TOKEN', value: secret });
    expect(made.status, made.text).to.equal(201);
    const { service, deployments } = await addService(w, 'web', { servers: ['s1'], env: { GREETING: 'hello', TOKEN: '${RUN_TOKEN}' } });
    serviceId = service.id;
    deploymentId = deployments[0]!.id;
    container = deployments[0]!.containerName;
    const plan = await w.admin.post(`/api/services/${serviceId}/deploy`, {});
    expect(plan.status, plan.text).to.equal(202);
    expect((await waitPlan(w, plan.body.id)).status).to.equal('succeeded');
    containerId = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}}', container])).trim();
  });
  after(async () => {
    home?.remove();
    if (w) await serverExec('s1', ['sh', '-c', 'docker ps -aq --filter label=stevedore.run | xargs -r docker rm -f']).catch(() => undefined);
    await cleanup(w);
  });

  /** Run containers on a server, by the run label (running or not). */
  const runContainers = async (server = 's1') => (await serverExec(server, ['docker', 'ps', '-aq', '--filter', 'label=stevedore.run'])).trim();
  const runsOf = () => w.s.db('serviceRuns').where({ serviceId }).orderBy('startedAt', 'desc');

  it('stevedore run sees the service\'s env and secret, prints its output and exits with its code; no container is left', async () => {
    const r = await home.run(['run', 'web', '-e', envName, '--', 'sh', '-c', 'echo "$GREETING"; echo "$TOKEN"; exit 4'], { env });
    expect(r.code, r.stderr).to.equal(4);
    expect(r.stdout).to.equal(`hello\n${secret}\n`);
    const [run] = await runsOf();
    expect(run).to.include({ status: 'failed', exitCode: 4, serverId: w.servers.s1, deploymentId, logTail: `hello\n${secret}\n` });
    expect(run.containerName).to.match(new RegExp(`^${container}-run-[0-9a-f]{8}$`));
    expect(await runContainers()).to.equal('');
    // audited when it started and when it ended: who, the server, the command, the exit code; never the output
    const entries = (await w.admin.get(`/api/audit-logs?resourceId=${serviceId}`)).body.items
      .filter((e: { action: string }) => e.action === 'runService' || e.action === 'finishServiceRun');
    expect(entries.map((e: { action: string }) => e.action).sort()).to.deep.equal(['finishServiceRun', 'runService']);
    for (const e of entries) {
      expect(e.actorName).to.match(/^operator-/);
      expect(e.details).to.include({ runId: run.id, serverId: w.servers.s1 });
      expect(e.details.command).to.deep.equal(['sh', '-c', 'echo "$GREETING"; echo "$TOKEN"; exit 4']);
      expect(JSON.stringify(e)).to.not.include(secret);
    }
    expect(entries.find((e: { action: string }) => e.action === 'finishServiceRun').details).to.include({ exitCode: 4, status: 'failed' });
    const ok = await home.run(['run', 'web', '-e', envName, '-s', 's1', '--', 'cat', '/etc/hostname'], { env });
    expect(ok.code, ok.stderr).to.equal(0);
    expect((await runsOf())[0]).to.include({ status: 'succeeded', exitCode: 0 });
  });

  it('while a run runs it is not the service\'s container: the deployment, its status and drift are unaffected', async () => {
    const started = await operator.post(`/api/services/${serviceId}/run`, { command: ['sh', '-c', 'sleep 4; echo done'] });
    expect(started.status, started.text).to.equal(202);
    const { runId } = started.body;
    const runContainer = await until('the run container on s1', runContainers, { timeoutMs: 30_000, everyMs: 300 });
    const labels = JSON.parse(await serverExec('s1', ['docker', 'inspect', '--format', '{{json .Config.Labels}}', runContainer]));
    expect(labels['stevedore.run']).to.equal(runId);
    expect(labels).to.not.have.property('stevedore.deployment-id');
    const drift = await w.admin.get(`/api/servers/${w.servers.s1}/drift`);
    expect(drift.status, drift.text).to.equal(200);
    const item = drift.body.items.find((i: { deploymentId: string }) => i.deploymentId === deploymentId);
    expect(item).to.include({ drifted: false, action: 'none' });
    expect(drift.body.items.map((i: { containerName: string }) => i.containerName)).to.deep.equal([container]);
    const ended = await until('the run to end', async () => {
      const r = await operator.get(`/api/runs/${runId}`);
      return r.body.status !== 'running' ? r.body : null;
    }, { timeoutMs: 60_000, everyMs: 300 });
    expect(ended).to.include({ status: 'succeeded', exitCode: 0, logTail: 'done\n' });
    expect(Date.parse(ended.finishedAt)).to.be.at.least(Date.parse(ended.startedAt));
    expect(await runContainers()).to.equal('');
    // the deployment's own container was never touched: the same one, running
    expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}} {{.State.Running}}', container])).trim()).to.equal(`${containerId} true`);
    const dep = (await w.admin.get(`/api/services/${serviceId}/deployments`)).body.items.find((d: { id: string }) => d.id === deploymentId);
    expect(dep.status).to.equal('running');
  });

  it('a command that cannot start fails the run with the reason, and leaves no container', async () => {
    const r = await home.run(['run', 'web', '-e', envName, '--', 'no-such-program-here'], { env });
    expect(r.code).to.not.equal(0);
    const [run] = await runsOf();
    expect(run.status).to.equal('failed');
    expect(run.exitCode === null ? run.reason : String(run.exitCode), JSON.stringify(run)).to.match(/could not run|no-such-program|12[67]/);
    expect(await runContainers()).to.equal('');
  });
});
