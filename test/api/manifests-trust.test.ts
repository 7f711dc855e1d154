// Manifests are data (issue 34, docs/security.md): sent to the API, they name nothing of the
// controller's own (its environment, its files); secrets come from a Secret of the manifest's own
// environment (valueFrom.secretRef); answers never echo a value the apply resolved. The watched
// folder (MANIFESTS_DIR), whose author has the controller's machine, keeps reading both. A Git
// source reads only repositories under GIT_FILE_ROOTS, never the state dir, never takes over an
// object it did not make, and says in words what blocks a prune.
import { expect } from 'chai';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { TEST_GIT_ROOT } from '../support/git-file-roots.js';
import type { HttpClient } from '../support/http-client.js';
import { seedSecrets } from '../support/manifest-files.js';
import { until } from '../support/until.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

const doc = (kind: string, name: string, spec: string, environment = 'trust') =>
  `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}, environment: ${environment}}\nspec:\n${spec}`;
const envFile: ManifestFile = { path: 'environment.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: trust}\nspec: {}\n' };

describe('manifests are data: what an API apply may read', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let envId: string;
  // what the controller process holds: a manifest sent to the API must reach none of it
  const CONTROLLER_SECRET = 'controller-only-value-4f1d9a';

  before(async () => {
    process.env.STEVEDORE_TRUST_TEST_SECRET = CONTROLLER_SECRET;
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    envId = await seedSecrets(admin, 'trust', { REGISTRY_PASSWORD: 'stored-registry-pw-7c2e' });
    await seedSecrets(admin, 'other', { OTHER_ONLY: 'other-env-pw-0b3a' });
    expect((await admin.post('/api/manifests/apply', { files: [envFile] })).status).to.equal(200);
  });
  after(async () => {
    delete process.env.STEVEDORE_TRUST_TEST_SECRET;
    await svc.stop();
  });

  const stored = async () => ({
    vars: (await admin.get(`/api/environments/${envId}/vars`)).body.items,
    secrets: (await admin.get(`/api/environments/${envId}/secrets`)).body.items.map((x: any) => x.key),
    registries: (await admin.get(`/api/environments/${envId}/registries`)).body.items,
  });

  const attacks: Array<[string, ManifestFile, string]> = [
    ['valueFrom.file of /etc/shadow', { path: 'leak.yaml', content: doc('Secret', 'SHADOW', '  valueFrom: {file: /etc/shadow}\n') }, 'leak.yaml:5:spec/valueFrom'],
    ['valueFrom.env of the controller', { path: 'leak.yaml', content: doc('Secret', 'KEY', '  valueFrom: {env: STEVEDORE_TRUST_TEST_SECRET}\n') }, 'leak.yaml:5:spec/valueFrom'],
    ['${env:NAME} in a Var', { path: 'vars.yaml', content: doc('Var', 'LEAK', '  value: "${env:STEVEDORE_TRUST_TEST_SECRET}"\n') }, 'vars.yaml:5:'],
    ['valueFrom.env in a Registry password', {
      path: 'registry.yaml',
      content: doc('Registry', 'r', '  type: generic\n  registryUrl: https://registry.example\n  username: u\n  password:\n    valueFrom: {env: STEVEDORE_TRUST_TEST_SECRET}\n'),
    }, 'registry.yaml:9:spec/password/valueFrom'],
  ];
  for (const [what, file, where] of attacks) {
    it(`refuses ${what}: 400 naming the file and line, nothing applied, nothing echoed`, async () => {
      const before = await stored();
      const res = await admin.post('/api/manifests/apply', { files: [envFile, file] });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.code).to.equal('VALIDATION_ERROR');
      expect(res.body.errors.map((e: any) => `${e.file}:${e.line}:${e.path}`)).to.deep.equal([where]);
      expect(res.body.errors[0].message).to.match(/cannot read (the controller's environment variables|files on the controller's machine)/);
      expect(res.body.message).to.include(where.split(':').slice(0, 2).join(':'));
      expect(res.text).not.to.include(CONTROLLER_SECRET);
      expect(res.text).not.to.match(/root:[^:]*:/); // no line of /etc/shadow
      expect(await stored()).to.deep.equal(before);
      // the dry runs say the same, and read nothing either
      const diff = await admin.post('/api/manifests/diff', { files: [envFile, file] });
      expect(diff.status, diff.text).to.equal(200);
      expect(diff.body.ok).to.equal(false);
      expect(diff.body.errors.map((e: any) => `${e.file}:${e.line}:${e.path}`)).to.deep.equal([where]);
      expect(diff.text).not.to.include(CONTROLLER_SECRET);
      const dry = await admin.post('/api/manifests/apply', { files: [envFile, file], dryRun: true });
      expect(dry.status).to.equal(400);
      expect(dry.text).not.to.include(CONTROLLER_SECRET);
    });
  }

  it('a secretRef reads a Secret of the same environment; the answer, the audit and the logs never hold its value', async () => {
    const registry: ManifestFile = {
      path: 'registry.yaml',
      content: doc('Registry', 'r', '  type: generic\n  registryUrl: https://registry.example\n  username: u\n  password:\n    valueFrom: {secretRef: REGISTRY_PASSWORD}\n'),
    };
    const diff = await admin.post('/api/manifests/diff', { files: [envFile, registry] });
    const res = await admin.post('/api/manifests/apply', { files: [envFile, registry] });
    expect(res.status, res.text).to.equal(200);
    for (const r of [diff, res]) {
      expect(r.body.changes.find((c: any) => c.kind === 'Registry').fields).to.deep.include({ field: 'password', secret: true });
      expect(r.text).not.to.include('stored-registry-pw-7c2e');
    }
    const [row] = await svc.services.db('registry_connections').where({ environmentId: envId });
    expect(svc.services.secretBox.open(row.passwordEnc)).to.equal('stored-registry-pw-7c2e');
    expect(JSON.stringify(await svc.services.db('audit_logs'))).not.to.include('stored-registry-pw-7c2e');
    expect(svc.logs.join('\n')).not.to.include('stored-registry-pw-7c2e');
    // owned by the manifest like any field it sets
    expect(row.source.fields).to.include('password');
  });

  it('a secretRef to another environment\'s Secret, or to none, is 400 naming the file and line', async () => {
    for (const name of ['OTHER_ONLY', 'NO_SUCH_SECRET']) {
      const file: ManifestFile = { path: 'copy.yaml', content: doc('Secret', 'COPY', `  valueFrom: {secretRef: ${name}}\n`) };
      const res = await admin.post('/api/manifests/apply', { files: [envFile, file] });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.errors.map((e: any) => `${e.file}:${e.line}:${e.path}`)).to.deep.equal(['copy.yaml:5:spec/valueFrom/secretRef']);
      expect(res.body.errors[0].message).to.equal(`valueFrom.secretRef: there is no Secret ${name} in environment trust (a secretRef reads only a Secret of the manifest's own environment)`);
      expect(res.text).not.to.include('other-env-pw-0b3a');
      expect((await stored()).secrets).not.to.include('COPY');
    }
    // naming the other environment is not a way round it: a secretRef is a key, not a path
    const pathLike: ManifestFile = { path: 'copy.yaml', content: doc('Secret', 'COPY', '  valueFrom: {secretRef: other/OTHER_ONLY}\n') };
    const res = await admin.post('/api/manifests/apply', { files: [envFile, pathLike] });
    expect(res.status).to.equal(400);
    expect(res.body.errors[0]).to.include({ file: 'copy.yaml', line: 5, path: 'spec/valueFrom/secretRef' });
  });
});

