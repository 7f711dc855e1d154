import { expect } from 'chai';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { createKnex } from '../../controller/store/knex.js';
import { listMigrations, migrateUpTo } from '../../controller/store/migrator.js';
import { SecretBox } from '../../controller/crypto/secret-box.js';
import { hashPassword } from '../../controller/crypto/password.js';
import { createEmptyDatabase } from '../support/test-database.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { login, PASSWORD } from '../support/fixtures.js';

const run = promisify(execFile);

/**
 * The first schema the product ran whole on (users, environments, servers, services and their
 * deployments, secrets, plans, outgoing webhooks): upgrades are tested from it (docs/upgrading.md).
 */
const FIRST_RELEASE = '20261201E-create-webhook-replays';

describe('upgrades: a database at the first release schema, with data, migrates to the newest', function () {
  this.timeout(120_000);
  const secretsKey = crypto.randomBytes(32);
  const box = new SecretBox(secretsKey);
  let url: string;
  let svc: TestService | undefined;
  const ids: Record<string, string> = {};
  /** The bin, as an operator runs it, on this database. */
  const stevedore = (args: string[]) => run(process.execPath, ['bin/stevedore.js', ...args], {
    env: { ...process.env, DATABASE_URL: url, SECRETS_KEY: secretsKey.toString('base64'), NODE_OPTIONS: '' }, maxBuffer: 1 << 20,
  }).then((r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));

  before(async () => {
    url = await createEmptyDatabase();
    const db = createKnex(url, 2);
    try {
      await migrateUpTo(db, FIRST_RELEASE);
      // what a user of that release had stored, written in that release's columns
      const [user] = await db('users').insert({ email: 'old-admin@example.test', name: 'Old', role: 'admin', passwordHash: await hashPassword(PASSWORD, 10) }).returning('*');
      const [env] = await db('environments').insert({ name: 'production' }).returning('*');
      const [server] = await db('servers').insert({ environmentId: env.id, name: 'web-1', hostname: '10.0.0.1', sshUser: 'deploy', dockerMode: 'ssh' }).returning('*');
      const [image] = await db('containerImages').insert({ environmentId: env.id, imageName: 'acme/web' }).returning('*');
      const [service] = await db('services').insert({ environmentId: env.id, name: 'web', containerImageId: image.id, imageTag: '1.4.2', env: JSON.stringify({ MODE: 'prod' }) }).returning('*');
      const [deployment] = await db('deployments').insert({ serviceId: service.id, environmentId: env.id, serverId: server.id, containerName: 'web-1', imageTag: '1.4.2' }).returning('*');
      await db('secrets').insert({ environmentId: env.id, key: 'DB_PASSWORD', valueSealed: box.seal('s3cret-from-the-old-days') });
      // header values in clear, as that release kept them: a later migration seals them
      const [hook] = await db('outgoingWebhooks').insert({ name: 'ops', url: 'https://hooks.example.test/x', headers: JSON.stringify({ 'X-Team-Token': 'plain-header-value' }) }).returning('*');
      Object.assign(ids, { user: user.id, env: env.id, service: service.id, deployment: deployment.id, hook: hook.id });
    } finally {
      await db.destroy();
    }
  });
  after(() => svc?.stop());

  it('stevedore migrate --dry-run lists every later migration and changes nothing', async () => {
    const later = listMigrations().map((f) => f.replace(/\.ts$/, '')).filter((n) => n > FIRST_RELEASE);
    const db = createKnex(url, 1);
    const before = await db('schema_migrations').count({ n: '*' });
    await db.destroy();
    const dry = await stevedore(['migrate', '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout.trim().split('\n')).to.deep.equal([...later, `would apply ${later.length} migration(s)`]);
    const db2 = createKnex(url, 1);
    expect(await db2('schema_migrations').count({ n: '*' })).to.deep.equal(before);
    await db2.destroy();
  });

  it('stevedore migrate applies them; the service then serves the old data, secrets still open and headers sealed', async () => {
    const done = await stevedore(['migrate']);
    expect(done.code, done.stderr).to.equal(0);
    expect(done.stdout).to.match(/^applied \d+ migration\(s\)$/m);
    expect((await stevedore(['migrate', '--dry-run'])).stdout.trim()).to.equal('the database is up to date');

    const db = createKnex(url, 1);
    const headers = (await db('outgoingWebhooks').where({ id: ids.hook }).first()).headers;
    await db.destroy();
    expect(JSON.stringify(headers)).to.not.include('plain-header-value');

    svc = await startTestService({ DATABASE_URL: url, SECRETS_KEY: secretsKey.toString('base64') });
    const admin = await login(svc.http, 'old-admin@example.test');
    const service = (await admin.get(`/api/services/${ids.service}`)).body;
    expect(service).to.include({ name: 'web', imageTag: '1.4.2', environmentId: ids.env });
    expect(service.env).to.deep.equal({ MODE: 'prod' });
    const deployments = (await admin.get(`/api/services/${ids.service}/deployments`)).body;
    expect((deployments.items ?? deployments).map((d: any) => d.containerName)).to.deep.equal(['web-1']);
    const secret = (await admin.get(`/api/environments/${ids.env}/secrets`)).body.items.find((s: any) => s.key === 'DB_PASSWORD');
    const revealed = await admin.post(`/api/secrets/${secret.id}/reveal`);
    expect(revealed.status, revealed.text).to.equal(200);
    expect(revealed.body.value).to.equal('s3cret-from-the-old-days');
    const hook = (await admin.get(`/api/admin/webhooks/${ids.hook}`)).body;
    expect(hook.headers ?? hook.headerNames).to.satisfy((h: unknown) => JSON.stringify(h).includes('X-Team-Token') && !JSON.stringify(h).includes('plain-header-value'));
  });

  it('stevedore migrate without DATABASE_URL says what to set and exits 1', async () => {
    const res = await run(process.execPath, ['bin/stevedore.js', 'migrate', '--dry-run'], { env: { ...process.env, DATABASE_URL: '', NODE_OPTIONS: '' } })
      .then(() => ({ code: 0, stderr: '' }), (e) => ({ code: e.code as number, stderr: e.stderr as string }));
    expect(res.code).to.equal(1);
    expect(res.stderr.trim()).to.match(/^stevedore: set DATABASE_URL/);
  });
});
