import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { seedSecrets } from '../support/manifest-files.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

const SECRET = 'hook-signing-secret-789';
const environment: ManifestFile = { path: 'environment.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: hooks}\nspec: {}\n' };
const HEADER = 'platform-header-value-5c1e';
const hooks = (url: string, header = HEADER): ManifestFile => ({
  path: 'hooks.yaml',
  content: `apiVersion: stevedore/v1
kind: WebhookSubscription
metadata: {name: ci, environment: hooks}
spec:
  url: ${url}
  eventTypes: [deployment.failed, deployment.success]
  headers: {X-Team: ${header}}
  secret:
    valueFrom: {secretRef: HOOK_SECRET}
`,
});

describe('manifests: WebhookSubscription', () => {
  let svc: TestService;
  let admin: HttpClient;
  let envId: string;
  const folder = (url = 'https://ci.example.com/hook', header = HEADER) => [environment, hooks(url, header)];
  const subscriptions = async () => (await admin.get(`/api/environments/${envId}/webhooks`)).body.items;
  const audits = (action: string) => svc.services.db('audit_logs').where({ action, resourceType: 'webhook-subscriptions' });

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    // sent to the API, a manifest's secret comes from a Secret of its environment (made here first)
    envId = await seedSecrets(admin, 'hooks', { HOOK_SECRET: SECRET });
  });
  after(() => svc.stop());

  it('apply creates the subscription with its manifest source, a sealed secret, and an audit entry without the secret', async () => {
    const res = await admin.post('/api/manifests/apply', { files: folder() });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ok, res.text).to.equal(true);
    // the environment made to hold the secret is taken over by environment.yaml
    expect(res.body.counts).to.deep.equal({ create: 1, update: 1, delete: 0, orphan: 0 });
    expect(res.text).not.to.include(SECRET);
    const [sub, ...others] = await subscriptions();
    expect(others).to.deep.equal([]);
    expect(sub).to.include({ name: 'ci', url: 'https://ci.example.com/hook', hasSecret: true, enabled: true, environmentId: envId });
    expect(sub.eventTypes).to.deep.equal(['deployment.failed', 'deployment.success']);
    expect(sub.headers).to.deep.equal({ 'X-Team': { set: true } });
    expect(res.text).not.to.include(HEADER);
    expect(sub.source).to.deep.include({ kind: 'manifest', path: 'hooks.yaml', revision: res.body.revision.contentHash });
    expect(sub.source.fields).to.have.members(['url', 'eventTypes', 'headers', 'secret']);
    const row = await svc.services.db('webhook_subscriptions').where({ id: sub.id }).first();
    expect(row.secretEnc).to.be.a('string').and.not.include(SECRET);
    expect(svc.services.secretBox.open(row.secretEnc)).to.equal(SECRET);
    expect(JSON.stringify(row.headers)).not.to.include(HEADER);
    expect(svc.services.secretBox.open(row.headers['X-Team'])).to.equal(HEADER);
    const [audit, ...more] = await audits('manifest.create');
    expect(more).to.deep.equal([]);
    expect(audit.resourceId).to.equal(sub.id);
    expect(audit.environmentId).to.equal(envId);
    expect(audit.details).to.include({ source: 'manifest', path: 'hooks.yaml', name: 'ci' });
    expect(JSON.stringify(audit)).not.to.include(SECRET);
    expect(JSON.stringify(audit)).not.to.include(HEADER);
  });

  it('applying the same folder again changes nothing', async () => {
    const before = await subscriptions();
    const res = await admin.post('/api/manifests/apply', { files: folder() });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.changes).to.deep.equal([]);
    expect(res.body.counts).to.deep.equal({ create: 0, update: 0, delete: 0, orphan: 0 });
    expect(await subscriptions()).to.deep.equal(before);
    expect(await audits('manifest.update')).to.have.length(0);
  });

  it('API writes to manifest-owned fields are 409 naming the file; other fields stay writable', async () => {
    const [sub] = await subscriptions();
    for (const body of [{ url: 'https://other.example.com' }, { secret: 'x-other-secret' }, { eventTypes: [] }]) {
      const res = await admin.patch(`/api/webhook-subscriptions/${sub.id}`, body);
      expect(res.status, res.text).to.equal(409);
      expect(res.body.code).to.equal('CONFLICT');
      expect(res.body.hint).to.include('hooks.yaml');
    }
    const del = await admin.delete(`/api/webhook-subscriptions/${sub.id}`);
    expect(del.status, del.text).to.equal(409);
    const enabled = await admin.patch(`/api/webhook-subscriptions/${sub.id}`, { enabled: false });
    expect(enabled.status, enabled.text).to.equal(200);
    expect(enabled.body.enabled).to.equal(false);
  });

  it('a changed URL is an update of that one field, audited', async () => {
    const res = await admin.post('/api/manifests/apply', { files: folder('https://ci2.example.com/hook') });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.changes).to.deep.equal([{
      action: 'update', kind: 'WebhookSubscription', environment: 'hooks', name: 'ci', path: 'hooks.yaml',
      fields: [{ field: 'url', from: 'https://ci.example.com/hook', to: 'https://ci2.example.com/hook' }],
    }]);
    const [sub] = await subscriptions();
    expect(sub.url).to.equal('https://ci2.example.com/hook');
    expect(sub.enabled, 'a field the manifest does not set keeps its API value').to.equal(false);
    const [audit] = await audits('manifest.update');
    expect(audit.details).to.deep.include({ source: 'manifest', path: 'hooks.yaml', fields: ['url'] });
  });

  it('a plain secret in the folder is refused and nothing is applied', async () => {
    const plain = { ...hooks('https://ci3.example.com/hook'), content: hooks('https://ci3.example.com/hook').content.replace(/secret:\n.*\n/, 'secret: not-allowed\n') };
    const res = await admin.post('/api/manifests/apply', { files: [environment, plain] });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.code).to.equal('VALIDATION_ERROR');
    expect(res.body.errors.map((e: any) => `${e.file} ${e.path}`)).to.deep.equal(['hooks.yaml spec/secret']);
    expect(res.body.errors[0].message).to.match(/plain secret values are not allowed/);
    expect(res.text).not.to.include('not-allowed');
    expect((await subscriptions())[0].url).to.equal('https://ci2.example.com/hook');
  });

  it('a changed header value is an update of headers shown as secret, sealed in the row', async () => {
    // stands alone: the folder as the tests before leave it, then only the header value changes
    expect((await admin.post('/api/manifests/apply', { files: folder('https://ci2.example.com/hook') })).status).to.equal(200);
    envId = (await admin.get('/api/environments')).body.items.find((e: any) => e.name === 'hooks').id;
    const diff = await admin.post('/api/manifests/diff', { files: folder('https://ci2.example.com/hook', 'changed-header-value-77d2') });
    const res = await admin.post('/api/manifests/apply', { files: folder('https://ci2.example.com/hook', 'changed-header-value-77d2') });
    expect(res.status, res.text).to.equal(200);
    for (const r of [diff, res]) {
      expect(r.body.changes, r.text).to.deep.equal([{
        action: 'update', kind: 'WebhookSubscription', environment: 'hooks', name: 'ci', path: 'hooks.yaml', fields: [{ field: 'headers', secret: true }],
      }]);
      expect(r.text).not.to.include('changed-header-value-77d2');
    }
    const [sub] = await subscriptions();
    expect(sub.headers).to.deep.equal({ 'X-Team': { set: true } });
    const row = await svc.services.db('webhook_subscriptions').where({ id: sub.id }).first();
    expect(svc.services.secretBox.open(row.headers['X-Team'])).to.equal('changed-header-value-77d2');
  });

  it('a removed subscription is orphaned without prune and deleted with it', async () => {
    const orphan = await admin.post('/api/manifests/apply', { files: [environment], prune: false });
    expect(orphan.status, orphan.text).to.equal(200);
    expect(orphan.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name} ${c.path}`)).to.deep.equal(['orphan WebhookSubscription ci hooks.yaml']);
    expect(await subscriptions()).to.have.length(1);
    const pruned = await admin.post('/api/manifests/apply', { files: [environment], prune: true });
    expect(pruned.status, pruned.text).to.equal(200);
    expect(pruned.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name}`)).to.deep.equal(['delete WebhookSubscription ci']);
    expect(await subscriptions()).to.deep.equal([]);
    const [audit] = await audits('manifest.delete');
    expect(audit.details).to.include({ source: 'manifest', path: 'hooks.yaml' });
  });
});
