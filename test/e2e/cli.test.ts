// The stevedore CLI (node bin/stevedore.js as a child process) against the real service and
// the fleet: deploy --wait follows a plan to its end, a failing deploy exits 1 with the
// step's reason, wait returns once the deploy is healthy, and logs -f prints what the
// container writes. What runs is read on the server itself (docker inspect over ssh).
import { expect } from 'chai';
import { serverExec } from '../fleet/fleet.js';
import { CliHome } from '../support/cli-run.js';
import { until } from '../support/until.js';
import { addService, cleanup, startWorld, type World } from './deploy/deploy-world.js';

describe('stevedore CLI on the fleet (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let home: CliHome;
  let env: Record<string, string>;
  let envName: string;

  before(async () => {
    w = await startWorld();
    envName = (await w.admin.get(`/api/environments/${w.envId}`)).body.name;
    env = { STEVEDORE_URL: w.svc.url, STEVEDORE_TOKEN: w.admin.token! };
    home = new CliHome();
  });
  after(async () => {
    home?.remove();
    await cleanup(w);
  });

  const health = async (container: string) =>
    (await serverExec('s1', ['sh', '-c', `docker inspect --format '{{.Config.Image}} {{.State.Health.Status}}' ${container} 2>/dev/null || true`])).trim();

  it('deploy --wait follows the plan step by step and exits 0 once it succeeded', async () => {
    const { deployments } = await addService(w, 'cli-ok', { servers: ['s1'] });
    const r = await home.run(['deploy', 'cli-ok', '-e', envName, '--wait'], { env });
    expect(r.code, r.stdout + r.stderr).to.equal(0);
    const container = deployments[0]!.containerName;
    expect(r.stdout).to.match(new RegExp(`${container} on s1: deploy v1 running\\n(.*\\n)*${container} on s1: deploy v1 succeeded`));
    expect(r.stdout).to.match(/Plan \S+ succeeded\.\n$/);
    expect(await health(container)).to.equal(`${w.fleet.images.webV1} healthy`);
  });

  it('a deploy of a tag that does not exist exits 1 with the step\'s reason', async () => {
    await addService(w, 'cli-bad', { servers: ['s1'] });
    const r = await home.run(['deploy', 'cli-bad', '-e', envName, '--tag', 'v77-nope', '--wait'], { env });
    expect(r.code, r.stdout + r.stderr).to.equal(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).to.have.length(1);
    expect(lines[0]).to.match(/^stevedore: plan \S+ (failed|rolled_back) at cli-bad-\S+ on s1: .*v77-nope/);
    expect(r.stdout).to.match(/on s1: deploy v77-nope failed: /);
  });

  it('wait --for=condition=Ready returns once the deploy is healthy', async () => {
    const { deployments } = await addService(w, 'cli-wait', { servers: ['s1'] });
    const started = await home.run(['deploy', 'cli-wait', '-e', envName], { env });
    expect(started.code, started.stderr).to.equal(0);
    expect(started.stdout).to.match(/^Started plan \S+/);
    const r = await home.run(['wait', 'cli-wait', '-e', envName, '--for=condition=Ready', '--timeout', '3m'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('service/cli-wait condition met: Ready=True\n');
    expect(await health(deployments[0]!.containerName)).to.equal(`${w.fleet.images.webV1} healthy`);
  });

  it('logs -f prints a line the container writes after it started', async () => {
    const { deployments } = await addService(w, 'cli-logs', { servers: ['s1'] });
    expect((await home.run(['deploy', 'cli-logs', '-e', envName, '--wait'], { env })).code).to.equal(0);
    const container = deployments[0]!.containerName;
    const marker = `cli-logs-marker-${Date.now()}`;
    let seen = '';
    // --tail 0: only what is written from now on; the line goes to the container's own stdout
    const follower = home.run(['logs', 'cli-logs', '-e', envName, '-f', '--tail', '0'], { env, onStdout: (s) => { seen += s; } });
    try {
      await until('the marker line in logs -f', async () => {
        await serverExec('s1', ['docker', 'exec', container, 'sh', '-c', `echo ${marker} > /proc/1/fd/1`]);
        return seen.includes(`${marker}\n`);
      }, { timeoutMs: 60_000, everyMs: 500 });
    } finally {
      follower.kill();
      await follower;
    }
    const history = await home.run(['logs', 'cli-logs', '-e', envName, '--server', 's1', '--tail', '1000'], { env });
    expect(history.code, history.stderr).to.equal(0);
    expect(history.stdout).to.include(`${marker}\n`);
  });

  it('rollback runs the revision before again, and revert a chosen one', async () => {
    const { deployments } = await addService(w, 'cli-rev', { servers: ['s1'] });
    const container = deployments[0]!.containerName;
    expect((await home.run(['deploy', 'cli-rev', '-e', envName, '--wait'], { env })).code).to.equal(0);
    expect((await home.run(['deploy', 'cli-rev', '-e', envName, '--tag', 'v2', '--wait'], { env })).code).to.equal(0);
    expect(await health(container)).to.equal(`${w.fleet.images.webV2} healthy`);
    const back = await home.run(['rollback', 'cli-rev', '-e', envName, '--wait'], { env });
    expect(back.code, back.stdout + back.stderr).to.equal(0);
    expect(back.stdout).to.match(/^Reverting to revision 1\./);
    expect(await health(container)).to.equal(`${w.fleet.images.webV1} healthy`);
    const again = await home.run(['revert', 'cli-rev', '2', '-e', envName, '--wait'], { env });
    expect(again.code, again.stdout + again.stderr).to.equal(0);
    expect(await health(container)).to.equal(`${w.fleet.images.webV2} healthy`);
    const revisions = await home.run(['revisions', 'cli-rev', '-e', envName], { env });
    expect(revisions.stdout).to.match(/^REVISION\s+TAG\s+OUTCOME/).and.match(/\n2\s+v2\s+succeeded/);
  });
});
