// The project's Dockerfile, built on the fleet (test/fleet/stevedore-image.sh: a base made of this
// machine's Node, no registry outside) and run on s1 against a PostgreSQL container: it starts as
// a non-root user, its own health check passes, and it deploys a container to another server.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { HttpClient } from '../support/http-client.js';
import { PASSWORD } from '../support/fixtures.js';
import { until } from '../support/until.js';
import { fleetImage, healthy, WAIT } from './databases/database-world.js';

const run = promisify(execFile);

describe('the container image on the fleet (e2e)', function () {
  this.timeout(600_000);
  const tag = randomBytes(3).toString('hex');
  const net = `img-${tag}`;
  const pg = `img-pg-${tag}`;
  const app = `img-stevedore-${tag}`;
  const deployed = `img-web-${tag}`;
  let fleet: Fleet;
  let image: string;
  let api: HttpClient;

  before(async () => {
    fleet = loadFleet();
    const [built, pgImage] = await Promise.all([
      run('bash', ['test/fleet/stevedore-image.sh'], { env: process.env, maxBuffer: 1 << 20 }).then((r) => r.stdout.trim().split('\n').at(-1)!),
      fleetImage('FLEET_PG_IMAGE', 'pg-image.sh'),
    ]);
    image = built;
    await serverExec('s1', ['docker', 'network', 'create', net]);
    await serverExec('s1', ['docker', 'run', '-d', '--name', pg, '--network', net, '-e', 'POSTGRES_PASSWORD=pg-secret', pgImage]);
    await healthy(pg);
    // no SECRETS_KEY or JWT_SECRET: the image keeps the ones it generates in its state volume
    await serverExec('s1', ['docker', 'run', '-d', '--name', app, '--network', net, '-p', '18080:8080',
      '-e', `DATABASE_URL=postgres://postgres:pg-secret@${pg}:5432/postgres`, image]);
    api = new HttpClient(`http://${fleet.servers[0].host}:18080`);
  });
  after(async () => {
    await serverExec('s1', ['sh', '-c', `docker rm -f ${app} ${pg}; docker network rm ${net}`]).catch(() => undefined);
    await serverExec('s2', ['docker', 'rm', '-f', deployed]).catch(() => undefined);
  });

  it('runs as a non-root user, passes its own health check and answers /health', async () => {
    expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{.Config.User}}', app])).trim()).to.equal('10001:10001');
    expect((await serverExec('s1', ['docker', 'exec', app, 'id', '-u'])).trim()).to.equal('10001');
    await healthy(app);
    const health = await api.get('/health');
    expect(health.status, health.text).to.equal(200);
    expect(health.body).to.include({ status: 'ok', database: 'ok' });
    // the bundle was built into the image: the service did not have to write it at start
    const log = await serverExec('s1', ['docker', 'logs', app]);
    expect(log).to.not.match(/"level":"?(error|fatal)/);
  });

  it('deploys a container to another server of the fleet', async () => {
    expect((await api.post('/api/auth/register', { email: 'admin@example.test', password: PASSWORD, name: 'Admin' })).status).to.equal(201);
    const admin = api.withToken((await api.post('/api/auth/login', { email: 'admin@example.test', password: PASSWORD })).body.token);
    const env = (await admin.post('/api/environments', { name: 'from-image' })).body;
    expect((await admin.put(`/api/environments/${env.id}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]) })).status).to.equal(200);
    const s2 = fleet.servers[1];
    const server = await admin.post(`/api/environments/${env.id}/servers`, { name: 's2', hostname: s2.host, sshPort: s2.port, sshUser: s2.user });
    expect(server.status, server.text).to.equal(201);
    const img = await admin.post(`/api/environments/${env.id}/container-images`, { imageName: fleet.images.webV1.replace(/:v1$/, '') });
    expect(img.status, img.text).to.equal(201);
    const svc = await admin.post(`/api/environments/${env.id}/services`, { name: 'web', containerImageId: img.body.id, imageTag: 'v1' });
    expect(svc.status, svc.text).to.equal(201);
    const dep = await admin.post(`/api/services/${svc.body.id}/deployments`, { serverId: server.body.id, containerName: deployed });
    expect(dep.status, dep.text).to.equal(201);
    const plan = await admin.post(`/api/services/${svc.body.id}/deploy?wait=true`, {}).catch(async (e: Error) => {
      // the service's own log tells what the deploy was waiting on
      throw new Error(`${e.message}; the service's log ends: ${(await serverExec('s1', ['docker', 'logs', '--tail', '40', app]).catch(() => '')).slice(-6000)}`);
    });
    expect(plan.body.status, JSON.stringify(plan.body.steps)).to.equal('succeeded');
    // on the server itself
    await until(`${deployed} running on s2`, async () =>
      (await serverExec('s2', ['docker', 'inspect', '--format', '{{.Config.Image}} {{.State.Status}}', deployed]).catch(() => '')).trim() === `${fleet.images.webV1} running`, WAIT);
  });

  it('stops on SIGTERM within its stop timeout, exiting 0', async () => {
    await serverExec('s1', ['docker', 'stop', '--time', '60', app]);
    expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{.State.ExitCode}}', app])).trim()).to.equal('0');
  });
});