describe('manifests are data: the watched folder still reads the controller', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'manifests-trust-folder-'));
    writeFileSync(join(dir, 'token.txt'), 'value-from-a-file\n');
    writeFileSync(join(dir, 'environment.yaml'), envFile.content);
    writeFileSync(join(dir, 'config.yaml'), [
      doc('Var', 'HOST', '  value: "${env:STEVEDORE_TRUST_FOLDER_HOST}"\n'),
      doc('Secret', 'FROM_ENV', '  valueFrom: {env: STEVEDORE_TRUST_FOLDER_SECRET}\n'),
      doc('Secret', 'FROM_FILE', '  valueFrom: {file: token.txt}\n'),
    ].join('---\n'));
    process.env.STEVEDORE_TRUST_FOLDER_HOST = '10.1.2.3';
    process.env.STEVEDORE_TRUST_FOLDER_SECRET = 'folder-secret-value';
    svc = await startTestService({ MANIFESTS_DIR: dir });
    admin = await bootstrapAdmin(svc.http);
  });
  after(async () => {
    delete process.env.STEVEDORE_TRUST_FOLDER_HOST;
    delete process.env.STEVEDORE_TRUST_FOLDER_SECRET;
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies ${env:NAME}, valueFrom.env and valueFrom.file of MANIFESTS_DIR as before', async () => {
    const status = await until('the folder applied', async () => (await admin.get('/api/manifests/status')).body.lastApplied);
    expect(status.ok, JSON.stringify(status)).to.equal(true);
    const env = (await admin.get('/api/environments')).body.items.find((e: any) => e.name === 'trust');
    expect((await admin.get(`/api/environments/${env.id}/vars`)).body.items.map((v: any) => [v.key, v.value])).to.deep.equal([['HOST', '10.1.2.3']]);
    const rows = await svc.services.db('secrets').where({ environmentId: env.id }).orderBy('key');
    expect(rows.map((r: any) => [r.key, svc.services.secretBox.open(r.valueSealed)])).to.deep.equal([['FROM_ENV', 'folder-secret-value'], ['FROM_FILE', 'value-from-a-file']]);
    // POST /api/manifests/apply without files applies the folder: its references are the folder's
    const again = await admin.post('/api/manifests/apply', {});
    expect(again.status, again.text).to.equal(200);
    expect(again.text).not.to.include('folder-secret-value');
  });
});

