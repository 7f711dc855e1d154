// Manifests are data (issue 34, docs/security.md): sent to the API, they name nothing of the
// controller's own (its environment, its files); secrets come from a Secret of the manifest's own
// environment (valueFrom.secretRef); answers never echo a value the apply resolved. The watched
// folder (MANIFESTS_DIR), whose author has the controller's machine, keeps reading both.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin } from '../support/fixtures.js';
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
