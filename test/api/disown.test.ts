// POST /api/{kind}/{id}/disown: the escape hatch from a manifest applied once (`stevedore apply
// FILE`), whose fields otherwise answer 409 to every API write for good. Admin only, audited;
// refused for what no manifest owns and for what a Git source applies (it would take it back).
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { until } from '../support/until.js';

const manifest = (env: string) => [
  'apiVersion: stevedore/v1', 'kind: Var', `metadata: {name: OWNED, environment: ${env}}`, 'spec: {value: "1"}', '---',
  'apiVersion: stevedore/v1', 'kind: Server', `metadata: {name: nowhere, environment: ${env}}`, 'spec: {hostname: 127.0.0.1, sshPort: 1}', '---',
  'apiVersion: stevedore/v1', 'kind: ContainerImage', `metadata: {name: web, environment: ${env}}`, 'spec: {imageName: registry.test:5000/acme/web}', '---',
  'apiVersion: stevedore/v1', 'kind: Service', `metadata: {name: web, environment: ${env}}`, 'spec: {image: web, imageTag: v1, deployments: [{server: nowhere}]}', '',
].join('\n');

describe('POST /api/{kind}/{id}/disown', function () {
  this.timeout(60_000);
  let w: RoleWorld;
  const byName = async (path: string, name: string) =>
    (await w.admin.get(`/api/environments/${w.envId}/${path}?limit=200`)).body.items.find((x: { name?: string; key?: string }) => (x.name ?? x.key) === name);

  before(async () => {
    w = await startWithRoles({ SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    const applied = await w.admin.post('/api/manifests/apply', { files: [{ path: 'demo.yaml', content: manifest(w.env.name) }] });
    expect(applied.status, applied.text).to.equal(200);
  });
  after(() => w.svc.stop());

  it('releases a service and its deployments: deploy --tag and PATCH work again; audited; a second disown is 409', async () => {
    const web = await byName('services', 'web');
    const refused = await w.admin.post(`/api/services/${web.id}/deploy`, { imageTag: 'v9' });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body.message).to.include('managed by the manifest demo.yaml');
    const res = await w.admin.post(`/api/services/${web.id}/disown`, {});
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ id: web.id, environmentId: w.envId, name: 'web', manifest: 'demo.yaml' });
    expect(res.body.fields).to.include('imageTag').and.include('deployments');
    const row = await w.svc.services.db('services').where({ id: web.id }).first();
    expect(row.source).to.deep.equal({ kind: 'api' });
    const deployments = await w.svc.services.db('deployments').where({ serviceId: web.id });
    expect(deployments.map((d: { source: unknown }) => d.source)).to.deep.equal([{ kind: 'api' }]);
    const deploy = await w.admin.post(`/api/services/${web.id}/deploy`, { imageTag: 'v9' });
    expect(deploy.status, deploy.text).to.equal(202);
    const audit = (await w.admin.get(`/api/audit-logs?resourceId=${web.id}&action=disownService`)).body.items;
    expect(audit, 'one audit entry').to.have.length(1);
    expect(audit[0]).to.deep.include({ environmentId: w.envId });
    expect(audit[0].details).to.deep.include({ name: 'web', manifest: 'demo.yaml' });
    const again = await w.admin.post(`/api/services/${web.id}/disown`, {});
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal('Service web is not managed by a manifest; nothing to release');
  });

  it('reaches the other kinds by their item path (a var by its key)', async () => {
    const v = await byName('vars', 'OWNED');
    expect((await w.admin.patch(`/api/vars/${v.id}`, { value: '2' })).status).to.equal(409);
    const res = await w.admin.post(`/api/vars/${v.id}/disown`, {});
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ name: 'OWNED', manifest: 'demo.yaml' });
    expect((await w.admin.patch(`/api/vars/${v.id}`, { value: '2' })).status).to.equal(200);
  });

  it('needs admin, changes nothing when refused, and answers 404 for an unknown id', async () => {
    const server = await byName('servers', 'nowhere');
    for (const client of [w.operator, w.viewer]) {
      const res = await client.post(`/api/servers/${server.id}/disown`, {});
      expect(res.status, res.text).to.equal(403);
    }
    expect((await w.svc.services.db('servers').where({ id: server.id }).first()).source.kind).to.equal('manifest');
    expect((await w.admin.post('/api/servers/00000000-0000-4000-8000-000000000000/disown', {})).status).to.equal(404);
  });

  it('refuses what a Git source applied: its next sync would own it again', async () => {
    const image = (await w.admin.get(`/api/environments/${w.envId}/container-images`)).body.items[0];
    const source = { kind: 'manifest', path: 'images.yaml', fields: ['imageName'], origin: 'git:00000000-0000-4000-8000-000000000001', repository: 'https://git.example/ops.git', revision: 'a'.repeat(40) };
    await w.svc.services.db('container_images').where({ id: image.id }).update({ source: JSON.stringify(source) });
    const res = await w.admin.post(`/api/container-images/${image.id}/disown`, {});
    expect(res.status, res.text).to.equal(409);
    expect(res.body.message).to.include('its next sync would take it over again');
    expect(res.body.hint).to.include('https://git.example/ops.git');
    expect((await w.svc.services.db('container_images').where({ id: image.id }).first()).source).to.deep.equal(source);
  });
});

describe('POST /api/{kind}/{id}/disown on a controller that watches a manifests folder', function () {
  this.timeout(60_000);
  let w: RoleWorld;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'disown-watched-'));
    fs.writeFileSync(path.join(dir, 'env.yaml'), [
      'apiVersion: stevedore/v1', 'kind: Environment', 'metadata: {name: watched}', 'spec: {}', '---',
      'apiVersion: stevedore/v1', 'kind: Var', 'metadata: {name: FROM_FOLDER, environment: watched}', 'spec: {value: "1"}', '',
    ].join('\n'));
    w = await startWithRoles({ MANIFESTS_DIR: dir });
  });
  after(async () => {
    await w.svc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses: the folder\'s next change would take the object over again', async () => {
    const v = await until('the folder applied', async () => {
      const env = (await w.admin.get('/api/environments?limit=200')).body.items.find((e: { name: string }) => e.name === 'watched');
      return env && (await w.admin.get(`/api/environments/${env.id}/vars`)).body.items.find((x: { key: string }) => x.key === 'FROM_FOLDER');
    }, { timeoutMs: 30_000, everyMs: 200 });
    const res = await w.admin.post(`/api/vars/${v.id}/disown`, {});
    expect(res.status, res.text).to.equal(409);
    expect(res.body.message).to.equal(`Var FROM_FOLDER is applied from the watched folder ${dir} (env.yaml): its next change would take it over again`);
    expect((await w.svc.services.db('vars').where({ id: v.id }).first()).source.kind).to.equal('manifest');
  });
});
