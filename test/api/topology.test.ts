import { expect } from 'chai';
import { startWithRoles, createEnvironment } from '../support/fixtures.js';
import { createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import type { TestService } from '../support/test-service.js';
import { rowCounts } from '../support/row-counts.js';

describe('topology routes: external entities, server clusters, connections, layout, export', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let otherEnvId: string;
  let web: { id: string; name: string };
  let api: { id: string; name: string };
  let s1: { id: string; name: string };
  let s2: { id: string; name: string };

  before(async function () {
    this.timeout(120_000); // a loaded machine; the happy path takes seconds
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    otherEnvId = (await createEnvironment(admin)).id;
    web = await createService(operator, envId, { name: 'web' });
    api = await createService(operator, envId, { name: 'api' });
    expect((await operator.post(`/api/services/${web.id}/dependencies`, { dependsOnServiceId: api.id })).status).to.equal(201);
    s1 = await insertServer(svc, envId, 'app-1');
    s2 = await insertServer(svc, envId, 'app-2');
  });
  after(() => svc.stop());

  /** Sends bad requests and checks each is 400 VALIDATION_ERROR in the envelope and no row changed. */
  async function rejectsAll(requests: Array<() => Promise<{ status: number; body: any; text: string }>>) {
    const before = await rowCounts(svc.services.db);
    for (const send of requests) {
      const res = await send();
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.requestId, res.text).to.be.a('string');
    }
    expect(await rowCounts(svc.services.db)).to.deep.equal(before);
  }

  describe('external entities (the generic CRUD routes)', () => {
    let id: string;

    it('operator creates, viewer lists (paginated) and reads, operator updates and deletes; each write audited', async () => {
      const created = await operator.post(`/api/environments/${envId}/external-entities`, {
        name: 'stripe', type: 'saas', url: 'https://api.stripe.com', attributes: { team: 'billing' },
      });
      expect(created.status, created.text).to.equal(201);
      id = created.body.id;
      expect(created.body).to.deep.include({ name: 'stripe', type: 'saas', url: 'https://api.stripe.com', environmentId: envId, description: null });
      expect(created.body.attributes).to.deep.equal({ team: 'billing' });
      expect(created.body.source).to.deep.equal({ kind: 'api' });
      expect((await operator.post(`/api/environments/${envId}/external-entities`, { name: 'mail', type: 'smtp' })).status).to.equal(201);

      const page = await viewer.get(`/api/environments/${envId}/external-entities?limit=1&offset=1`);
      expect(page.status, page.text).to.equal(200);
      expect(page.body).to.deep.include({ total: 2, limit: 1, offset: 1 });
      expect(page.body.items.map((e: any) => e.name)).to.deep.equal(['stripe']);
      const one = await viewer.get(`/api/external-entities/${id}`);
      expect(one.body).to.deep.equal(created.body);

      const patched = await operator.patch(`/api/external-entities/${id}`, { description: 'payments' });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body).to.include({ description: 'payments', type: 'saas' });

      const audit = await svc.services.db('audit_logs').where({ resourceId: id }).orderBy('createdAt');
      expect(audit.map((a) => [a.action, a.resourceType, a.environmentId])).to.deep.equal([
        ['createExternalEntity', 'external-entities', envId], ['updateExternalEntity', 'external-entities', envId],
      ]);
    });

    it('roles: viewer cannot write; duplicate name is 409; unknown id is 404', async () => {
      expectError(await viewer.post(`/api/environments/${envId}/external-entities`, { name: 'x', type: 'saas' }), 403, 'FORBIDDEN_ROLE');
      expectError(await viewer.patch(`/api/external-entities/${id}`, { type: 'y' }), 403, 'FORBIDDEN_ROLE');
      expectError(await viewer.delete(`/api/external-entities/${id}`), 403, 'FORBIDDEN_ROLE');
      expectError(await operator.post(`/api/environments/${envId}/external-entities`, { name: 'stripe', type: 'saas' }), 409, 'CONFLICT');
      expectError(await viewer.get('/api/external-entities/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    });

    it('bad input is 400 VALIDATION_ERROR and changes nothing; a read-only field is 422', async () => {
      await rejectsAll([
        () => operator.post(`/api/environments/${envId}/external-entities`, { name: 'no-type' }),
        () => operator.post(`/api/environments/${envId}/external-entities`, { name: 'x', type: 'saas', colour: 'red' }),
        () => operator.post(`/api/environments/${envId}/external-entities`, { name: 'bad name!', type: 'saas' }),
        () => operator.patch(`/api/external-entities/${id}`, {}),
        () => operator.patch(`/api/external-entities/${id}`, { attributes: { n: 1 } }),
        () => viewer.get(`/api/environments/${envId}/external-entities?limit=500`),
      ]);
      expectError(await operator.patch(`/api/external-entities/${id}`, { id: envId }), 422, 'READONLY_FIELD', 'id');
    });

    it('delete answers 204 and the entity is gone', async () => {
      const mail = (await viewer.get(`/api/environments/${envId}/external-entities`)).body.items.find((e: any) => e.name === 'mail');
      expect((await operator.delete(`/api/external-entities/${mail.id}`)).status).to.equal(204);
      expectError(await viewer.get(`/api/external-entities/${mail.id}`), 404, 'NOT_FOUND');
    });
  });

  describe('server clusters', () => {
    let clusterId: string;

    it('groups servers of the environment; serverIds are read back and can be replaced', async () => {
      const res = await operator.post(`/api/environments/${envId}/server-clusters`, { name: 'front', serverIds: [s1.id, s2.id] });
      expect(res.status, res.text).to.equal(201);
      clusterId = res.body.id;
      expect(res.body.serverIds).to.have.members([s1.id, s2.id]);
      const patched = await operator.patch(`/api/server-clusters/${clusterId}`, { serverIds: [s2.id], description: 'edge' });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body).to.deep.include({ serverIds: [s2.id], description: 'edge' });
      const list = await viewer.get(`/api/environments/${envId}/server-clusters`);
      expect(list.body.items.map((c: any) => [c.name, c.serverIds])).to.deep.equal([['front', [s2.id]]]);
      expect((await operator.patch(`/api/server-clusters/${clusterId}`, { serverIds: [s1.id, s2.id] })).status).to.equal(200);
    });

    it('refuses servers of another environment or unknown ids, changing nothing', async () => {
      const foreign = await insertServer(svc, otherEnvId, 'elsewhere');
      await rejectsAll([
        () => operator.post(`/api/environments/${envId}/server-clusters`, { name: 'mixed', serverIds: [s1.id, foreign.id] }),
        () => operator.patch(`/api/server-clusters/${clusterId}`, { serverIds: [foreign.id] }),
        () => operator.post(`/api/environments/${envId}/server-clusters`, { name: 'dup', serverIds: [s1.id, s1.id] }),
        () => operator.post(`/api/environments/${envId}/server-clusters`, { name: 'nid', serverIds: ['not-a-uuid'] }),
      ]);
      expect((await viewer.get(`/api/server-clusters/${clusterId}`)).body.serverIds).to.have.members([s1.id, s2.id]);
      expectError(await viewer.post(`/api/environments/${envId}/server-clusters`, { name: 'v' }), 403, 'FORBIDDEN_ROLE');
    });

    it('deleting a cluster detaches its servers: they stay, in no cluster', async () => {
      expect((await operator.delete(`/api/server-clusters/${clusterId}`)).status).to.equal(204);
      expectError(await viewer.get(`/api/server-clusters/${clusterId}`), 404, 'NOT_FOUND');
      for (const s of [s1, s2]) expect((await viewer.get(`/api/servers/${s.id}`)).status).to.equal(200);
      expect(await svc.services.db('server_cluster_members').whereIn('serverId', [s1.id, s2.id])).to.deep.equal([]);
    });
  });

  describe('connections', () => {
    let entityId: string;
    let connId: string;

    before(async () => {
      entityId = (await operator.post(`/api/environments/${envId}/external-entities`, { name: 'pg-managed', type: 'database' })).body.id;
    });

    it('POST /api/connections links two nodes of an environment; GET ?environmentId= lists them; DELETE removes', async () => {
      const res = await operator.post('/api/connections', {
        environmentId: envId, from: { kind: 'Service', id: api.id }, to: { kind: 'ExternalEntity', id: entityId }, label: 'sql', port: 5432,
      });
      expect(res.status, res.text).to.equal(201);
      connId = res.body.id;
      expect(res.body).to.deep.include({
        environmentId: envId, from: { kind: 'Service', id: api.id }, to: { kind: 'ExternalEntity', id: entityId }, label: 'sql', port: 5432,
      });
      expect(res.body.name).to.match(/^connection-/);
      const srv = await operator.post('/api/connections', { environmentId: envId, name: 'web-on-app', from: { kind: 'Service', id: web.id }, to: { kind: 'Server', id: s1.id } });
      expect(srv.status, srv.text).to.equal(201);
      const list = await viewer.get(`/api/connections?environmentId=${envId}`);
      expect(list.status, list.text).to.equal(200);
      expect(list.body.total).to.equal(2);
      expect((await viewer.get(`/api/connections?environmentId=${otherEnvId}`)).body.total).to.equal(0);
      expect((await operator.delete(`/api/connections/${srv.body.id}`)).status).to.equal(204);
      expect((await viewer.get(`/api/connections?environmentId=${envId}`)).body.items.map((c: any) => c.id)).to.deep.equal([connId]);
    });

    it('bad input is 400 VALIDATION_ERROR and changes nothing; the environment is fixed; viewer cannot write', async () => {
      const foreign = await insertServer(svc, otherEnvId, 'far');
      const ok = { environmentId: envId, from: { kind: 'Service', id: api.id }, to: { kind: 'ExternalEntity', id: entityId } };
      await rejectsAll([
        () => operator.post('/api/connections', { ...ok, to: { kind: 'Server', id: foreign.id } }),
        () => operator.post('/api/connections', { ...ok, to: { kind: 'Service', id: entityId } }),
        () => operator.post('/api/connections', { ...ok, to: { kind: 'Planet', id: entityId } }),
        () => operator.post('/api/connections', { ...ok, environmentId: '00000000-0000-4000-8000-000000000000' }),
        () => operator.post('/api/connections', { ...ok, port: 70000 }),
        () => operator.post('/api/connections', { from: ok.from, to: ok.to }),
        () => viewer.get('/api/connections'),
        () => operator.patch(`/api/connections/${connId}`, { from: { kind: 'Server', id: foreign.id } }),
      ]);
      expectError(await operator.patch(`/api/connections/${connId}`, { environmentId: otherEnvId }), 422, 'READONLY_FIELD');
      expectError(await viewer.post('/api/connections', ok), 403, 'FORBIDDEN_ROLE');
      expectError(await viewer.get('/api/connections?environmentId=00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    });
  });

  describe('diagram layout', () => {
    it('is empty until saved; operator saves it per environment; viewer reads it', async () => {
      const empty = await viewer.get(`/api/environments/${envId}/diagram-layout`);
      expect(empty.status, empty.text).to.equal(200);
      expect(empty.body).to.deep.equal({ nodes: {}, viewport: null, updatedAt: null });
      const layout = { nodes: { [`Server:${s1.id}`]: { x: 10, y: -20.5 } }, viewport: { x: 0, y: 0, zoom: 1.5 } };
      const saved = await operator.put(`/api/environments/${envId}/diagram-layout`, layout);
      expect(saved.status, saved.text).to.equal(200);
      expect(saved.body).to.deep.include(layout);
      const again = await operator.put(`/api/environments/${envId}/diagram-layout`, { nodes: { a: { x: 1, y: 2 } } });
      expect(again.body).to.deep.include({ nodes: { a: { x: 1, y: 2 } }, viewport: null });
      expect((await viewer.get(`/api/environments/${envId}/diagram-layout`)).body).to.deep.equal(again.body);
      expect((await viewer.get(`/api/environments/${otherEnvId}/diagram-layout`)).body.nodes).to.deep.equal({});
      expectError(await viewer.put(`/api/environments/${envId}/diagram-layout`, layout), 403, 'FORBIDDEN_ROLE');
    });

    it('bad layouts are 400 VALIDATION_ERROR and change nothing', async () => {
      const before = (await viewer.get(`/api/environments/${envId}/diagram-layout`)).body;
      await rejectsAll([
        () => operator.put(`/api/environments/${envId}/diagram-layout`, {}),
        () => operator.put(`/api/environments/${envId}/diagram-layout`, { nodes: { a: { x: 1e300, y: 0 } } }),
        () => operator.put(`/api/environments/${envId}/diagram-layout`, { nodes: { a: { x: 'left', y: 0 } } }),
        () => operator.put(`/api/environments/${envId}/diagram-layout`, { nodes: {}, extra: true }),
      ]);
      expect((await viewer.get(`/api/environments/${envId}/diagram-layout`)).body).to.deep.equal(before);
    });
  });

  describe('topology graph and Mermaid export', () => {
    before(async () => {
      expect((await operator.post(`/api/environments/${envId}/server-clusters`, { name: 'back', serverIds: [s2.id] })).status).to.equal(201);
    });

    it('GET …/topology answers nodes, edges, clusters and layout in one call', async () => {
      const res = await viewer.get(`/api/environments/${envId}/topology`);
      expect(res.status, res.text).to.equal(200);
      const names = res.body.nodes.map((n: any) => `${n.kind}:${n.name}`);
      expect(names).to.include.members(['Server:app-1', 'Server:app-2', 'Service:web', 'Service:api', 'ExternalEntity:pg-managed']);
      expect(res.body.edges.map((e: any) => [e.kind, e.from.id, e.to.id])).to.deep.include.members([
        ['dependency', web.id, api.id], ['connection', api.id, (res.body.nodes.find((n: any) => n.name === 'pg-managed')).id],
      ]);
      expect(res.body.clusters.map((c: any) => [c.name, c.serverIds])).to.deep.equal([['back', [s2.id]]]);
      expect(res.body.layout.nodes).to.deep.equal({ a: { x: 1, y: 2 } });
    });

    it('GET /api/diagram-export renders the graph as Mermaid text', async () => {
      const res = await viewer.get(`/api/diagram-export?environmentId=${envId}&format=mermaid`);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const text = res.text;
      expect(text.split('\n')[0]).to.equal('flowchart LR');
      const id = (kind: string, uuid: string) => `${kind.toLowerCase()}_${uuid.replace(/-/g, '')}`;
      expect(text).to.include(`subgraph ${id('cluster', (await viewer.get(`/api/environments/${envId}/topology`)).body.clusters[0].id)}["back"]`);
      expect(text).to.include(`${id('Server', s2.id)}["app-2 (127.0.0.1)"]`);
      expect(text).to.include(`${id('Service', web.id)}("web")`);
      expect(text).to.include(`${id('Service', web.id)} -.->|"depends on"| ${id('Service', api.id)}`);
      expect(text).to.match(new RegExp(`${id('Service', api.id)} -->\\|"sql"\\| externalentity_[0-9a-f]{32}`));
    });

    it('export: environmentId is required, an unknown one is 404, only mermaid is a format', async () => {
      expectError(await viewer.get('/api/diagram-export?format=mermaid'), 400, 'VALIDATION_ERROR', 'environmentId');
      expectError(await viewer.get(`/api/diagram-export?environmentId=${envId}&format=png`), 400, 'VALIDATION_ERROR');
      expectError(await viewer.get('/api/diagram-export?environmentId=00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
      expectError(await viewer.get('/api/environments/00000000-0000-4000-8000-000000000000/topology'), 404, 'NOT_FOUND');
    });
  });
});
