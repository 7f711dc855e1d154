// The stevedore CLI as a user runs it (node bin/stevedore.js, a child process off a terminal)
// against the real service on a real PostgreSQL. Its one server cannot be reached (127.0.0.1
// port 1), so deploys fail: enough for revisions, conditions and a failing `deploy --wait`
// (deploys that succeed are tested on the fleet: test/e2e/cli.test.ts).
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CliHome } from '../support/cli-run.js';
import { bootstrapAdmin, createEnvironment, PASSWORD } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { newSshKeyPair } from '../support/ssh-key.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { until } from '../support/until.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';

/** A port nothing listens on: one the kernel just gave out and that was closed again. */
const closedPort = () => new Promise<number>((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo;
    server.close(() => resolve(port));
  });
});

describe('stevedore CLI against a running service', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let home: CliHome;
  let envName: string;
  let auth: Record<string, string>;
  let watchedId: string;
  let listedId: string;

  before(async () => {
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    const s = svc.services;
    admin = await bootstrapAdmin(svc.http);
    const env = await createEnvironment(admin);
    envName = env.name;
    await s.db('environments').where({ id: env.id }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
    const serverId = (await s.servers.insert({ environmentId: env.id, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never)).id;
    const imageId = (await s.containerImages.insert({ environmentId: env.id, imageName: 'registry.test:5000/acme/web' } as never)).id;
    const service = await s.services.create(env.id, { name: 'web', containerImageId: imageId, imageTag: 'v1', env: {} });
    await s.deployments.create(service.id, env.id, { serverId, containerName: 'web-1' });
    const watched = await s.services.create(env.id, { name: 'watched', containerImageId: imageId, imageTag: 'v1', env: {} });
    watchedId = watched.id;
    await s.deployments.create(watched.id, env.id, { serverId, containerName: 'watched-1' });
    const listed = await s.services.create(env.id, { name: 'listed', containerImageId: imageId, imageTag: 'v1', env: {} });
    listedId = listed.id;
    await s.deployments.create(listed.id, env.id, { serverId, containerName: 'listed-1' });
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! };
  });
  beforeEach(() => { home = new CliHome(); });
  afterEach(() => home.remove());
  after(() => svc.stop());

  it('login with email and password on stdin stores a context in a 0600 file, and get uses it', async () => {
    const login = await home.run(['login', svc.url, '-e', envName], { input: `admin@example.test\n${PASSWORD}\n` });
    expect(login.code, login.stderr).to.equal(0);
    expect(login.stdout).to.include('Logged in').and.include('admin@example.test');
    expect(login.stdout + login.stderr).not.to.include(PASSWORD);
    expect(fs.statSync(home.configFile).mode & 0o777).to.equal(0o600);
    const config = YAML.parse(fs.readFileSync(home.configFile, 'utf8'));
    expect(config.currentContext).to.equal(new URL(svc.url).host);
    expect(config.contexts[0]).to.include({ url: svc.url, environment: envName });
    expect(config.contexts[0].token).to.be.a('string').and.not.be.empty;
    // no URL or token given: the context answers, and its default environment too
    const services = await home.run(['get', 'services']);
    expect(services.code, services.stderr).to.equal(0);
    expect(services.stdout).to.match(/^NAME\s+TAG\s+READY/);
    expect(services.stdout).to.match(/\nweb\s+v1/);
  });

  it('login --token stores the token; context list marks the current one and context use switches', async () => {
    expect((await home.run(['login', svc.url, '--token', admin.token!, '--name', 'one'])).code).to.equal(0);
    expect((await home.run(['login', svc.url, '--token', admin.token!, '--name', 'two'])).code).to.equal(0);
    const list = await home.run(['context', 'list']);
    expect(list.stdout).to.match(/\*\s+two\s/);
    expect(list.stdout).not.to.include(admin.token!);
    expect((await home.run(['context', 'use', 'one'])).code).to.equal(0);
    expect((await home.run(['context', 'list'])).stdout).to.match(/\*\s+one\s/);
    const missing = await home.run(['context', 'use', 'three']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr.trim().split('\n')).to.have.length(1);
  });

  it('get environments prints an aligned table with a header; -o json and -o yaml parse', async () => {
    const table = await home.run(['get', 'environments'], { env: auth });
    expect(table.code, table.stderr).to.equal(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).to.match(/^NAME\s+AGE$/);
    const row = rows.find((r) => r.startsWith(`${envName} `))!;
    expect(row, table.stdout).to.be.a('string');
    expect(row.indexOf(row.trim().split(/\s+/)[1])).to.equal(header.indexOf('AGE'));
    const json = JSON.parse((await home.run(['get', 'environments', '-o', 'json'], { env: auth })).stdout);
    expect(json.items.map((e: { name: string }) => e.name)).to.include(envName);
    const yaml = YAML.parse((await home.run(['get', 'environments', '-o', 'yaml'], { env: auth })).stdout);
    expect(yaml.items.map((e: { name: string }) => e.name)).to.include(envName);
  });

  it('deploy --wait exits 1 with the failed step\'s reason; describe service shows conditions and revisions', async function () {
    this.timeout(90_000);
    const deploy = await home.run(['deploy', 'web', '-e', envName, '--wait'], { env: auth });
    expect(deploy.code, deploy.stdout + deploy.stderr).to.equal(1);
    // the step fails and is then rolled back; a follower that polls may see only the second status,
    // which carries the same reason
    expect(deploy.stdout, deploy.stdout).to.match(/web-1 on nowhere: deploy v1 (failed|rolled_back): .*unreachable/);
    const last = deploy.stderr.trim().split('\n');
    expect(last).to.have.length(1);
    expect(last[0]).to.match(/^stevedore: plan \S+ (failed|rolled_back|rollback_failed) at web-1 on nowhere: .+/);
    const described = await home.run(['describe', 'service', 'web', '-e', envName], { env: auth });
    expect(described.code, described.stderr).to.equal(0);
    expect(described.stdout).to.match(/Conditions:\n\s+TYPE\s+STATUS\s+REASON/);
    expect(described.stdout).to.match(/\n\s+Ready\s+False/);
    expect(described.stdout).to.match(/Revisions:\n\s+REVISION\s+TAG\s+OUTCOME[^\n]*\n\s+1\s+v1\s+failed/);
    const revisions = await home.run(['revisions', 'web', '-e', envName, '-o', 'json'], { env: auth });
    expect(JSON.parse(revisions.stdout).items[0]).to.include({ revision: 1, outcome: 'failed' });
  });

  it("describe service prints its ingress and, per host and server, the certificate and whether it is routed", async () => {
    const patched = await admin.patch(`/api/services/${listedId}`, { ingress: { hosts: ['listed.stevedore.test'], port: 8080, tls: 'auto' } });
    expect(patched.status, patched.text).to.equal(200);
    const described = await home.run(['describe', 'service', 'listed', '-e', envName], { env: auth });
    expect(described.code, described.stderr).to.equal(0);
    expect(described.stdout).to.match(/Ingress:\s+listed\.stevedore\.test → :8080 \/ \(tls auto\)/);
    expect(described.stdout).to.match(/\n\s+HOST\s+CERTIFICATE\s+SERVER\s+ROUTED\s+MESSAGE\n\s+listed\.stevedore\.test\s+(pending|failed, [^\n]*?)\s+nowhere\s+no\s+the server could not be asked/);
    const json = JSON.parse((await home.run(['describe', 'service', 'listed', '-e', envName, '-o', 'json'], { env: auth })).stdout);
    // no CA answers this test service: nothing issued (pending, or failed once an order was refused)
    expect(json.ingressStatus.hosts[0].host).to.equal('listed.stevedore.test');
    expect(json.ingressStatus.hosts[0].certificate).to.include({ issuer: null, notAfter: null });
    expect(json.ingressStatus.hosts[0].certificate.state).to.be.oneOf(['pending', 'failed']);
  });

  it('get -w prints a service\'s row again when a deploy changes it', async () => {
    let seen = '';
    const watch = home.run(['get', 'services', 'watched', '-e', envName, '-w'], { env: auth, onStdout: (s) => { seen += s; } });
    try {
      await until('the first listing', async () => /^NAME\s+TAG\s+READY.*\nwatched\s/s.test(seen));
      const deploy = await admin.post(`/api/services/${watchedId}/deploy`, {});
      expect(deploy.status, deploy.text).to.equal(202);
      await until('a second row of the service', async () => (seen.match(/^watched\s/gm) ?? []).length >= 2, { timeoutMs: 30_000, everyMs: 100 });
    } finally {
      watch.kill();
      await watch;
    }
  });

  it('get deployments SERVICE and get plans list what the service and the environment hold; describe of a server is its read', async () => {
    const plan = await admin.post(`/api/services/${listedId}/deploy`, {});
    expect(plan.status, plan.text).to.equal(202);
    const deployments = await home.run(['get', 'deployments', 'listed', '-e', envName], { env: auth });
    expect(deployments.code, deployments.stderr).to.equal(0);
    expect(deployments.stdout).to.match(/^CONTAINER\s+STATUS\s+TAG\s+REVISION\s+DEPLOYED\n/).and.match(/\nlisted-1\s/);
    // a container a look found gone: its status, and what the default drift policy does about it
    await until('the plan to end', async () => !['pending', 'running', 'rolling_back'].includes((await admin.get(`/api/deployment-plans/${plan.body.id}`)).body.status));
    const [dep] = await svc.services.deployments.listByService(listedId);
    await svc.services.deployments.recordObserved(dep.id, { status: 'missing' });
    const missing = await home.run(['get', 'deployments', 'listed', '-e', envName], { env: auth });
    expect(missing.stdout).to.match(/\nlisted-1\s+missing \(not restored: driftPolicy warn\)\s/);
    const plans = await home.run(['get', 'plans', '-e', envName, '-o', 'wide'], { env: auth });
    expect(plans.stdout).to.match(/^ID\s+NAME\s+STATUS\s+TRIGGER\s+ERROR\s+AGE\n/).and.include(plan.body.id);
    const planGet = await home.run(['plan', 'get', plan.body.id], { env: auth });
    expect(planGet.stdout).to.match(new RegExp(`^Plan ${plan.body.id} `)).and.match(/\nPOSITION\s+CONTAINER\s+ACTION/).and.include('listed-1');
    const server = await home.run(['describe', 'server', 'nowhere', '-e', envName], { env: auth });
    expect(server.code, server.stderr).to.equal(0);
    expect(YAML.parse(server.stdout)).to.include({ name: 'nowhere', hostname: '127.0.0.1' });
  });

  it('export writes the environment as manifests (stdout or -f FILE); a server it cannot reach or does not know is one line and exit 1', async () => {
    const res = await home.run(['export', '-e', envName], { env: auth });
    expect(res.code, res.stderr).to.equal(0);
    const docs = YAML.parseAllDocuments(res.stdout).map((d) => d.toJS());
    const web = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'web');
    expect(web.metadata.environment).to.equal(envName);
    expect(web.spec).to.deep.include({ imageTag: 'v1', deployments: [{ server: 'nowhere', containerName: 'web-1', composePath: null }] });
    const file = path.join(home.dir, 'export.yaml');
    const written = await home.run(['export', '-e', envName, '-f', file], { env: auth });
    expect(written.code, written.stderr).to.equal(0);
    expect(written.stdout).to.equal('');
    expect(fs.readFileSync(file, 'utf8').replace(/^# .*exported .*\n/m, '')).to.equal(res.stdout.replace(/^# .*exported .*\n/m, ''));
    const unknown = await home.run(['export', '-e', envName, '--server', 'no-such'], { env: auth });
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal('stevedore: no server no-such in this environment\n');
    const unreachable = await home.run(['export', '-e', envName, '--server', 'nowhere'], { env: auth });
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stderr.trim().split('\n')).to.have.length(1);
    expect(unreachable.stderr).to.match(/^stevedore: GET \/api\/environments\/[0-9a-f-]+\/manifests\/export\?serverId=[0-9a-f-]+: /);
  });

  it('get servers -l and get services -l select by labels and by serverSelector; -l on another kind is a usage error', async () => {
    const env = (await admin.get('/api/environments?limit=200')).body.items.find((e: { name: string }) => e.name === envName);
    const mk = async (name: string, labels: Record<string, string>) =>
      expect((await admin.post(`/api/environments/${env.id}/servers`, { name, hostname: `${name}.internal`, labels })).status).to.equal(201);
    await mk('web-a', { role: 'web', zone: 'a' });
    await mk('db-a', { role: 'db', zone: 'a' });
    const imageId = (await admin.get(`/api/environments/${env.id}/container-images`)).body.items[0].id;
    const placed = await admin.post(`/api/environments/${env.id}/services`, { name: 'front', containerImageId: imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } } });
    expect(placed.status, placed.text).to.equal(201);
    const servers = await home.run(['get', 'servers', '-l', 'role=web', '-e', envName], { env: auth });
    expect(servers.code, servers.stderr).to.equal(0);
    const [header, ...rows] = servers.stdout.trimEnd().split('\n');
    expect(header).to.match(/^NAME\s+HOSTNAME\s+HEALTH\s+LABELS\s+AGE$/);
    expect(rows.map((r) => r.split(/\s+/)[0])).to.deep.equal(['web-a']);
    expect(rows[0]).to.include('role=web,zone=a');
    const zoneA = await home.run(['get', 'servers', '-l', 'zone=a', '-e', envName, '-o', 'json'], { env: auth });
    expect(JSON.parse(zoneA.stdout).items.map((x: { name: string }) => x.name)).to.deep.equal(['db-a', 'web-a']);
    const services = await home.run(['get', 'services', '-l', 'role=web', '-e', envName, '-o', 'wide'], { env: auth });
    expect(services.code, services.stderr).to.equal(0);
    expect(services.stdout).to.match(/\bSELECTOR\b/).and.match(/\nfront\s.*role=web/);
    expect(services.stdout).to.not.match(/\nweb\s/);
    const wrong = await home.run(['get', 'plans', '-l', 'role=web', '-e', envName], { env: auth });
    expect(wrong.code).to.equal(64);
    const bad = await home.run(['get', 'servers', '-l', 'role', '-e', envName], { env: auth });
    expect(bad.code).to.equal(1);
    expect(bad.stderr.trim().split('\n')).to.have.length(1);
    expect(bad.stderr).to.include('labelSelector');
  });

  it('an unreachable URL is one line and exit 1', async () => {
    const port = await closedPort();
    const res = await home.run(['get', 'environments', '--url', `http://127.0.0.1:${port}`, '--token', 'x']);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.equal(`stevedore: cannot reach http://127.0.0.1:${port}: connection refused\n`);
  });

  it('an unknown command exits 64 with the usage; --help and help CMD exit 0', async () => {
    const unknown = await home.run(['frobnicate']);
    expect(unknown.code).to.equal(64);
    expect(unknown.stderr).to.match(/^stevedore: unknown command 'frobnicate'/).and.include('Usage: stevedore');
    const help = await home.run(['--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('deploy [options] <service>');
    const helpDiff = await home.run(['help', 'diff']);
    expect(helpDiff.code).to.equal(0);
    expect(helpDiff.stdout).to.include('Usage: stevedore diff');
    expect((await home.run(['get', 'environments', '-o', 'xml'], { env: auth })).code).to.equal(64);
  });
});

