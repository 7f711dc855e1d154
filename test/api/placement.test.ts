// Server labels and services placed by serverSelector, through the API: labels validated like
// Kubernetes', lists filtered by labelSelector, and the deployment set following the selector
// (containers of servers that stop matching go through a plan of remove steps: test/e2e/progressive.test.ts).
import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import { createImage, expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('server labels and service placement by selector', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let imageId: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    imageId = (await createImage(admin, envId, 'registry.local:5000/acme/web')).id;
  });
  after(() => svc.stop());

  const server = async (name: string, labels?: Record<string, string>) => {
    const res = await admin.post(`/api/environments/${envId}/servers`, { name, hostname: `${name}.internal`, ...(labels && { labels }) });
    expect(res.status, res.text).to.equal(201);
    return res.body as { id: string; labels: Record<string, string> };
  };
  const deploymentsOf = async (id: string) => (await viewer.get(`/api/services/${id}`)).body.deployments as Array<{ serverId: string; containerName: string }>;

  it('a server carries labels, read back and listed by labelSelector', async () => {
    const a = await server('lab-a', { role: 'web', 'example.com/zone': 'a' });
    expect(a.labels).to.deep.equal({ role: 'web', 'example.com/zone': 'a' });
    const b = await server('lab-b');
    expect(b.labels).to.deep.equal({});
    const got = await viewer.get(`/api/servers/${a.id}`);
    expect(got.body.labels).to.deep.equal({ role: 'web', 'example.com/zone': 'a' });
    const listed = await viewer.get(`/api/environments/${envId}/servers?labelSelector=${encodeURIComponent('example.com/zone=a')}`);
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.items.map((x: { name: string }) => x.name)).to.deep.equal(['lab-a']);
    expect(listed.body.total).to.equal(1);
  });

  it('refuses labels Kubernetes would refuse, naming the field, and writes nothing', async () => {
    for (const labels of [{ 'bad key': 'x' }, { role: '-web' }, { ['x'.repeat(64)]: 'v' }, { 'Upper.Case/x': 'v' }, { role: 'x'.repeat(64) }]) {
      const res = await admin.post(`/api/environments/${envId}/servers`, { name: 'lab-bad', hostname: 'h.internal', labels });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.field, res.text).to.match(/^labels/);
    }
    expect((await viewer.get(`/api/environments/${envId}/servers?labelSelector=role=-web`)).status).to.equal(400);
    const list = await viewer.get(`/api/environments/${envId}/servers?limit=100`);
    expect(list.body.items.map((x: { name: string }) => x.name)).to.not.include('lab-bad');
    const bad = await viewer.get(`/api/environments/${envId}/servers?labelSelector=role`);
    expectError(bad, 400, 'VALIDATION_ERROR', 'labelSelector');
    const { id } = await server('lab-c', { role: 'db' });
    expectError(await admin.patch(`/api/servers/${id}`, { labels: { 'a b': 'c' } }), 400, 'VALIDATION_ERROR', 'labels');
    expect((await viewer.get(`/api/servers/${id}`)).body.labels).to.deep.equal({ role: 'db' });
  });

  it('labels are an admin write: 401 without a token, 403 for an operator, 404 for an unknown server', async () => {
    const { id } = await server('lab-d', { role: 'db' });
    expectError(await admin.withToken(null).patch(`/api/servers/${id}`, { labels: { role: 'web' } }), 401, 'UNAUTHORIZED');
    expectError(await operator.patch(`/api/servers/${id}`, { labels: { role: 'web' } }), 403, 'FORBIDDEN_ROLE');
    expectError(await admin.patch('/api/servers/00000000-0000-4000-8000-000000000000', { labels: { role: 'web' } }), 404, 'NOT_FOUND');
    expect((await viewer.get(`/api/servers/${id}`)).body.labels).to.deep.equal({ role: 'db' });
  });

  it('a service with serverSelector gets a deployment on every matching server, and follows relabelling', async () => {
    const env = (await admin.post('/api/environments', { name: `placement-${Date.now()}` })).body.id as string;
    const img = (await createImage(admin, env, 'registry.local:5000/acme/sel')).id;
    const mk = async (name: string, labels: Record<string, string>) =>
      (await admin.post(`/api/environments/${env}/servers`, { name, hostname: `${name}.internal`, labels })).body.id as string;
    const s1 = await mk('s1', { role: 'web' });
    const s2 = await mk('s2', { role: 'web', zone: 'b' });
    const s3 = await mk('s3', { role: 'db' });
    const created = await operator.post(`/api/environments/${env}/services`, {
      name: 'front', containerImageId: img, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.serverSelector).to.deep.equal({ matchLabels: { role: 'web' } });
    expect(created.body.deployments.map((d: { serverId: string }) => d.serverId).sort()).to.deep.equal([s1, s2].sort());
    expect(created.body.deployments.every((d: { containerName: string }) => d.containerName === 'front')).to.equal(true);

    // s3 starts matching: it gets a deployment; s1 stops: it loses its (never deployed) deployment
    expect((await admin.patch(`/api/servers/${s3}`, { labels: { role: 'web' } })).status).to.equal(200);
    expect((await admin.patch(`/api/servers/${s1}`, { labels: { role: 'cache' } })).status).to.equal(200);
    expect((await deploymentsOf(created.body.id)).map((d) => d.serverId).sort()).to.deep.equal([s2, s3].sort());

    // a narrower selector drops s3
    const patched = await operator.patch(`/api/services/${created.body.id}`, { serverSelector: { matchLabels: { role: 'web', zone: 'b' } } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.deployments.map((d: { serverId: string }) => d.serverId)).to.deep.equal([s2]);

    // services listed by what their selector asks for
    const listed = await viewer.get(`/api/environments/${env}/services?labelSelector=zone=b`);
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.items.map((x: { name: string }) => x.name)).to.deep.equal(['front']);
    expect((await viewer.get(`/api/environments/${env}/services?labelSelector=role=db`)).body.items).to.deep.equal([]);
    expectError(await viewer.get(`/api/environments/${env}/services?labelSelector=nope`), 400, 'VALIDATION_ERROR', 'labelSelector');

    // the dashboard's overview shows both
    const overview = await admin.get(`/api/environments/${env}/overview`);
    expect(overview.status, overview.text).to.equal(200);
    expect(overview.body.servers.find((x: { name: string }) => x.name === 's2').labels).to.deep.equal({ role: 'web', zone: 'b' });
    expect(overview.body.services.find((x: { name: string }) => x.name === 'front').serverSelector).to.deep.equal({ matchLabels: { role: 'web', zone: 'b' } });
  });

  it('a deployment cannot be added by hand to a service placed by selector (409), and a bad selector is 400', async () => {
    const { id: serverId } = await server('lab-e', { role: 'edge' });
    const svcRes = await operator.post(`/api/environments/${envId}/services`, {
      name: 'edge', containerImageId: imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'edge' } },
    });
    expect(svcRes.status, svcRes.text).to.equal(201);
    const res = await operator.post(`/api/services/${svcRes.body.id}/deployments`, { serverId, containerName: 'edge-2' });
    expectError(res, 409, 'CONFLICT', 'serverSelector');
    expect(await deploymentsOf(svcRes.body.id)).to.have.length(1);
    for (const serverSelector of [{ matchLabels: { 'a b': 'x' } }, { matchLabels: {} }, { labels: { role: 'x' } }]) {
      const bad = await operator.post(`/api/environments/${envId}/services`, { name: 'edge-bad', containerImageId: imageId, serverSelector });
      expectError(bad, 400, 'VALIDATION_ERROR');
    }
    expectError(await viewer.patch(`/api/services/${svcRes.body.id}`, { serverSelector: null }), 403, 'FORBIDDEN_ROLE');
  });
});
