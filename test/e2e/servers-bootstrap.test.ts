// Server operations on the machine itself against the real fleet: host-gateway detection,
// bootstrap (detect the distribution, install and start Docker) and swap (dry run only: swap is
// the kernel's, shared by every fleet server and the host, so a real swapon would touch the host).
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { until } from '../support/until.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverCtl, serverExec, type Fleet } from '../fleet/fleet.js';

describe('server host gateway, bootstrap and swap against the fleet (e2e)', function () {
  this.timeout(90_000);
  let svc: TestService;
  let fleet: Fleet;
  let operator: HttpClient;
  let viewer: HttpClient;
  const ids: Record<string, string> = {};

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '86400' });
    const admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    viewer = (await userWithRole(admin, 'viewer')).client;
    const envId = (await createEnvironment(admin)).id;
    expect((await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) })).status).to.equal(200);
    for (const f of fleet.servers) {
      const res = await admin.post(`/api/environments/${envId}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user });
      expect(res.status, res.text).to.equal(201);
      ids[f.name] = res.body.id;
    }
  });
  after(async () => {
    await serverCtl('s3', 'start-docker').catch(() => undefined);
    await svc?.stop();
  });

  it('detects the address containers reach the host by: the gateway of the server\'s own docker0', async () => {
    const res = await operator.post(`/api/servers/${ids.s1}/host-gateway`);
    expect(res.status, res.text).to.equal(200);
    // what the server itself says, outside Stevedore: docker0's address in s1's network namespace
    const addr = await serverExec('s1', ['ip', '-4', '-o', 'addr', 'show', 'docker0']);
    const onServer = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(addr)?.[1];
    expect(onServer, addr).to.be.a('string');
    expect(res.body).to.include({ gateway: onServer, network: 'bridge', hostGatewaySupported: true, extraHost: 'host.docker.internal:host-gateway' });
    expect((await viewer.post(`/api/servers/${ids.s1}/host-gateway`)).status).to.equal(403);
  });

  it('bootstraps a server whose Docker is installed but stopped: detects Debian, starts Docker the distribution\'s way, verifies it', async () => {
    // What this proves: over SSH, the run reads the distribution from /etc/os-release, finds no
    // daemon, finds dockerd installed (so no package is installed: a network namespace has no
    // package mirror, and installing into the host's /usr is not a test's to do), starts Docker
    // through the init system's start path (no systemd here: `service docker start`, Debian's
    // /etc/init.d/docker with /etc/default/docker) and waits until a daemon answers.
    // s3 is made a Debian machine whose Docker is configured but stopped: its private /etc gets
    // the daemon flags the fleet starts it with (data root, sockets, pid file) in
    // /etc/default/docker, and an fstab cgroup line (as a booted system has) so the init script
    // leaves the host's cgroup mounts alone. This machine's sandbox refuses the init script's
    // `ulimit -n 1048576` (a real host allows root that); /etc/default/docker is shell the script
    // sources, so there a function lets a refused limit pass and the rest of the start path runs.
    const dir = `${fleet.root}/s3`;
    const args = readFileSync(`${dir}/dockerd.args`, 'utf8').trim().split('\n');
    const quoted = args.map((a) => a.replace(/[^A-Za-z0-9_/.:=+@,-]/g, '')).join(' ');
    await serverExec('s3', ['sh', '-c', `printf '%s\\n' 'DOCKER_OPTS="${quoted}"' 'DOCKER_LOGFILE=${dir}/dockerd.log'`
      + ` 'ulimit() { command ulimit "$@" 2>/dev/null || :; }' > /etc/default/docker`
      + ` && grep -q cgroup /etc/fstab || echo 'cgroup /sys/fs/cgroup tmpfs defaults 0 0' >> /etc/fstab`]);
    await serverCtl('s3', 'stop-docker');
    const down = await serverExec('s3', ['sh', '-c', 'docker version --format "{{.Server.Version}}" >/dev/null 2>&1 && echo up || echo down']);
    expect(down.trim()).to.equal('down');

    const started = await operator.post(`/api/servers/${ids.s3}/bootstrap`);
    expect(started.status, started.text).to.equal(202);
    expect(started.body.status).to.equal('running');
    let run: any;
    await until('the bootstrap to finish', async () => {
      run = (await viewer.get(`/api/servers/${ids.s3}/bootstrap`)).body;
      return run.status !== 'running';
    }, { timeoutMs: 75_000 });
    expect(run.status, JSON.stringify(run.steps, null, 1)).to.equal('succeeded');
    const step = (name: string) => run.steps.find((x: { name: string }) => x.name === name);
    expect(run.distribution).to.include({ id: 'debian', packageManager: 'apt' });
    expect(step('check-docker')).to.include({ status: 'succeeded', message: 'no Docker daemon answers' });
    expect(step('install-docker')).to.include({ status: 'skipped', message: 'dockerd is installed' });
    expect(step('start-docker')).to.include({ status: 'succeeded', message: 'started through sysv' });
    expect(step('start-docker').commands).to.deep.include(['service', 'docker', 'start']);
    expect(step('verify-docker').status).to.equal('succeeded');
    // on the server itself: s3's own daemon answers again, with s3's data root
    const info = await serverExec('s3', ['docker', 'info', '--format', '{{.Name}} {{.DockerRootDir}}']);
    expect(info.trim()).to.equal(`s3 ${dir}/data`);
    expect((await serverExec('s3', ['cat', '/run/docker-ssd.pid'])).trim()).to.match(/^\d+$/);

    // a second bootstrap finds Docker running and changes nothing
    expect((await operator.post(`/api/servers/${ids.s3}/bootstrap`)).status).to.equal(202);
    await until('the second bootstrap', async () => (run = (await viewer.get(`/api/servers/${ids.s3}/bootstrap`)).body).status !== 'running', { timeoutMs: 30_000 });
    expect(run.status).to.equal('succeeded');
    expect(step('install-docker')).to.include({ status: 'skipped', message: 'Docker is already running' });
    expect(step('start-docker').status).to.equal('skipped');
  });

  it('a swap dry run answers the commands and the server\'s swap as swapon reports it, changing nothing', async () => {
    const res = await operator.post(`/api/servers/${ids.s1}/swap`, { sizeMb: 64, path: '/opt/stevedore.swap', dryRun: true });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.dryRun).to.equal(true);
    expect(res.body.commands).to.deep.include(['swapon', '/opt/stevedore.swap']);
    const onServer = await serverExec('s1', ['sh', '-c', 'swapon --show --noheadings --raw --output NAME || true']);
    expect(res.body.swap.map((a: { name: string }) => a.name)).to.deep.equal(onServer.split('\n').filter(Boolean));
    const exists = await serverExec('s1', ['sh', '-c', 'test -e /opt/stevedore.swap && echo yes || echo no']);
    expect(exists.trim()).to.equal('no');
    expect((await viewer.post(`/api/servers/${ids.s1}/swap`, { sizeMb: 64, dryRun: true })).status).to.equal(403);
    expect((await operator.post(`/api/servers/${ids.s1}/swap`, { sizeMb: 1 })).status).to.equal(400);
  });
});