describe('stevedore diff and apply against a running service', function () {
  this.timeout(60_000);
  let svc: TestService;
  let home: CliHome;
  let auth: Record<string, string>;
  before(async () => {
    svc = await startTestService();
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: (await bootstrapAdmin(svc.http)).token! };
    home = new CliHome();
  });
  after(async () => {
    home.remove();
    await svc.stop();
  });

  let dir: string;
  const write = (value: string) => fs.writeFileSync(path.join(dir, 'app.yaml'), [
    'apiVersion: stevedore/v1', 'kind: Environment', 'metadata: {name: cli-manifests}', 'spec: {}', '---',
    'apiVersion: stevedore/v1', 'kind: Var', 'metadata: {name: GREETING, environment: cli-manifests}', `spec: {value: ${value}}`, '',
  ].join('\n'));
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-manifests-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('apply exits 0; diff exits 0 with nothing to change and 2 after an edit', async () => {
    write('hello');
    const apply = await home.run(['apply', dir], { env: auth });
    expect(apply.code, apply.stderr).to.equal(0);
    const same = await home.run(['diff', dir], { env: auth });
    expect(same.code, same.stdout + same.stderr).to.equal(0);
    expect(same.stdout).to.include('No changes');
    write('goodbye');
    const changed = await home.run(['diff', dir], { env: auth });
    expect(changed.code, changed.stderr).to.equal(2);
    expect(changed.stdout).to.include('~ Var cli-manifests/GREETING');
    const detailed = await home.run(['apply', dir, '--detailed-exitcode'], { env: auth });
    expect(detailed.code, detailed.stderr).to.equal(2);
    expect((await home.run(['diff', dir], { env: auth })).code, 'applied: nothing left to change').to.equal(0);
  });
});

