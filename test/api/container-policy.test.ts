// The container policy of an environment (DECISIONS.md, Wave 4): operations settings
// containerPolicy (baseline | privileged) and allowedHostPaths, admin only; refusals are 400
// VALIDATION_ERROR naming the field and the policy, and change nothing.
import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startWithRoles, userWithRole } from '../support/fixtures.js';
import { createImage, createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

const POLICY = 'the container policy baseline of this environment refuses it';

const template = (lines: string) => `services:\n  web:\n    image: x\n${lines}`;

describe('container policy per environment', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let imageId: string;
  let serviceId: string;
  const ops = () => `/api/environments/${envId}/settings/operations`;
  const serviceNames = async () => (await admin.get(`/api/environments/${envId}/services`)).body.items.map((x: { name: string }) => x.name);

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    imageId = (await createImage(admin, envId, 'registry.local:5000/acme/policy')).id;
    serviceId = (await createService(operator, envId, { containerImageId: imageId, name: 'web', volumes: ['data:/data'] })).id;
  });
  after(() => svc.stop());

  afterEach(async () => {
    expect((await admin.patch(ops(), { containerPolicy: 'baseline', allowedHostPaths: [] })).status).to.equal(200);
  });

  it('is baseline with no allowed host paths by default, and only an admin of the environment changes it', async () => {
    expect((await admin.get(ops())).body).to.deep.include({ containerPolicy: 'baseline', allowedHostPaths: [] });
    // a global admin lowered to operator in this environment is not its admin
    const lowered = await userWithRole(admin, 'admin');
    expect((await admin.put(`/api/environments/${envId}/members/${lowered.user.id}`, { role: 'operator' })).status).to.equal(200);
    for (const [who, client] of [['operator', operator], ['viewer', viewer], ['lowered admin', lowered.client]] as const) {
      const res = await client.patch(ops(), { containerPolicy: 'privileged' });
      expect(res.status, `${who}: ${res.text}`).to.equal(403);
      expect((await client.patch(ops(), { allowedHostPaths: ['/'] })).status, who).to.equal(403);
      expect((await client.post(`${ops()}/reset`, {})).status, who).to.equal(403);
    }
    expect((await admin.get(ops())).body).to.deep.include({ containerPolicy: 'baseline', allowedHostPaths: [] });
    for (const bad of [{ containerPolicy: 'root' }, { allowedHostPaths: ['relative/path'] }, { allowedHostPaths: ['/a b'] }, { allowedHostPaths: '/srv' }]) {
      expectError(await admin.patch(ops(), bad), 400, 'VALIDATION_ERROR');
    }
    const set = await admin.patch(ops(), { containerPolicy: 'privileged', allowedHostPaths: ['/var/run/docker.sock'] });
    expect(set.status, set.text).to.equal(200);
    expect(set.body).to.deep.include({ containerPolicy: 'privileged', allowedHostPaths: ['/var/run/docker.sock'], driftPolicy: 'warn' });
  });

  it("refuses the issue's attack on create, legacy create and PATCH: 400 on the volume, naming the policy; nothing changes", async () => {
    const attack = { name: 'rooted', containerImageId: imageId, imageTag: 'v1', volumes: ['/:/host', '/var/run/docker.sock:/var/run/docker.sock'] };
    const created = await operator.post(`/api/environments/${envId}/services`, attack);
    expectError(created, 400, 'VALIDATION_ERROR', 'volumes.0');
    expect(created.body.message).to.include("the host path / is the server's whole filesystem").and.include(POLICY);
    expect(created.body.hint).to.include('allowedHostPaths');
    const socketOnly = await operator.post(`/api/environments/${envId}/services`, { ...attack, volumes: ['data:/d', '/var/run/docker.sock:/s'] });
    expectError(socketOnly, 400, 'VALIDATION_ERROR', 'volumes.1');
    expect(socketOnly.body.message).to.include('the Docker socket').and.include(POLICY);
    const server = await insertServer(svc, envId);
    expectError(await operator.post(`/api/environments/${envId}/services/with-deployment`, { ...attack, serverId: server.id }), 400, 'VALIDATION_ERROR', 'volumes.0');
    expect(await serviceNames()).to.deep.equal(['web']);
    for (const volumes of [['/etc:/e'], ['/root/.ssh:/k'], ['//var//run//:/r'], ['/var/lib/docker/volumes:/v']]) {
      const res = await operator.patch(`/api/services/${serviceId}`, { volumes });
      expectError(res, 400, 'VALIDATION_ERROR', 'volumes.0');
      expect(res.body.message, volumes[0]).to.include(POLICY);
    }
    const after = (await operator.get(`/api/services/${serviceId}`)).body;
    expect(after).to.deep.include({ volumes: ['data:/data'], generation: 1 });
  });

  it('refuses in a compose template (PUT compose and PATCH) each field baseline refuses; nothing changes', async () => {
    const refused: Array<[string, string]> = [
      ['    privileged: true\n', 'services.web.privileged'],
      ['    network_mode: host\n', 'services.web.network_mode'],
      ['    pid: host\n', 'services.web.pid'],
      ['    ipc: host\n', 'services.web.ipc'],
      ['    cap_add: [SYS_ADMIN]\n', 'services.web.cap_add.0'],
      ['    devices: ["/dev/sda:/dev/sda"]\n', 'services.web.devices'],
      ['    security_opt: ["seccomp:unconfined"]\n', 'services.web.security_opt.0'],
      ['    security_opt: ["apparmor:unconfined"]\n', 'services.web.security_opt.0'],
      ['    volumes: ["/:/host"]\n', 'services.web.volumes.0'],
      ['    volumes:\n      - {type: bind, source: /var/run/docker.sock, target: /s}\n', 'services.web.volumes.0.source'],
    ];
    for (const [lines, where] of refused) {
      const put = await operator.put(`/api/services/${serviceId}/compose`, { composeTemplate: template(lines) });
      expectError(put, 400, 'VALIDATION_ERROR', 'composeTemplate');
      expect(put.body.message, lines).to.include(`composeTemplate: ${where}:`).and.include(POLICY);
      const patch = await operator.patch(`/api/services/${serviceId}`, { composeTemplate: template(lines) });
      expectError(patch, 400, 'VALIDATION_ERROR', 'composeTemplate');
    }
    expect((await operator.get(`/api/services/${serviceId}/compose`)).body.composeTemplate).to.equal(null);
    const ok = await operator.put(`/api/services/${serviceId}/compose`, { composeTemplate: template('    cap_add: [NET_BIND_SERVICE]\n    volumes: ["data:/data", "/srv/web:/srv"]\n') });
    expect(ok.status, ok.text).to.equal(200);
    expect((await operator.delete(`/api/services/${serviceId}/compose`)).status).to.equal(204);
  });

  it('privileged allows them; allowedHostPaths allows the listed prefixes under baseline and nothing else', async () => {
    expect((await admin.patch(ops(), { allowedHostPaths: ['/var/run/docker.sock'] })).status).to.equal(200);
    const socket = await operator.patch(`/api/services/${serviceId}`, { volumes: ['/var/run/docker.sock:/var/run/docker.sock'] });
    expect(socket.status, socket.text).to.equal(200);
    expectError(await operator.patch(`/api/services/${serviceId}`, { volumes: ['/:/host'] }), 400, 'VALIDATION_ERROR', 'volumes.0');
    expect((await admin.patch(ops(), { containerPolicy: 'privileged' })).status).to.equal(200);
    const rooted = await operator.patch(`/api/services/${serviceId}`, { volumes: ['/:/host'], composeTemplate: template('    privileged: true\n    network_mode: host\n') });
    expect(rooted.status, rooted.text).to.equal(200);
    expect((await operator.patch(`/api/services/${serviceId}`, { volumes: ['data:/data'], composeTemplate: null })).status).to.equal(200);
  });

  it('a manifest is held to the policy its apply leaves the environment with, with file, line and path; nothing is applied', async () => {
    const env = (settings: string) => ({ path: 'env.yaml', content: `apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: policed}\nspec:${settings}\n` });
    const files = (settings: string) => [
      env(settings),
      { path: 'image.yaml', content: 'apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: policed}\nspec: {imageName: registry.local/acme/web}\n' },
      { path: 'svc.yaml', content: 'apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: api, environment: policed}\nspec:\n  image: web\n  imageTag: v1\n  volumes:\n    - data:/data\n    - /:/host\n' },
    ];
    const diff = await admin.post('/api/manifests/diff', { files: files(' {}') });
    expect(diff.status, diff.text).to.equal(200);
    expect(diff.body.ok).to.equal(false);
    expect(diff.body.errors).to.have.length(1);
    expect(diff.body.errors[0]).to.deep.include({ file: 'svc.yaml', line: 9, path: 'spec/volumes/1' });
    expect(diff.body.errors[0].message).to.include(POLICY);
    expectError(await admin.post('/api/manifests/apply', { files: files(' {}') }), 400, 'VALIDATION_ERROR');
    expect((await admin.get('/api/environments')).body.items.map((e: { name: string }) => e.name)).not.to.include('policed');
    // the same apply may make its environment privileged (an admin's apply; a Git source holds no Environment)
    const applied = await admin.post('/api/manifests/apply', { files: files('\n  settings:\n    operations: {containerPolicy: privileged}') });
    expect(applied.status, applied.text).to.equal(200);
    // tightened by the next apply: a service it leaves as it is waits for its next plan (as the API's checks of what a
    // request writes); one whose volumes it changes is refused under the tightened policy
    const tightened = files('\n  settings:\n    operations: {containerPolicy: baseline}');
    const kept = await admin.post('/api/manifests/apply', { files: tightened });
    expect(kept.status, kept.text).to.equal(200);
    tightened[2].content = tightened[2].content.replace('- data:/data', '- data:/var/data');
    const changed = await admin.post('/api/manifests/diff', { files: tightened });
    expect(changed.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['spec/volumes/1']);
  });
});
