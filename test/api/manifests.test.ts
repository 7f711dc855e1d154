import { newSshKeyPair } from '../support/ssh-key.js';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { edit, exampleFiles, forApi, seedSecrets } from '../support/manifest-files.js';
import type { ManifestFile } from '../../controller/manifests/types.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs bin/stevedore.js with a folder; resolves to its exit code and output (never a TTY). */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [new URL('../../bin/stevedore.js', import.meta.url).pathname, ...args], { env: { ...process.env, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

function writeFolder(files: ManifestFile[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'manifests-'));
  for (const f of files) writeFileSync(join(dir, f.path), f.content);
  return dir;
}

describe('manifests routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let files: ManifestFile[];
  let envId: string;

  // The example folder is written for MANIFESTS_DIR: sent to the API, its ${env:…} are written out
  // and its valueFrom.env become secretRefs to Secrets stored in the environment beforehand.
  const secrets = { DEMO_REGISTRY_PASSWORD: 'registry-pw-123', DEMO_DATABASE_PASSWORD: 'db-pw-456', DEMO_SSH_PRIVATE_KEY: newSshKeyPair().private };
  const plain = { DEMO_WEB1_HOST: '192.0.2.11', DEMO_WEB2_HOST: '192.0.2.12', DEMO_REGISTRY: 'registry.example:5000', DEMO_REGISTRY_USERNAME: 'stevedore' };

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    files = forApi(await exampleFiles(), plain);
    envId = await seedSecrets(admin, 'demo', secrets);
  });
  after(() => svc.stop());

  it('diff of a new folder lists every object as a create (the environment holding its secrets as taken over) and writes nothing', async () => {
    const res = await admin.post('/api/manifests/diff', { files });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ok).to.equal(true);
    // the environment (made beforehand to hold the secrets) is taken over, everything else is new
    expect(res.body.counts).to.deep.equal({ create: 13, update: 1, delete: 0, orphan: 0 });
    const secret = res.body.changes.find((c: any) => c.kind === 'Secret');
    expect(secret.fields).to.deep.include({ field: 'value', secret: true });
    expect(res.text).not.to.include('db-pw-456');
    expect(res.text).not.to.include('registry-pw-123');
    expect((await admin.get(`/api/environments/${envId}/services`)).body.total).to.equal(0);
  });

  it('apply creates the objects with their manifest source and audits each with the file', async () => {
    const res = await admin.post('/api/manifests/apply', { files });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.counts.create).to.equal(13);
    expect(res.body.plans, 'one deploy plan for the environment').to.have.length(1);
    const plan = await svc.services.db('deployment_plans').where({ id: res.body.plans[0] }).first();
    expect(plan.trigger).to.equal('manifest');
    const env = (await admin.get('/api/environments')).body.items.find((e: any) => e.name === 'demo');
    expect(env.id).to.equal(envId);
    expect(env.source).to.include({ kind: 'manifest', path: 'environment.yaml' });
    const services = await admin.get(`/api/environments/${envId}/services`);
    const api = services.body.items.find((s: any) => s.name === 'api');
    expect(api.imageTag).to.equal('v1');
    expect(api.deployments).to.have.length(2);
    expect(api.source).to.include({ kind: 'manifest', path: 'services.yaml' });
    const audit = await svc.services.db('audit_logs').where({ action: 'manifest.create' });
    expect(audit).to.have.length(13);
    expect(audit.every((a: any) => a.details.source === 'manifest' && typeof a.details.path === 'string')).to.equal(true);
    const row = await svc.services.db('environments').where({ id: envId }).first();
    expect(row.sshKeyFingerprint).to.match(/^SHA256:/);
    const sshKey = await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: secrets.DEMO_SSH_PRIVATE_KEY });
    expect(sshKey.status, sshKey.text).to.equal(409);
    expect(sshKey.body.hint).to.include('environment.yaml');
    const sealed = await svc.services.db('secrets').where({ key: 'DATABASE_PASSWORD' }).first('valueSealed');
    expect(sealed.valueSealed).not.to.include('db-pw-456');
    expect(JSON.stringify(audit)).not.to.include('db-pw-456');
  });

  it('applying the same folder twice changes nothing and audits nothing', async () => {
    const before = await svc.services.db('audit_logs').count({ n: '*' });
    const res = await admin.post('/api/manifests/apply', { files });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.changes).to.deep.equal([]);
    expect(res.body.plans).to.deep.equal([]);
    expect(await svc.services.db('audit_logs').count({ n: '*' })).to.deep.equal(before);
  });

  it('a changed tag is an update of that one field', async () => {
    const changed = edit(files, 'services.yaml', 'imageTag: v1               #', 'imageTag: v2               #');
    const res = await admin.post('/api/manifests/diff', { files: changed });
    expect(res.body.changes).to.deep.equal([{
      action: 'update', kind: 'Service', environment: 'demo', name: 'api', path: 'services.yaml', fields: [{ field: 'imageTag', from: 'v1', to: 'v2' }],
    }]);
  });

  it('a changed var is deployed to the services that use it', async () => {
    const res = await admin.post('/api/manifests/diff', { files: edit(files, 'config.yaml', '  value: info', '  value: debug') });
    expect(res.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name}`)).to.deep.equal(['update Var LOG_LEVEL']);
    const applied = await admin.post('/api/manifests/apply', { files: edit(files, 'config.yaml', '  value: info', '  value: debug') });
    expect(applied.body.plans).to.have.length(1);
    const steps = await svc.services.db('plan_steps as p').join('services as s', 's.id', 'p.service_id').where('p.plan_id', applied.body.plans[0]).distinct('s.name');
    expect(steps.map((r: any) => r.name)).to.deep.equal(['api']);
    expect((await admin.post('/api/manifests/apply', { files })).body.plans).to.have.length(1);
  });

  it('an API write to a manifest-owned field is 409 CONFLICT naming the file; other fields stay writable', async () => {
    const server = (await admin.get(`/api/environments/${envId}/services`)).body.items.find((s: any) => s.name === 'web');
    const res = await admin.patch(`/api/services/${server.id}`, { imageTag: 'v9' });
    expect(res.status, res.text).to.equal(409);
    expect(res.body.code).to.equal('CONFLICT');
    expect(res.body.hint).to.include('services.yaml');
    const settings = await admin.patch(`/api/environments/${envId}/settings/general`, { sshUser: 'deploy' });
    expect(settings.status).to.equal(409);
    expect(settings.body.hint).to.include('environment.yaml');
    const other = await admin.patch(`/api/environments/${envId}/settings/data`, { allowBackupDownload: true });
    expect(other.status, other.text).to.equal(200);
    const del = await admin.delete(`/api/environments/${envId}`);
    expect(del.status).to.equal(409);
    const logLevel = (await admin.get(`/api/environments/${envId}/vars`)).body.items.find((v: any) => v.key === 'LOG_LEVEL');
    const varPatch = await admin.patch(`/api/vars/${logLevel.id}`, { value: 'debug' });
    expect(varPatch.status, varPatch.text).to.equal(409);
    expect(varPatch.body.hint).to.include('config.yaml');
    const api = (await admin.get(`/api/environments/${envId}/services`)).body.items.find((s: any) => s.name === 'api');
    const depDelete = await admin.delete(`/api/services/${api.id}/deployments/${api.deployments[0].id}`);
    expect(depDelete.status, depDelete.text).to.equal(409);
    expect(depDelete.body.hint).to.include('services.yaml');
  });

  it('a broken folder applies nothing and reports every error with file, line and path', async () => {
    let broken = edit(files, 'services.yaml', '    - server: web-2', '    - server: web-3');
    broken = edit(broken, 'config.yaml', '  value: info', '  value: info\n  colour: blue');
    broken = [...broken, { path: 'bad.yaml', content: 'kind: [\n' }];
    const keySecret = (await admin.get(`/api/environments/${envId}/secrets`)).body.items.find((x: any) => x.key === 'DEMO_SSH_PRIVATE_KEY');
    expect((await admin.patch(`/api/secrets/${keySecret.id}`, { value: 'not a key' })).status).to.equal(200);
    const res = await admin.post('/api/manifests/apply', { files: broken });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.code).to.equal('VALIDATION_ERROR');
    const where = res.body.errors.map((e: any) => `${e.file}:${e.line}:${e.path}`);
    expect(where).to.include.members(['services.yaml:14:spec/deployments/1/server', 'config.yaml:8:spec/colour']);
    expect(res.body.errors.some((e: any) => e.file === 'bad.yaml')).to.equal(true);
    expect((await admin.patch(`/api/secrets/${keySecret.id}`, { value: secrets.DEMO_SSH_PRIVATE_KEY })).status).to.equal(200);
    expect(where).to.include('environment.yaml:13:spec/sshPrivateKey/valueFrom');
    expect(res.text).not.to.include('not a key');
    const status = await admin.get('/api/manifests/status');
    expect(status.body.lastAttempted.ok).to.equal(false);
    expect(status.body.lastApplied.ok).to.equal(true);
  });

  it('a removed object is reported orphaned, and deleted only with prune', async () => {
    // the topology's Connection names the api service: it goes with it
    const without = files.filter((f) => f.path !== 'services.yaml' && f.path !== 'topology.yaml');
    const orphan = await admin.post('/api/manifests/apply', { files: without });
    expect(orphan.status, orphan.text).to.equal(200);
    expect(orphan.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name}`)).to.have.members([
      'orphan Service api', 'orphan Service web', 'orphan ServerCluster web', 'orphan ExternalEntity payments', 'orphan Connection api-to-payments',
    ]);
    expect((await admin.get(`/api/environments/${envId}/services`)).body.total).to.equal(2);
    const pruned = await admin.post('/api/manifests/apply', { files: without, prune: true });
    expect(pruned.body.counts.delete).to.equal(5);
    expect((await admin.get(`/api/environments/${envId}/services`)).body.total).to.equal(0);
    const back = await admin.post('/api/manifests/apply', { files });
    expect(back.body.counts.create).to.equal(5);
  });

  it('operators may diff but not apply; viewers may read the status', async () => {
    const { client: operator } = await userWithRole(admin, 'operator');
    expect((await operator.post('/api/manifests/diff', { files })).status).to.equal(200);
    expect((await operator.post('/api/manifests/apply', { files })).status).to.equal(403);
    const { client: viewer } = await userWithRole(admin, 'viewer');
    expect((await viewer.get('/api/manifests/status')).status).to.equal(200);
  });

  it('the CLI diff exits 2 when something would change, apply 0 once applied (2 with --detailed-exitcode), without colour off a terminal', async function () {
    this.timeout(90_000); // five CLI processes (the first may build the service bundle)
    // the store holds the folder as written (runs alone too, with --grep)
    expect((await admin.post('/api/manifests/apply', { files })).status).to.equal(200);
    const dir = writeFolder(edit(files, 'registry.yaml', 'registry: local', 'registry: local\n  autoUpdate: true'));
    const env = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! };
    try {
      const diff = await cli(['diff', dir], env);
      expect(diff.code, diff.stderr).to.equal(2);
      expect(diff.stdout).to.include('~ ContainerImage demo/registry.example:5000/stevedore-test/web');
      expect(diff.stdout).to.include('autoUpdate: false -> true');
      expect(diff.stdout).not.to.include('\u001b[');
      const applied = await cli(['apply', dir], env);
      expect(applied.code, applied.stderr).to.equal(0);
      expect(applied.stdout).to.include('Applied revision');
      const again = await cli(['apply', dir, '--detailed-exitcode'], env);
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.include('No changes');
      writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: lower, environment: demo}\nspec: {value: x}\n');
      const bad = await cli(['apply', dir, '--url', svc.url], { STEVEDORE_TOKEN: admin.token! });
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.include('broken.yaml:3:');
      expect((await cli(['validate', dir], {})).code).to.equal(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