describe('stevedore apply to a controller that watches a manifests folder', function () {
  this.timeout(60_000);
  let svc: TestService;
  let home: CliHome;
  let auth: Record<string, string>;
  let watched: string;
  let dir: string;
  before(async () => {
    watched = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-watched-'));
    svc = await startTestService({ MANIFESTS_DIR: watched });
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: (await bootstrapAdmin(svc.http)).token! };
    home = new CliHome();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-elsewhere-'));
    fs.writeFileSync(path.join(dir, 'env.yaml'), 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: elsewhere}\nspec: {}\n');
  });
  after(async () => {
    home.remove();
    await svc.stop();
    for (const d of [watched, dir]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('is refused with the folder named, and with --force applied with a warning that the folder wins', async () => {
    const refused = await home.run(['apply', dir], { env: auth });
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim().split('\n')).to.have.length(1);
    expect(refused.stderr).to.include(`watched folder ${watched}`).and.include('--force');
    expect((await svc.http.withToken(auth.STEVEDORE_TOKEN).get('/api/environments')).body.items.map((e: { name: string }) => e.name)).not.to.include('elsewhere');
    const forced = await home.run(['apply', dir, '--force'], { env: auth });
    expect(forced.code, forced.stderr).to.equal(0);
    expect(forced.stderr).to.include('warning').and.include('next change will win');
  });

  it('diff of the watched folder itself is the controller\'s diff of it: its ${env:NAME} are the folder\'s to read', async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-watched-copy-'));
    try {
      process.env.STEVEDORE_CLI_WATCHED_DESCRIPTION = 'from the controller';
      const env = 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: watched}\nspec: {description: "${env:STEVEDORE_CLI_WATCHED_DESCRIPTION}"}\n';
      fs.writeFileSync(path.join(watched, 'env.yaml'), env);
      const admin = svc.http.withToken(auth.STEVEDORE_TOKEN);
      await until('the watched folder applied', async () => (await admin.get('/api/environments')).body.items.some((e: { name: string }) => e.name === 'watched'));
      fs.writeFileSync(path.join(copy, 'env.yaml'), env);
      const same = await home.run(['diff', copy], { env: auth });
      // exit 0: nothing of the folder would change (an object the --force apply above left is only listed as orphaned)
      expect(same.code, same.stderr).to.equal(0);
      expect(same.stdout).not.to.include('Environment watched');
      // another folder's ${env:} is sent as data, and refused at its line
      fs.writeFileSync(path.join(copy, 'env.yaml'), env.replace('name: watched', 'name: other'));
      const other = await home.run(['diff', copy], { env: auth });
      expect(other.code).to.equal(1);
      expect(other.stderr).to.include('env.yaml:4:').and.include('cannot read the controller\'s environment variables');
    } finally {
      delete process.env.STEVEDORE_CLI_WATCHED_DESCRIPTION;
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('stevedore apply to an environment with a Git source', function () {
  this.timeout(60_000);
  let svc: TestService;
  let home: CliHome;
  let auth: Record<string, string>;
  let admin: HttpClient;
  let repo: TestRepo;
  let dir: string;
  const vars = (env: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: FROM_CLI, environment: ${env}}\nspec: {value: "1"}\n`;
  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! };
    home = new CliHome();
    await createEnvironment(admin, 'git-held');
    await createEnvironment(admin, 'by-hand');
    repo = createRepo();
    repo.commit({ 'v.yaml': 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: FROM_GIT, environment: git-held}\nspec: {value: "1"}\n' });
    const envId = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === 'git-held').id;
    expect((await admin.put(`/api/environments/${envId}/manifests-source`, { url: repo.url, ref: 'main' })).status).to.be.oneOf([200, 201]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-git-held-'));
  });
  after(async () => {
    home.remove();
    repo.remove();
    await svc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is refused naming the repository, applies elsewhere, and with --force applies with a warning', async () => {
    fs.writeFileSync(path.join(dir, 'v.yaml'), vars('git-held'));
    const refused = await home.run(['apply', dir], { env: auth });
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim().split('\n')).to.have.length(1);
    expect(refused.stderr).to.include(`environment git-held takes its manifests from ${repo.url} (main)`).and.include('--force');
    const names = async (env: string) => {
      const envId = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === env).id;
      return (await admin.get(`/api/environments/${envId}/vars?limit=200`)).body.items.map((v: { key: string }) => v.key);
    };
    expect(await names('git-held')).not.to.include('FROM_CLI');
    fs.writeFileSync(path.join(dir, 'v.yaml'), vars('by-hand'));
    const elsewhere = await home.run(['apply', dir], { env: auth });
    expect(elsewhere.code, elsewhere.stderr).to.equal(0);
    expect(await names('by-hand')).to.include('FROM_CLI');
    fs.writeFileSync(path.join(dir, 'v.yaml'), vars('git-held'));
    const forced = await home.run(['apply', dir, '--force'], { env: auth });
    expect(forced.code, forced.stderr).to.equal(0);
    expect(forced.stderr).to.include('warning').and.include('next change will win');
    expect(await names('git-held')).to.include('FROM_CLI');
  });

  it('diff --source -e ENV shows what the next sync would do (exit 0 nothing, 2 something), applying nothing', async () => {
    const envId = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === 'git-held').id;
    await until('the source applied', async () => (await admin.get(`/api/environments/${envId}/manifests-source/status`)).body.sync === 'Synced', { timeoutMs: 20_000, everyMs: 100 });
    const same = await home.run(['diff', '--source', '-e', 'git-held'], { env: auth });
    expect(same.code, same.stderr).to.equal(0);
    const sha = repo.commit({ 'next.yaml': 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: NEXT_GIT, environment: git-held}\nspec: {value: "2"}\n' }, 'next var');
    const changed = await home.run(['diff', '--source', '-e', 'git-held'], { env: auth });
    expect(changed.code, changed.stderr).to.equal(2);
    expect(changed.stdout).to.include(`Commit ${sha.slice(0, 12)}`).and.include('NEXT_GIT');
    const keys = (await admin.get(`/api/environments/${envId}/vars?limit=200`)).body.items.map((v: { key: string }) => v.key);
    expect(keys).to.not.include('NEXT_GIT');
    expect((await home.run(['diff'], { env: auth })).code).to.equal(64);
    expect((await home.run(['diff', dir, '--source', '-e', 'git-held'], { env: auth })).code).to.equal(64);
  });
});
