// The kubectl/argocd verbs of the stevedore CLI (issue 35), as a user runs them (node
// bin/stevedore.js off a terminal) against the real service on a real PostgreSQL. The one server
// cannot be reached (127.0.0.1 port 1), so deploys start and fail: what a plan does on a real
// server is the fleet's (test/e2e/cli.test.ts).
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CliHome } from '../support/cli-run.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { until } from '../support/until.js';
import { closedPort } from '../support/ports.js';
import { signInThrough, startOidcProvider } from '../support/oidc-provider.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';

const oneLine = (stderr: string) => expect(stderr.trim().split('\n'), stderr).to.have.length(1);

describe('stevedore kubectl-style verbs against a running service', function () {
  // each CLI run starts a node process: seconds apiece on a loaded machine
  this.timeout(240_000);
  let svc: TestService;
  let admin: HttpClient;
  let home: CliHome;
  let auth: Record<string, string>;
  let dir: string;
  let env: { id: string; name: string };
  let other: { id: string; name: string };

  const manifest = (name: string, tag = 'v1') => [
    'apiVersion: stevedore/v1', 'kind: Server', `metadata: {name: nowhere, environment: ${env.name}}`, 'spec: {hostname: 127.0.0.1, sshPort: 1}', '---',
    'apiVersion: stevedore/v1', 'kind: ContainerImage', `metadata: {name: web, environment: ${env.name}}`, 'spec: {imageName: registry.test:5000/acme/web}', '---',
    'apiVersion: stevedore/v1', 'kind: Service', `metadata: {name: ${name}, environment: ${env.name}}`, `spec: {image: web, imageTag: ${tag}, deployments: [{server: nowhere}]}`, '',
  ].join('\n');
  const vars = (envName: string, key: string, value: string) =>
    `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: ${key}, environment: ${envName}}\nspec: {value: "${value}"}\n`;
  const applyOk = async (file: string) => {
    const r = await home.run(['apply', file], { env: auth });
    expect(r.code, r.stdout + r.stderr).to.equal(0);
  };
  const varsOf = async (envId: string) => (await admin.get(`/api/environments/${envId}/vars?limit=200`)).body.items as Array<{ id: string; key: string; value: string }>;

  before(async () => {
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    other = await createEnvironment(admin);
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! };
  });
  beforeEach(() => {
    home = new CliHome();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-kubectl-'));
  });
  afterEach(() => {
    home.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  after(() => svc.stop());

  it('STEVEDORE_URL and STEVEDORE_TOKEN set but empty count as unset: the saved context answers', async () => {
    expect((await home.run(['login', svc.url, '--token', admin.token!, '-e', env.name])).code).to.equal(0);
    const res = await home.run(['get', 'environments'], { env: { STEVEDORE_URL: '', STEVEDORE_TOKEN: '' } });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include(env.name);
  });

  it('apply FILE, apply -f FILE and apply -f - (stdin) apply one file; a file that is not YAML is one line, exit 1; PATH and -f together exit 64', async () => {
    const file = path.join(dir, 'one.yaml');
    fs.writeFileSync(file, vars(env.name, 'FROM_FILE', '1'));
    const positional = await home.run(['apply', file], { env: auth });
    expect(positional.code, positional.stderr).to.equal(0);
    expect(positional.stdout).to.include(`+ Var ${env.name}/FROM_FILE`);
    fs.writeFileSync(file, vars(env.name, 'FROM_FILE', '2'));
    const flag = await home.run(['apply', '-f', file], { env: auth });
    expect(flag.code, flag.stderr).to.equal(0);
    const stdin = await home.run(['apply', '-f', '-'], { env: auth, input: vars(env.name, 'FROM_STDIN', '3') });
    expect(stdin.code, stdin.stderr).to.equal(0);
    const stored = await varsOf(env.id);
    expect(stored.find((v) => v.key === 'FROM_FILE')?.value).to.equal('2');
    expect(stored.find((v) => v.key === 'FROM_STDIN')?.value).to.equal('3');
    // the object records the file it came from: the 409 that follows names it
    const source = (await svc.services.db('vars').where({ environmentId: env.id, key: 'FROM_STDIN' }).first()).source;
    expect(source).to.include({ kind: 'manifest', path: 'stdin.yaml' });
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    const notYaml = await home.run(['apply', path.join(dir, 'notes.txt')], { env: auth });
    expect(notYaml.code).to.equal(1);
    expect(notYaml.stderr).to.equal(`stevedore: ${path.join(dir, 'notes.txt')} is not a .yaml or .yml file\n`);
    const missing = await home.run(['apply', path.join(dir, 'nope.yaml')], { env: auth });
    expect(missing.code).to.equal(1);
    oneLine(missing.stderr);
    expect((await home.run(['apply', file, '-f', file], { env: auth })).code).to.equal(64);
    expect((await home.run(['apply'], { env: auth })).code).to.equal(64);
  });

  it('validate passes on export output with -e ENV (against the controller) and --offline -e ENV; without it the environment is unknown; a manifest of another environment fails', async () => {
    const file = path.join(dir, 'app.yaml');
    fs.writeFileSync(file, manifest('exported'));
    await applyOk(file);
    const exported = await home.run(['export', '-e', env.name], { env: auth });
    expect(exported.code, exported.stderr).to.equal(0);
    const out = path.join(dir, 'export.yaml');
    fs.writeFileSync(out, exported.stdout);
    const plain = await home.run(['validate', out]);
    expect(plain.code, 'offline, nothing declares the environment').to.equal(1);
    expect(plain.stderr).to.include(`unknown Environment '${env.name}'`);
    const offline = await home.run(['validate', '--offline', '-e', env.name, out]);
    expect(offline.code, offline.stderr).to.equal(0);
    expect(offline.stdout).to.match(/^\d+ manifest\(s\) valid \(sha256:[0-9a-f]+\), environment \S+ taken to exist \(offline\)\.\n$/);
    const online = await home.run(['validate', '-e', env.name, '-f', out], { env: auth });
    expect(online.code, online.stderr).to.equal(0);
    expect(online.stdout).to.include(`valid for environment ${env.name} on ${svc.url}`);
    // against the controller, references may name what its store holds: a service alone passes
    const alone = path.join(dir, 'alone.yaml');
    fs.writeFileSync(alone, manifest('alone').split('---\n')[2]);
    expect((await home.run(['validate', '--offline', '-e', env.name, alone])).code, 'offline: the image is unknown').to.equal(1);
    const stored = await home.run(['validate', '-e', env.name, alone], { env: auth });
    expect(stored.code, stored.stderr).to.equal(0);
    // -e ENV: the files are ENV's
    const mixed = path.join(dir, 'mixed.yaml');
    fs.writeFileSync(mixed, vars(other.name, 'ELSEWHERE', '1'));
    for (const args of [['validate', '--offline', '-e', env.name, mixed], ['validate', '-e', env.name, mixed], ['diff', '-e', env.name, mixed]]) {
      const r = await home.run(args, { env: auth });
      expect(r.code, args.join(' ')).to.equal(1);
      expect(r.stderr, args.join(' ')).to.include(`Var 'ELSEWHERE' belongs to the environment ${other.name}, not ${env.name}`);
      expect(r.stderr.trim().split('\n').at(-1)).to.equal(`stevedore: ${mixed}: invalid manifests`);
    }
    expect((await home.run(['validate', '-e', 'no-such-env', out], { env: auth })).code).to.equal(1);
    // the environment's own files: a diff, not a refusal (export's objects would be taken over by the file)
    const diff = await home.run(['diff', '-e', env.name, out], { env: auth });
    expect(diff.code, diff.stdout + diff.stderr).to.equal(2);
    expect(diff.stdout).to.include('taken over by the manifest');
  });

  it('delete KIND NAME deletes; a manifest\'s object is refused naming the file; unknown names exit 1, kinds without items 64', async () => {
    const made = await admin.post(`/api/environments/${env.id}/vars`, { key: 'DOOMED', value: 'x' });
    expect(made.status, made.text).to.equal(201);
    const del = await home.run(['delete', 'var', 'DOOMED', '-e', env.name], { env: auth });
    expect(del.code, del.stderr).to.equal(0);
    expect(del.stdout).to.equal('var/DOOMED deleted\n');
    expect((await varsOf(env.id)).map((v) => v.key)).not.to.include('DOOMED');
    fs.writeFileSync(path.join(dir, 'owned.yaml'), vars(env.name, 'OWNED_DEL', '1'));
    await applyOk(path.join(dir, 'owned.yaml'));
    const owned = await home.run(['delete', 'var', 'OWNED_DEL', '-e', env.name], { env: auth });
    expect(owned.code).to.equal(1);
    oneLine(owned.stderr);
    expect(owned.stderr).to.include('409 CONFLICT').and.include('managed by the manifest owned.yaml');
    expect((await varsOf(env.id)).map((v) => v.key)).to.include('OWNED_DEL');
    const unknown = await home.run(['delete', 'var', 'NO_SUCH', '-e', env.name], { env: auth });
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal('stevedore: no var NO_SUCH in this environment\n');
    expect((await home.run(['delete', 'plans', 'x', '-e', env.name], { env: auth })).code).to.equal(64);
  });

  it('edit KIND NAME sends the fields changed in $EDITOR; unchanged is a no-op; an edit the API refuses changes nothing and is kept', async () => {
    const made = await admin.post(`/api/environments/${env.id}/vars`, { key: 'EDITED', value: 'before' });
    expect(made.status, made.text).to.equal(201);
    // the editor: a script that rewrites one field of the YAML it is handed (or none)
    const editor = path.join(dir, 'editor.mjs');
    fs.writeFileSync(editor, [
      "import fs from 'node:fs';",
      'const [field, value] = process.argv.slice(2, 4);',
      'const file = process.argv.at(-1);',
      "if (field !== 'none') fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${value}`));",
    ].join('\n'));
    const withEditor = (field: string, value = '') => ({ ...auth, EDITOR: `${process.execPath} ${editor} ${field} ${value || '-'}`, VISUAL: '' });
    const audits = async () => (await admin.get(`/api/audit-logs?resourceId=${made.body.id}&action=updateVar`)).body.total as number;
    const unchanged = await home.run(['edit', 'var', 'EDITED', '-e', env.name], { env: withEditor('none') });
    expect(unchanged.code, unchanged.stderr).to.equal(0);
    expect(unchanged.stdout).to.equal('var/EDITED unchanged\n');
    expect(await audits(), 'no PATCH sent').to.equal(0);
    const edited = await home.run(['edit', 'var', 'EDITED', '-e', env.name], { env: withEditor('value', 'after') });
    expect(edited.code, edited.stderr).to.equal(0);
    expect(edited.stdout).to.equal('var/EDITED edited (value)\n');
    expect((await varsOf(env.id)).find((v) => v.key === 'EDITED')?.value).to.equal('after');
    expect(await audits()).to.equal(1);
    // a read-only field changed: the API's validation refuses, nothing changes, the edit is kept
    const refused = await home.run(['edit', 'var', 'EDITED', '-e', env.name], { env: withEditor('createdAt', '2001-01-01T00:00:00.000Z') });
    expect(refused.code).to.equal(1);
    oneLine(refused.stderr);
    expect(refused.stderr, refused.stderr).to.match(/^stevedore: PATCH \/api\/vars\/\S+: 4\d\d [A-Z_]+: .*; nothing changed, the edit is kept in (\S+)\n$/);
    const kept = /kept in (\S+)$/.exec(refused.stderr.trim())![1];
    expect(fs.readFileSync(kept, 'utf8')).to.include('createdAt: 2001-01-01');
    fs.rmSync(path.dirname(kept), { recursive: true, force: true });
    expect((await varsOf(env.id)).find((v) => v.key === 'EDITED')?.value).to.equal('after');
    const broken = await home.run(['edit', 'var', 'EDITED', '-e', env.name], { env: withEditor('value', '[unclosed') });
    expect(broken.code).to.equal(1);
    oneLine(broken.stderr);
    expect(broken.stderr).to.include('not valid YAML').and.include('nothing changed');
    const noEditor = await home.run(['edit', 'var', 'EDITED', '-e', env.name], { env: { ...auth, EDITOR: path.join(dir, 'no-such-editor'), VISUAL: '' } });
    expect(noEditor.code).to.equal(1);
    expect(noEditor.stderr).to.include('cannot start the editor').and.include('ENOENT');
  });

  it('disown KIND NAME releases a service from the file apply tied it to: deploy --tag answers 409 before and starts a plan after', async () => {
    const file = path.join(dir, 'demo.yaml');
    fs.writeFileSync(file, manifest('tied'));
    await applyOk(file);
    const before = await home.run(['deploy', 'tied', '--tag', 'v9', '-e', env.name], { env: auth });
    expect(before.code).to.equal(1);
    oneLine(before.stderr);
    expect(before.stderr).to.include('409 CONFLICT').and.include('managed by the manifest demo.yaml');
    const disown = await home.run(['disown', 'service', 'tied', '-e', env.name], { env: auth });
    expect(disown.code, disown.stderr).to.equal(0);
    expect(disown.stdout).to.match(/^service\/tied released from the manifest demo\.yaml \(.*imageTag.*\): the API manages it now\n$/);
    const after = await home.run(['deploy', 'tied', '--tag', 'v9', '-e', env.name], { env: auth });
    expect(after.code, after.stderr).to.equal(0);
    expect(after.stdout).to.match(/^Started plan \S+/);
    const again = await home.run(['disown', 'service', 'tied', '-e', env.name], { env: auth });
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('is not managed by a manifest');
    expect((await home.run(['disown', 'environment', env.name], { env: auth })).code).to.equal(64);
  });

  it('get KIND -A lists every environment with an ENVIRONMENT column; kinds outside environments exit 64', async () => {
    expect((await admin.post(`/api/environments/${env.id}/vars`, { key: 'ALL_A', value: '1' })).status).to.equal(201);
    expect((await admin.post(`/api/environments/${other.id}/vars`, { key: 'ALL_B', value: '2' })).status).to.equal(201);
    const res = await home.run(['get', 'vars', '-A'], { env: auth });
    expect(res.code, res.stderr).to.equal(0);
    const [header, ...rows] = res.stdout.trimEnd().split('\n');
    expect(header).to.match(/^ENVIRONMENT\s+KEY\s+VALUE\s+AGE$/);
    expect(rows.find((r) => /\sALL_A\s/.test(r))).to.match(new RegExp(`^${env.name}\\s`));
    expect(rows.find((r) => /\sALL_B\s/.test(r))).to.match(new RegExp(`^${other.name}\\s`));
    const json = JSON.parse((await home.run(['get', 'vars', '-A', '-o', 'json'], { env: auth })).stdout);
    expect(json.items.map((v: { environmentId: string }) => v.environmentId)).to.include(env.id).and.include(other.id);
    expect((await home.run(['get', 'environments', '-A'], { env: auth })).code).to.equal(64);
    expect((await home.run(['get', 'vars', '-A', '-w'], { env: auth })).code).to.equal(64);
  });

  it('events lists the environment\'s recent events and -w prints the next one as it happens', async () => {
    fs.writeFileSync(path.join(dir, 'ev.yaml'), manifest('evented'));
    await applyOk(path.join(dir, 'ev.yaml'));
    const service = (await admin.get(`/api/environments/${env.id}/services?limit=200`)).body.items.find((x: { name: string }) => x.name === 'evented');
    await until('an event of the plan', async () => (await admin.get(`/api/environments/${env.id}/events`)).body.total > 0, { timeoutMs: 20_000 });
    const list = await home.run(['events', '-e', env.name], { env: auth });
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout).to.match(/^AGE\s+TYPE\s+ABOUT\n/).and.match(/\n\S+\s+plan\.(updated|step)\s/);
    let seen = '';
    const watch = home.run(['events', '-e', env.name, '-w', '--limit', '1'], { env: auth, onStdout: (s) => { seen += s; } });
    try {
      await until('the listing', async () => seen.startsWith('AGE'));
      const before = seen.split('\n').length;
      expect((await admin.post(`/api/services/${service.id}/deploy`, {})).status).to.equal(202);
      await until('a new event line', async () => seen.split('\n').length > before && /plan\.(updated|step)/.test(seen.split('\n').slice(before - 1).join('\n')), { timeoutMs: 30_000, everyMs: 100 });
    } finally {
      watch.kill();
      await watch;
    }
    expect((await home.run(['events', '-e', env.name, '--limit', '0'], { env: auth })).code).to.equal(64);
  });

  it('top servers and top services print the newest samples; top of anything else exits 64', async () => {
    fs.writeFileSync(path.join(dir, 'top.yaml'), manifest('topped'));
    await applyOk(path.join(dir, 'top.yaml'));
    const server = (await admin.get(`/api/environments/${env.id}/servers`)).body.items.find((x: { name: string }) => x.name === 'nowhere');
    const deployment = (await svc.services.db('deployments').join('services', 'services.id', 'deployments.service_id').where('services.name', 'topped').first('deployments.container_name as containerName'));
    await svc.services.serverSamples.insertServerSamples([{
      serverId: server.id, at: new Date(), source: 'ssh', cpuPercent: 42.5, memoryUsedBytes: 512 * 1024 ** 2, memoryTotalBytes: 2 * 1024 ** 3, load1: 0.7,
      containers: [{ name: deployment.containerName, cpuPercent: 12.25, memoryUsedBytes: 64 * 1024 ** 2, memoryLimitBytes: 1024 ** 3 }],
    }]);
    const servers = await home.run(['top', 'servers', '-e', env.name], { env: auth });
    expect(servers.code, servers.stderr).to.equal(0);
    expect(servers.stdout).to.match(/^NAME\s+CPU\s+MEMORY\s+DISK\s+LOAD1\s+CONTAINERS\s+SAMPLED\n/).and.match(/\nnowhere\s+42\.5%\s+512MiB\/2\.0GiB\s+<none>\s+0\.7\s+1\s+\d+s\n/);
    const services = await home.run(['top', 'services', '-e', env.name], { env: auth });
    expect(services.code, services.stderr).to.equal(0);
    expect(services.stdout).to.match(/^SERVICE\s+CONTAINER\s+SERVER\s+CPU\s+MEMORY\s+SAMPLED\n/)
      .and.match(new RegExp(`\\ntopped\\s+${deployment.containerName}\\s+nowhere\\s+12\\.3%\\s+64MiB/1\\.0GiB\\s+\\d+s`));
    expect((await home.run(['top', 'plans', '-e', env.name], { env: auth })).code).to.equal(64);
  });

  it('plan promote, pause and resume reach the plan\'s operations: one that cannot is the API\'s 409 in one line, exit 1', async () => {
    fs.writeFileSync(path.join(dir, 'plan.yaml'), manifest('planned'));
    await applyOk(path.join(dir, 'plan.yaml'));
    const service = (await admin.get(`/api/environments/${env.id}/services?limit=200`)).body.items.find((x: { name: string }) => x.name === 'planned');
    const plan = (await admin.post(`/api/services/${service.id}/deploy?wait=true`, {})).body;
    const expected: Record<string, string> = {
      promote: 'only a plan paused between waves can be promoted', pause: 'only a running plan can be paused', resume: 'nothing to resume',
    };
    for (const [verb, message] of Object.entries(expected)) {
      const r = await home.run(['plan', verb, plan.id], { env: auth });
      expect(r.code, `${verb}: ${r.stderr}`).to.equal(1);
      oneLine(r.stderr);
      expect(r.stderr, verb).to.match(new RegExp(`^stevedore: POST /api/deployment-plans/${plan.id}/${verb}: 409 CONFLICT: `)).and.include(message);
    }
    expect((await home.run(['plan', 'promote'], { env: auth })).code).to.equal(64);
  });

  it('logs --since takes a duration (a bad one exits 64) and asks the API for that window', async () => {
    fs.writeFileSync(path.join(dir, 'logs.yaml'), manifest('logged'));
    await applyOk(path.join(dir, 'logs.yaml'));
    expect((await home.run(['logs', 'logged', '-e', env.name, '--since', 'yesterday'], { env: auth })).code).to.equal(64);
    expect((await home.run(['logs', 'logged', '-e', env.name, '--since', '31d'], { env: auth })).code).to.equal(64);
    const res = await home.run(['logs', 'logged', '-e', env.name, '--since', '5m'], { env: auth });
    // the server cannot be reached: the API's answer in one line, for the route with the window
    expect(res.code).to.equal(1);
    oneLine(res.stderr);
    expect(res.stderr, res.stderr).to.match(/^stevedore: GET \/api\/services\/\S+\/deployments\/\S+\/logs\?tail=50&sinceSec=300: [45]\d\d /);
    expect(res.stderr, 'the window is accepted: what fails is the server').not.to.match(/: 400 /);
    // the route's own check of the window
    const service = (await admin.get(`/api/environments/${env.id}/services?limit=200`)).body.items.find((x: { name: string }) => x.name === 'logged');
    const dep = (await admin.get(`/api/services/${service.id}/deployments`)).body.items[0];
    for (const bad of ['0', '2592001', 'soon']) {
      const r = await admin.get(`/api/services/${service.id}/deployments/${dep.id}/logs?sinceSec=${bad}`);
      expect(r.status, bad).to.equal(400);
      expect(r.body).to.include({ code: 'VALIDATION_ERROR' });
    }
  });
});