describe('Git sources stay inside their environment', function () {
  this.timeout(90_000);
  let svc: TestService;
  let admin: HttpClient;
  let repo: TestRepo;
  let env: { id: string; name: string };
  const DATABASE_URL_VALUE = 'postgres://stevedore:controller-db-pw-91ab@db.internal/stevedore';

  const statusOf = async (id: string) => (await admin.get(`/api/environments/${id}/manifests-source/status`)).body;
  const settled = (id: string, what: string, pred: (st: any) => boolean) => until(what, async () => {
    const st = await statusOf(id);
    return st.sync !== 'Syncing' && pred(st) && st;
  }, { timeoutMs: 30_000, everyMs: 100 });
  const image = (name: string, imageName: string) => doc('ContainerImage', name, `  imageName: ${imageName}\n`, env.name);
  const commitAndSync = async (files: Record<string, string | null>) => {
    const sha = repo.commit(files);
    expect((await admin.post(`/api/environments/${env.id}/manifests-source/sync`, {})).status).to.equal(202);
    return settled(env.id, `commit ${sha.slice(0, 7)} tried`, (st) => st.lastAttempt?.commit === sha);
  };

  before(async () => {
    process.env.STEVEDORE_TRUST_DATABASE_URL = DATABASE_URL_VALUE;
    // every folder of the temporary folder may be read, the test services' state dirs among them:
    // what keeps the caches out is the state-dir rule alone
    svc = await startTestService({ GIT_FILE_ROOTS: tmpdir() });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    repo = createRepo();
    repo.commit({ 'base.yaml': image('base', 'registry.example/base') });
    expect((await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, pollIntervalSec: 0, prune: true })).status).to.equal(200);
    await settled(env.id, 'the first commit applied', (st) => st.sync === 'Synced');
  });
  after(async () => {
    delete process.env.STEVEDORE_TRUST_DATABASE_URL;
    await svc?.stop();
    repo?.remove();
  });

  it('a commit reading the controller (valueFrom file or env, ${env:NAME}) fails naming file and line; nothing is stored', async () => {
    const before = (await admin.get(`/api/environments/${env.id}/secrets`)).body.items;
    const st = await commitAndSync({
      'shadow.yaml': doc('Secret', 'SHADOW', '  valueFrom: {file: /etc/shadow}\n', env.name),
      'key.yaml': doc('Secret', 'KEY', '  valueFrom: {env: SECRETS_KEY}\n', env.name),
      'db.yaml': doc('Var', 'DB', '  value: "${env:STEVEDORE_TRUST_DATABASE_URL}"\n', env.name),
    });
    expect(st.sync).to.equal('Failed');
    expect(st.errors.map((e: any) => `${e.file}:${e.line}:${e.path}`)).to.deep.equal(['db.yaml:5:', 'key.yaml:5:spec/valueFrom', 'shadow.yaml:5:spec/valueFrom']);
    expect(st.errors.every((e: any) => /manifests from a Git source cannot read/.test(e.message))).to.equal(true);
    expect(JSON.stringify(st)).not.to.include('controller-db-pw-91ab');
    expect((await admin.get(`/api/environments/${env.id}/secrets`)).body.items).to.deep.equal(before);
    expect((await admin.get(`/api/environments/${env.id}/vars`)).body.items).to.deep.equal([]);
    const events = await svc.services.db('events').where({ type: 'manifests.sync_failed' });
    expect(events.length).to.be.greaterThan(0);
    expect(JSON.stringify(events)).not.to.include('controller-db-pw-91ab');
    expect(svc.logs.join('\n')).not.to.include('controller-db-pw-91ab');
    repo.commit({ 'shadow.yaml': null, 'key.yaml': null, 'db.yaml': null });
  });

  it('a commit cannot make a server of the controller\'s own machine (dockerMode: socket); nothing is stored', async () => {
    const st = await commitAndSync({
      'host.yaml': doc('Server', 'controller-host', '  hostname: 127.0.0.1\n  dockerMode: socket\n', env.name),
    });
    expect(st.sync).to.equal('Failed');
    expect(st.errors.map((e: any) => `${e.file}:${e.path}`)).to.deep.equal(['host.yaml:spec/dockerMode']);
    expect(st.errors[0].message).to.include('manifests from a Git source cannot ask for it');
    expect((await admin.get(`/api/environments/${env.id}/servers`)).body.items).to.deep.equal([]);
    repo.commit({ 'host.yaml': null });
  });

  it('file:// URLs outside GIT_FILE_ROOTS, or none listed, are refused when the source is saved', async () => {
    const other = await createEnvironment(admin);
    const outside = mkdtempSync(join('/var/tmp', 'stevedore-outside-'));
    try {
      const res = await admin.put(`/api/environments/${other.id}/manifests-source`, { url: `file://${outside}` });
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'url' });
      expect(res.body.message).to.include('outside the folders Git sources may read (GIT_FILE_ROOTS');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    const none = await startTestService({ GIT_FILE_ROOTS: '' });
    try {
      const noneAdmin = await bootstrapAdmin(none.http);
      const e = await createEnvironment(noneAdmin);
      const res = await noneAdmin.put(`/api/environments/${e.id}/manifests-source`, { url: repo.url });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.include('GIT_FILE_ROOTS is not set');
      expect((await noneAdmin.get(`/api/environments/${e.id}/manifests-source`)).status).to.equal(404);
    } finally {
      await none.stop();
    }
  });

  it('another environment\'s Git cache is unreachable by path, by commit id, through a symlink or `..`', async () => {
    const source = (await admin.get(`/api/environments/${env.id}/manifests-source`)).body;
    const cache = join(svc.stateDir, 'git-cache', source.id);
    const commit = (await statusOf(env.id)).revision.commit;
    const thief = await createEnvironment(admin);
    const link = join(TEST_GIT_ROOT, `cache-link-${Date.now()}`);
    symlinkSync(cache, link);
    try {
      for (const url of [`file://${cache}`, `file://${TEST_GIT_ROOT}/../${relative(tmpdir(), cache)}`, `file://${link}`, `file://${svc.stateDir}`]) {
        const res = await admin.put(`/api/environments/${thief.id}/manifests-source`, { url, ref: commit, pollIntervalSec: 0 });
        expect(res.status, url).to.equal(400);
        expect(res.body.message, url).to.include('the controller\'s state dir');
      }
      expect((await admin.get(`/api/environments/${thief.id}/manifests-source`)).status).to.equal(404);
    } finally {
      rmSync(link, { force: true });
    }
  });

  it('checked again at fetch time: a symlink turned to the state dir after the source was saved fetches nothing', async () => {
    const source = (await admin.get(`/api/environments/${env.id}/manifests-source`)).body;
    const cache = join(svc.stateDir, 'git-cache', source.id);
    const thief = await createEnvironment(admin);
    const link = join(TEST_GIT_ROOT, `moving-link-${Date.now()}`);
    symlinkSync(repo.bare, link);
    try {
      expect((await admin.put(`/api/environments/${thief.id}/manifests-source`, { url: `file://${link}`, pollIntervalSec: 0 })).status).to.equal(200);
      const first = await settled(thief.id, 'the honest repository fetched', (st) => !!st.lastAttempt);
      rmSync(link);
      symlinkSync(cache, link);
      expect((await admin.post(`/api/environments/${thief.id}/manifests-source/sync`, {})).status).to.equal(202);
      const st = await settled(thief.id, 'the moved link refused', (x) => x.lastAttempt?.at !== first.lastAttempt.at);
      expect(st.sync).to.equal('Failed');
      expect(st.error).to.include('the controller\'s state dir');
    } finally {
      rmSync(link, { force: true });
    }
  });

  it('never adopts an object it did not create: an API-made image of the same name is a conflict naming its owner', async () => {
    const made = await admin.post(`/api/environments/${env.id}/container-images`, { imageName: 'registry.example/api-made' });
    expect(made.status, made.text).to.equal(201);
    const st = await commitAndSync({ 'taken.yaml': image('taken', 'registry.example/api-made') });
    expect(st.sync).to.equal('Failed');
    expect(st.errors).to.have.length(1);
    expect(st.errors[0]).to.include({ file: 'taken.yaml', line: 1 });
    expect(st.errors[0].message).to.equal(`conflict: ContainerImage 'registry.example/api-made' of environment ${env.name} already exists, made through the API; `
      + 'this source did not create it and never takes it over (rename it in the repository, or delete the existing one first)');
    const row = await svc.services.db('container_images').where({ id: made.body.id }).first();
    expect(row.source).to.deep.equal({ kind: 'api' });
    // the API keeps it: its fields stay writable
    expect((await admin.patch(`/api/container-images/${made.body.id}`, { autoUpdate: true })).status).to.equal(200);
    repo.commit({ 'taken.yaml': null });
  });

  it('a prune another object blocks says in words which one still uses it', async () => {
    const images = (await admin.get(`/api/environments/${env.id}/container-images`)).body.items;
    const base = images.find((i: any) => i.imageName === 'registry.example/base');
    const svcRes = await admin.post(`/api/environments/${env.id}/services`, { name: 'uses-base', containerImageId: base.id, imageTag: 'v1' });
    expect(svcRes.status, svcRes.text).to.equal(201);
    const st = await commitAndSync({ 'base.yaml': null });
    expect(st.sync).to.equal('Failed');
    const text = JSON.stringify(st);
    expect(text).not.to.match(/foreign key|violates|constraint|still referenced/i);
    expect(st.errors.map((e: any) => e.file)).to.deep.equal(['base.yaml']);
    expect(st.errors[0].message).to.equal("cannot delete ContainerImage 'registry.example/base' (no manifest declares it any more, and prune is on): "
      + "Service 'uses-base' still uses it; change or delete that first, or declare it again");
    expect(st.error).to.include("Service 'uses-base' still uses it");
    expect((await admin.get(`/api/container-images/${base.id}`)).status, 'nothing of the commit was applied').to.equal(200);
  });
});
