import { expect } from 'chai';
import { bootstrapAdmin } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

const doc = (kind: string, name: string, spec: string, env = 'topo') =>
  `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}, environment: ${env}}\nspec: ${spec}\n`;

const base = (): ManifestFile[] => [
  { path: 'environment.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: topo}\nspec: {}\n' },
  { path: 'servers.yaml', content: [doc('Server', 'edge-1', '{hostname: 10.0.0.1}'), doc('Server', 'edge-2', '{hostname: 10.0.0.2}')].join('---\n') },
  { path: 'topology.yaml', content: [
    doc('ExternalEntity', 'stripe', '{type: saas, url: "https://api.stripe.com", attributes: {team: billing}}'),
    doc('ServerCluster', 'edge', '{description: front door, servers: [edge-2, edge-1]}'),
    doc('Connection', 'edge-to-stripe', '{from: {kind: Server, name: edge-1}, to: {kind: ExternalEntity, name: stripe}, protocol: https, port: 443}'),
  ].join('---\n') },
];

describe('manifests: ServerCluster, ExternalEntity and Connection apply', () => {
  let svc: TestService;
  let admin: HttpClient;
  let envId: string;
  const apply = async (files: ManifestFile[], prune = false) => {
    const res = await admin.post('/api/manifests/apply', { files, prune });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ok, res.text).to.equal(true);
    return res.body;
  };
  const get = async (path: string) => (await admin.get(path)).body;

  before(async function () {
    this.timeout(120_000); // a loaded machine; the happy path takes seconds
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
  });
  after(() => svc.stop());

  it('apply stores the three kinds, references resolved to ids, with their manifest source', async () => {
    const out = await apply(base());
    expect(out.counts).to.deep.equal({ create: 6, update: 0, delete: 0, orphan: 0 });
    envId = (await get('/api/environments')).items.find((e: any) => e.name === 'topo').id;
    const servers = (await get(`/api/environments/${envId}/servers`)).items;
    const id = (name: string) => servers.find((s: any) => s.name === name).id;
    const [entity] = (await get(`/api/environments/${envId}/external-entities`)).items;
    expect(entity).to.deep.include({ name: 'stripe', type: 'saas', url: 'https://api.stripe.com', attributes: { team: 'billing' } });
    expect(entity.source).to.deep.include({ kind: 'manifest', path: 'topology.yaml' });
    const [cluster] = (await get(`/api/environments/${envId}/server-clusters`)).items;
    expect(cluster).to.deep.include({ name: 'edge', description: 'front door' });
    expect(cluster.serverIds).to.have.members([id('edge-1'), id('edge-2')]);
    const [conn] = (await get(`/api/connections?environmentId=${envId}`)).items;
    expect(conn).to.deep.include({
      name: 'edge-to-stripe', from: { kind: 'Server', id: id('edge-1') }, to: { kind: 'ExternalEntity', id: entity.id },
      protocol: 'https', port: 443, label: null,
    });
    const graph = await get(`/api/environments/${envId}/topology`);
    expect(graph.edges.map((e: any) => e.label)).to.deep.equal(['https:443']);
  });

  it('applying the same folder again changes nothing', async () => {
    const out = await apply(base());
    expect(out.changes).to.deep.equal([]);
  });

  it('the API refuses manifest-owned fields and deletes (409 naming the file)', async () => {
    const [entity] = (await get(`/api/environments/${envId}/external-entities`)).items;
    const [cluster] = (await get(`/api/environments/${envId}/server-clusters`)).items;
    const [conn] = (await get(`/api/connections?environmentId=${envId}`)).items;
    for (const [path, body] of [
      [`/api/external-entities/${entity.id}`, { type: 'api' }],
      [`/api/server-clusters/${cluster.id}`, { serverIds: [] }],
      [`/api/connections/${conn.id}`, { port: 8443 }],
    ] as const) {
      const res = await admin.patch(path, body);
      expect(res.status, res.text).to.equal(409);
      expect(res.body.message).to.include('topology.yaml');
      const del = await admin.delete(path);
      expect(del.status, del.text).to.equal(409);
    }
    // Fields the manifest leaves out take the kind's defaults, so the manifest owns them too.
    expect((await admin.patch(`/api/connections/${conn.id}`, { label: 'payments' })).status).to.equal(409);
  });

  it('a changed manifest updates in place; a removed one is deleted with prune (cluster delete keeps the servers)', async () => {
    const files = base();
    files[2] = { path: 'topology.yaml', content: [
      doc('ExternalEntity', 'stripe', '{type: payments, url: "https://api.stripe.com", attributes: {team: billing}}'),
      doc('ServerCluster', 'edge', '{description: front door, servers: [edge-1]}'),
    ].join('---\n') };
    const out = await apply(files, true);
    expect(out.counts).to.deep.equal({ create: 0, update: 2, delete: 1, orphan: 0 });
    expect((await get(`/api/environments/${envId}/external-entities`)).items[0].type).to.equal('payments');
    const [cluster] = (await get(`/api/environments/${envId}/server-clusters`)).items;
    expect(cluster.serverIds).to.have.length(1);
    expect((await get(`/api/connections?environmentId=${envId}`)).total).to.equal(0);
    const pruned = await apply(files.slice(0, 2), true);
    expect(pruned.counts).to.deep.equal({ create: 0, update: 0, delete: 2, orphan: 0 });
    expect((await get(`/api/environments/${envId}/server-clusters`)).total).to.equal(0);
    expect((await get(`/api/environments/${envId}/servers`)).total).to.equal(2);
  });
});