describe('stevedore login --sso', function () {
  this.timeout(60_000);
  it('without single sign-on on the controller: one line, exit 1, no context saved', async () => {
    const svc = await startTestService();
    const home = new CliHome();
    try {
      const res = await home.run(['login', svc.url, '--sso', '--no-browser']);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.equal(`stevedore: ${svc.url} has no single sign-on (OIDC_ISSUER is not set there): stevedore login ${svc.url}, or --token\n`);
      expect(fs.existsSync(home.configFile)).to.equal(false);
      expect((await home.run(['login', svc.url, '--sso', '--token', 'x'])).code).to.equal(64);
    } finally {
      home.remove();
      await svc.stop();
    }
  });
});

describe('stevedore login --sso with single sign-on (HTTP, no browser)', function () {
  this.timeout(120_000);
  it('the address it prints signs in at the provider and lands on the controller\'s /cli-token; the token pasted is saved', async () => {
    const port = Number(new URL(await closedPort()).port);
    const redirectUri = `http://127.0.0.1:${port}/api/auth/oidc/callback`;
    const idp = await startOidcProvider({
      redirectUri, clientId: 'stevedore', clientSecret: 'a-client-secret-for-tests',
      accounts: { alice: { email: 'alice@example.test', name: 'Alice', groups: ['stevedore-admins'] } },
    });
    const svc = await startTestService({
      PORT: String(port), OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'stevedore', OIDC_CLIENT_SECRET: 'a-client-secret-for-tests',
      OIDC_REDIRECT_URL: redirectUri, OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'stevedore-admins=admin', OIDC_DEFAULT_ROLE: 'none',
    });
    const home = new CliHome();
    try {
      const none = await home.run(['login', svc.url, '--sso', '--no-browser']);
      expect(none.code).to.equal(1);
      const printed = /Sign in through your browser at\n {2}(\S+)\n/.exec(none.stderr)?.[1];
      expect(printed, none.stderr).to.equal(`${svc.url}/api/auth/oidc/login?next=%2Fcli-token`);
      const walk = await signInThrough(svc.url, 'alice', new URL(printed!).search.slice(1));
      expect(walk.error).to.equal(null);
      expect(walk.landed?.origin).to.equal(svc.url);
      expect(walk.landed?.pathname).to.equal('/cli-token');
      const login = await home.run(['login', svc.url, '--sso', '--no-browser'], { input: `${walk.token}\n` });
      expect(login.code, login.stderr).to.equal(0);
      expect(login.stdout).to.include('alice@example.test').and.include('(admin)');
      expect(YAML.parse(fs.readFileSync(home.configFile, 'utf8')).contexts[0]).to.include({ url: svc.url, token: walk.token });
    } finally {
      home.remove();
      await svc.stop();
      await idp.stop();
    }
  });
});

