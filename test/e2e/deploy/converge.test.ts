// The desired spec is the whole container: env, ports and secrets reach it, a deploy that changes
// nothing restarts nothing, env values arrive byte for byte in both modes, and a container of
// another environment is never touched. Everything is checked on the server (docker inspect/exec).
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { createEnvironment } from '../../support/fixtures.js';
import { addService, cleanup, startWorld, type World } from './deploy-world.js';

const HEALTHY = { test: ['CMD-SHELL', 'true'], intervalSec: 1, timeoutSec: 20, retries: 5 };
const TRICKY = `"quoted" #hash 'single' back\\slash \\n $HOME $$ \${lower} a=b\nsecond line\ttab  `;

describe('converging containers to the desired spec (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let app: Awaited<ReturnType<typeof addService>>;
  let name: string;
  const inspect = async (server: string, container: string) => JSON.parse(await serverExec(server, ['docker', 'inspect', container]))[0];
  const envIn = (server: string, container: string, key: string) =>
    serverExec(server, ['docker', 'exec', container, 'sh', '-c', `printf '%s' "$${key}"`]);
  const deploy = async (serviceId: string, body: object = {}) => {
    const res = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, body);
    expect(res.body.status, JSON.stringify(res.body.steps?.map((x: { error: string; log: string }) => x.error ?? x.log))).to.equal('succeeded');
    return res.body;
  };

  before(async () => {
    w = await startWorld();
    expect((await w.admin.post(`/api/environments/${w.envId}/secrets`, { key: 'DB_PASS', value: 'first-password' })).status).to.equal(201);
    app = await addService(w, 'conv', { servers: ['s1'], healthCheck: HEALTHY, env: { GREETING: 'hello', DB_PASSWORD: '${DB_PASS}' } });
    name = app.deployments[0].containerName;
    await deploy(app.service.id);
  });
  after(() => cleanup(w));

  it('an env change and a port change reach the container', async () => {
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const res = await w.admin.patch(`/api/services/${app.service.id}`, { env: { GREETING: 'changed', DB_PASSWORD: '${DB_PASS}' }, ports: [`127.0.0.1:${port}:80`] });
    expect(res.status, res.text).to.equal(200);
    await deploy(app.service.id);
    const c = await inspect('s1', name);
    expect(c.Config.Env).to.include('GREETING=changed');
    expect(c.HostConfig.PortBindings['80/tcp']).to.deep.equal([{ HostIp: '127.0.0.1', HostPort: port }]);
    expect(c.Config.Labels['stevedore.spec-hash']).to.match(/^[0-9a-f]{64}$/);
    expect((await serverExec('s1', ['docker', 'port', name, '80/tcp'])).trim()).to.equal(`127.0.0.1:${port}`);
  });

  it('a same-tag re-deploy keeps the container id and says it already runs the desired spec', async () => {
    const before = (await inspect('s1', name)).Id;
    const plan = await deploy(app.service.id);
    expect(plan.steps[0].log).to.include('already running the desired spec');
    const after = await inspect('s1', name);
    expect(after.Id).to.equal(before);
    expect(after.State.Running).to.equal(true);
  });

  it('a rotated secret reaches the container on the next deploy', async () => {
    expect(await envIn('s1', name, 'DB_PASSWORD')).to.equal('first-password');
    const [secret] = await w.s.db('secrets').where({ environmentId: w.envId, key: 'DB_PASS' });
    expect((await w.admin.patch(`/api/secrets/${secret.id}`, { value: 'rotated-password' })).status).to.equal(200);
    const plan = await deploy(app.service.id);
    expect(JSON.stringify(plan)).to.not.include('rotated-password');
    expect(await envIn('s1', name, 'DB_PASSWORD')).to.equal('rotated-password');
  });

  for (const mode of ['direct', 'compose'] as const) {
    it(`env values with quotes, #, $, backslashes and newlines arrive unchanged (${mode})`, async () => {
      await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: mode === 'compose' });
      const svc = await addService(w, `tricky${mode}`, { servers: ['s2'], healthCheck: HEALTHY, env: { TRICKY } });
      await deploy(svc.service.id);
      const container = svc.deployments[0].containerName;
      expect(await envIn('s2', container, 'TRICKY')).to.equal(TRICKY);
      expect((await inspect('s2', container)).Config.Labels['com.docker.compose.project'] === undefined).to.equal(mode === 'direct');
      if (mode === 'compose') {
        const envFile = `/opt/stevedore/deployments/${container}/docker-compose.stevedore-env.yml`;
        expect((await serverExec('s2', ['stat', '-c', '%a', envFile])).trim()).to.equal('600');
      }
    });
  }

  it('refuses a container of another environment with CONFLICT naming it, and leaves it untouched', async () => {
    const other = await createEnvironment(w.admin, `other-${w.tag}`);
    const taken = `taken-${w.tag}-s3`;
    const owner = ['stevedore.managed=true', `stevedore.environment-id=${other.id}`, 'stevedore.deployment-id=00000000-0000-0000-0000-000000000000']
      .flatMap((l) => ['--label', l]);
    await serverExec('s3', ['docker', 'run', '-d', '--name', taken, ...owner, '--env', 'THEIR_SECRET=keep-me', '-p', '127.0.0.1:18999:80', w.fleet.images.webV1]);
    const before = await inspect('s3', taken);
    const mine = await addService(w, 'mine', { servers: [], healthCheck: HEALTHY, env: { MINE: 'yes' } });
    const d = await w.s.deployments.create(mine.service.id, w.envId, { serverId: w.servers.s3, containerName: taken });
    for (const autoManageCompose of [false, true]) {
      await w.s.settings.patch(w.envId, 'operations', { autoManageCompose });
      const res = await w.admin.post(`/api/services/${mine.service.id}/deploy?wait=true`, {});
      expect(res.body.status).to.not.equal('succeeded');
      const step = res.body.steps.find((x: { deploymentId: string }) => x.deploymentId === d.id);
      expect(step.error).to.equal(`CONFLICT: container ${taken} on server s3 belongs to environment "other-${w.tag}"; it is never changed`);
    }
    const after = await inspect('s3', taken);
    expect(after.Id).to.equal(before.Id);
    expect(after.State.Running).to.equal(true);
    expect(after.Config.Env).to.include('THEIR_SECRET=keep-me');
    expect(after.Config.Env).to.not.include('MINE=yes');
    expect(after.Config.Labels['stevedore.environment-id']).to.equal(other.id);
    await serverExec('s3', ['docker', 'rm', '-f', taken]);
  });

  it('refuses a foreign container left under the aside name too', async () => {
    const svc = await addService(w, 'aside', { servers: ['s3'], healthCheck: HEALTHY });
    const aside = `${svc.deployments[0].containerName}-stevedore-old`;
    await w.s.settings.patch(w.envId, 'operations', { autoManageCompose: false });
    await serverExec('s3', ['docker', 'run', '-d', '--name', aside, w.fleet.images.webV1]);
    const before = await inspect('s3', aside);
    const res = await w.admin.post(`/api/services/${svc.service.id}/deploy?wait=true`, {});
    expect(res.body.steps[0].error).to.equal(`CONFLICT: container ${aside} on server s3 was not created by Stevedore; it is never changed`);
    expect((await inspect('s3', aside)).Id).to.equal(before.Id);
    await serverExec('s3', ['docker', 'rm', '-f', aside]);
  });
});
