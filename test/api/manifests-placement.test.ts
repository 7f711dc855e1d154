// Server labels and serverSelector in manifests: labels are a Server's spec, a Service may name a
// selector instead of deployments, and the deployment set follows the labels after the apply.
import { expect } from 'chai';
import { bootstrapAdmin } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

const doc = (kind: string, name: string, spec: string, env = 'sel') =>
  `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}, environment: ${env}}\nspec: ${spec}\n`;

const files = (s2Role: string, service = '{image: web, imageTag: v1, serverSelector: {matchLabels: {role: web}}}'): ManifestFile[] => [
  { path: 'environment.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: sel}\nspec: {}\n' },
  { path: 'servers.yaml', content: [
    doc('Server', 'm1', '{hostname: 10.0.0.1, labels: {role: web}}'),
    doc('Server', 'm2', `{hostname: 10.0.0.2, labels: {role: ${s2Role}}}`),
    doc('Server', 'm3', '{hostname: 10.0.0.3}'),
  ].join('---\n') },
  { path: 'web.yaml', content: [doc('ContainerImage', 'web', '{imageName: registry.local/acme/web}'), doc('Service', 'front', service)].join('---\n') },
];

describe('manifests: server labels and services placed by serverSelector', () => {
  let svc: TestService;
  let admin: HttpClient;
  const apply = async (f: ManifestFile[], dryRun = false) => admin.post('/api/manifests/apply', { files: f, dryRun });

  before(async function () {
    this.timeout(120_000);
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
  });
  after(() => svc.stop());

  it('applies labels and places the service on the matching servers; a re-apply changes nothing; a relabel moves it', async () => {
    const first = await apply(files('web'));
    expect(first.status, first.text).to.equal(200);
    expect(first.body.ok, first.text).to.equal(true);
    const env = (await admin.get('/api/environments?limit=200')).body.items.find((e: { name: string }) => e.name === 'sel');
    const servers = (await admin.get(`/api/environments/${env.id}/servers`)).body.items as Array<{ id: string; name: string; labels: Record<string, string> }>;
    const id = (n: string) => servers.find((x) => x.name === n)!.id;
    expect(servers.find((x) => x.name === 'm1')!.labels).to.deep.equal({ role: 'web' });
    expect(servers.find((x) => x.name === 'm3')!.labels).to.deep.equal({});
    const front = (await admin.get(`/api/environments/${env.id}/services`)).body.items[0];
    expect(front.serverSelector).to.deep.equal({ matchLabels: { role: 'web' } });
    expect(front.deployments.map((d: { serverId: string }) => d.serverId).sort()).to.deep.equal([id('m1'), id('m2')].sort());

    const again = await apply(files('web'), true);
    expect(again.body.changes, again.text).to.deep.equal([]);

    const moved = await apply(files('db'));
    expect(moved.body.ok, moved.text).to.equal(true);
    expect(moved.body.changes.map((c: { kind: string; name: string }) => `${c.kind}/${c.name}`)).to.deep.equal(['Server/m2']);
    const after = (await admin.get(`/api/services/${front.id}`)).body;
    expect(after.deployments.map((d: { serverId: string }) => d.serverId)).to.deep.equal([id('m1')]);
  });

  it('refuses a service with both a selector and deployments, and labels Kubernetes refuses, applying nothing', async () => {
    const both = await apply(files('web', '{image: web, imageTag: v1, serverSelector: {matchLabels: {role: web}}, deployments: [{server: m1}]}'));
    expect(both.status, both.text).to.equal(400);
    expect(both.body.code).to.equal('VALIDATION_ERROR');
    expect(both.body.errors.map((e: { message: string }) => e.message).join('\n')).to.match(/lists no deployments/);
    const bad = await apply(files('-web'));
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body.errors.map((e: { message: string }) => e.message).join('\n')).to.match(/value must be empty or 1-63/);
    const servers = await admin.get('/api/environments?limit=200');
    const env = servers.body.items.find((e: { name: string }) => e.name === 'sel');
    const m2 = (await admin.get(`/api/environments/${env.id}/servers`)).body.items.find((x: { name: string }) => x.name === 'm2');
    expect(m2.labels).to.deep.equal({ role: 'db' });
  });
});