describe('stevedore sync wait', function () {
  this.timeout(240_000);
  let svc: TestService;
  let admin: HttpClient;
  let repo: TestRepo;
  let home: CliHome;
  let auth: Record<string, string>;
  const v = (value: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: SYNCED, environment: synced}\nspec: {value: "${value}"}\n`;
  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! };
    home = new CliHome();
    const env = await createEnvironment(admin, 'synced');
    repo = createRepo();
    repo.commit({ 'v.yaml': v('1') });
    // polled every hour: only a sync asked for (or the first) applies a commit
    const put = await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, ref: 'main', pollIntervalSec: 3600 });
    expect(put.status, put.text).to.be.oneOf([200, 201]);
  });
  after(async () => {
    home.remove();
    repo.remove();
    await svc.stop();
  });

  it('waits until the source applied the commit; a commit that failed exits 1 with its error; a timeout exits 1; a bad SHA 64', async () => {
    const first = await home.run(['sync', 'wait', 'synced', '--timeout', '60s'], { env: auth });
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.match(/^synced: synced at commit [0-9a-f]{12}\n$/);
    const sha = repo.commit({ 'v.yaml': v('2') }, 'two');
    const waiting = home.run(['sync', 'wait', 'synced', '--commit', sha.slice(0, 10), '--timeout', '90s'], { env: auth });
    const env = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === 'synced');
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    const done = await waiting;
    expect(done.code, done.stderr).to.equal(0);
    expect(done.stdout).to.equal(`synced: synced at commit ${sha.slice(0, 12)}\n`);
    const broken = repo.commit({ 'v.yaml': 'kind: [unclosed\n' }, 'broken');
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    const failed = await home.run(['sync', 'wait', 'synced', '--commit', broken, '--timeout', '90s'], { env: auth });
    expect(failed.code).to.equal(1);
    oneLine(failed.stderr);
    expect(failed.stderr, failed.stderr).to.match(new RegExp(`^stevedore: synced: commit ${broken.slice(0, 12)} failed: .+`));
    const never = await home.run(['sync', 'wait', 'synced', '--commit', 'abcdef1', '--timeout', '2s'], { env: auth });
    expect(never.code).to.equal(1);
    expect(never.stderr).to.match(/^stevedore: timed out waiting for synced to sync commit abcdef1: it is \w+/);
    expect((await home.run(['sync', 'wait', 'synced', '--commit', 'not-a-sha'], { env: auth })).code).to.equal(64);
  });
});

