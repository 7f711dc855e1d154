import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import { createImage, createService, expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { checkedFetch } from '../support/openapi-check.js';

const RESERVED = ['/proc/self/environ', '/sys/kernel/notes', '/dev/null', '/etc/hostname', '/etc/hosts', '/etc/resolv.conf', '/proc'];

/** An environment with one server, for a manifest folder that names it. */
const folder = (service: string) => [
  { path: 'env.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: paths}\nspec: {}\n' },
  { path: 'image.yaml', content: 'apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: paths}\nspec: {imageName: registry.local/acme/web}\n' },
  { path: 'svc.yaml', content: `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: api, environment: paths}\nspec:\n  image: web\n  imageTag: v1\n${service}` },
];

describe('container paths the kernel and Docker own, and names that become paths', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let envId: string;
  let imageId: string;
  let serviceId: string;
  let fileId: string;

  before(async () => {
    ({ svc, admin, operator, envId } = await startWithRoles());
    imageId = (await createImage(admin, envId, 'registry.local:5000/acme/paths')).id;
    serviceId = (await createService(operator, envId, { containerImageId: imageId })).id;
    const f = await operator.post(`/api/environments/${envId}/config-files`, { name: 'app.conf', content: 'a=1\n' });
    expect(f.status, f.text).to.equal(201);
    fileId = f.body.id;
  });
  after(() => svc.stop());

  it('a config-file attachment may not target /proc, /sys, /dev or a file Docker mounts: 400 on targetPath, on create and PATCH', async () => {
    for (const targetPath of RESERVED) {
      const res = await operator.post(`/api/config-files/${fileId}/attachments`, { serviceId, targetPath });
      expectError(res, 400, 'VALIDATION_ERROR', 'targetPath');
      expect(res.body.message).to.include(targetPath);
      expect(res.body.hint).to.be.a('string');
    }
    const ok = await operator.post(`/api/config-files/${fileId}/attachments`, { serviceId, targetPath: '/etc/paths/app.conf' });
    expect(ok.status, ok.text).to.equal(201);
    expectError(await operator.patch(`/api/config-attachments/${ok.body.id}`, { targetPath: '/proc/self/environ' }), 400, 'VALIDATION_ERROR', 'targetPath');
    expect((await operator.get(`/api/config-attachments/${ok.body.id}`)).body.targetPath).to.equal('/etc/paths/app.conf');
  });

  it('a service volume may not mount onto them either: 400 naming the volume, on create and PATCH', async () => {
    const res = await operator.post(`/api/environments/${envId}/services`, { name: 'vols', containerImageId: imageId, volumes: ['data:/data', 'x:/sys/fs/cgroup'] });
    expectError(res, 400, 'VALIDATION_ERROR', 'volumes.1');
    expect(res.body.message).to.include('/sys/fs/cgroup');
    expectError(await operator.patch(`/api/services/${serviceId}`, { volumes: ['/etc/resolv.conf'] }), 400, 'VALIDATION_ERROR', 'volumes.0');
    expect((await operator.patch(`/api/services/${serviceId}`, { volumes: ['data:/var/lib/procdata'] })).status).to.equal(200);
  });

  it('a manifest with such a target or volume is refused with the file, line and path; nothing is applied', async () => {
    const bad = folder('  volumes: ["data:/dev/shm"]\n  configFiles:\n    - {name: app.conf, targetPath: /proc/self/environ}\n');
    bad.push({ path: 'file.yaml', content: 'apiVersion: stevedore/v1\nkind: ConfigFile\nmetadata: {name: app.conf, environment: paths}\nspec: {content: "a=1"}\n' });
    const diff = await operator.post('/api/manifests/diff', { files: bad });
    expect(diff.status, diff.text).to.equal(200);
    expect(diff.body.ok).to.equal(false);
    const paths = diff.body.errors.map((e: { file: string; path: string }) => `${e.file}:${e.path}`);
    expect(paths).to.include.members(['svc.yaml:spec/volumes/0', 'svc.yaml:spec/configFiles/0/targetPath']);
    const apply = await admin.post('/api/manifests/apply', { files: bad });
    expectError(apply, 400, 'VALIDATION_ERROR');
    expect((await admin.get('/api/environments')).body.items.map((e: { name: string }) => e.name)).not.to.include('paths');
  });

  it('a config file may not be named . or .. (create, PATCH and asset upload)', async () => {
    for (const name of ['..', '.']) {
      expectError(await operator.post(`/api/environments/${envId}/config-files`, { name, content: 'x' }), 400, 'VALIDATION_ERROR', 'name');
      expectError(await operator.patch(`/api/config-files/${fileId}`, { name }), 400, 'VALIDATION_ERROR', 'name');
      const form = new FormData();
      form.append('name', name);
      form.append('file', new Blob([new Uint8Array([1, 2, 3])]), 'key.bin');
      const res = await checkedFetch(`${svc.url}/api/environments/${envId}/config-files/assets`, { method: 'POST', body: form, headers: { authorization: `Bearer ${operator.token}` } });
      expect(res.status, name).to.equal(400);
    }
    expect((await operator.post(`/api/environments/${envId}/config-files`, { name: '..hidden.conf', content: 'x' })).status).to.equal(201);
  });
});
