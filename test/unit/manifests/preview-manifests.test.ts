// A pull request's manifests as its preview gets them (controller/manifests/git/preview-manifests.ts):
// what a pull-request author may and may not reach, decided from the source's previews, never the commit.
import { expect } from 'chai';
import { loadManifests } from '../../../controller/manifests/load.js';
import { previewManifests, type PreviewPlacement } from '../../../controller/manifests/git/preview-manifests.js';
import { previewsProblem } from '../../../controller/manifests/git/preview-config.js';

const placement: PreviewPlacement = {
  parentEnvironment: 'prod', environment: 'prod-pr-7', number: 7, servers: ['web-1'], hostTemplate: 'pr-{number}.preview.test',
  allowedSecrets: ['DB_URL'], parentSecretKeys: ['DB_URL', 'STRIPE_KEY'],
};
const docs = (text: string) => loadManifests([{ path: 'app.yaml', content: text }]).manifests;
const service = (spec: string) => `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: web, environment: prod}\nspec:\n  image: web\n  imageTag: v1\n${spec}`;

describe('preview manifests', () => {
  it('moves every object to the preview, drops servers, and deploys each service once per chosen server with a suffixed name', () => {
    const r = previewManifests(docs([
      'apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: anywhere, environment: prod}\nspec: {hostname: evil.example}\n',
      service('  ports: ["8080:80"]\n  deployments:\n    - server: anywhere\n      containerName: web\n  ingress: {hosts: [shop.example.com], port: 80}\n'),
    ].join('---\n')), placement);
    expect(r.errors).to.deep.equal([]);
    expect(r.manifests.map((m) => `${m.kind}/${m.metadata.environment}`)).to.deep.equal(['Service/prod-pr-7']);
    const spec = r.manifests[0]!.spec;
    expect(spec.deployments).to.deep.equal([{ server: 'web-1', containerName: 'web-pr-7' }]);
    expect(spec.ports, 'no host port beside the parent\'s').to.deep.equal([]);
    expect(spec.ingress.hosts, 'the template\'s host, never the parent\'s').to.deep.equal(['pr-7.preview.test']);
  });

  it('has no ingress without a hostTemplate, and no serverSelector of its own', () => {
    const r = previewManifests(docs(service('  serverSelector: {matchLabels: {role: db}}\n  ingress: {hosts: [shop.example.com], port: 80}\n')), { ...placement, hostTemplate: null });
    expect(r.manifests[0]!.spec).to.not.have.any.keys('ingress', 'serverSelector');
  });

  it('refuses a parent secret previews.secrets does not list, by name only', () => {
    const r = previewManifests(docs(service('  env: {A: "${DB_URL}", B: "x-${STRIPE_KEY}"}\n')), placement);
    expect(r.errors.map((e) => `${e.path}: ${e.message}`)).to.deep.equal([
      'spec/env/B: a preview may not use the secret STRIPE_KEY of prod: previews.secrets does not list it (it lists DB_URL)',
    ]);
  });

  it('refuses valueFrom.secretRef to the parent (it would copy the value), even to a listed secret; a Secret of the commit is fine', () => {
    const r = previewManifests(docs([
      'apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: COPY, environment: prod}\nspec: {valueFrom: {secretRef: DB_URL}}\n',
      'apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: STOLEN, environment: prod}\nspec: {valueFrom: {secretRef: STRIPE_KEY}}\n',
      'apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: AGAIN, environment: prod}\nspec: {valueFrom: {secretRef: COPY}}\n',
    ].join('---\n')), placement);
    expect(r.errors.map((e) => e.path + ' ' + e.message.split(':')[0])).to.deep.equal([
      'spec/valueFrom/secretRef a preview reads prod\'s secrets only by reference, as ${DB_URL} in a service\'s env (listed in previews.secrets); valueFrom and tls may name only a Secret of the same commit',
      'spec/valueFrom/secretRef a preview may not use the secret STRIPE_KEY of prod',
    ]);
  });

  it('refuses any other reference to a server the selector did not choose', () => {
    const r = previewManifests(docs('apiVersion: stevedore/v1\nkind: Volume\nmetadata: {name: data, environment: prod}\nspec: {server: db-1}\n'), placement);
    expect(r.errors.map((e) => e.message)).to.deep.equal(['a preview runs only on the servers of prod that previews.serverSelector selects (web-1), not on db-1']);
  });

  it('refuses a Docker volume mounted by name (it may be the parent\'s on the same server); a Volume of the commit and a host path are left to their own checks', () => {
    const r = previewManifests(docs(service('  volumes: ["pgdata:/var/lib/data", "/srv/cache:/cache", {volume: data, mount: /data}, "/anonymous"]\n')), placement);
    expect(r.errors.map((e) => `${e.path}: ${e.message}`)).to.deep.equal([
      'spec/volumes/0: a preview may not mount the Docker volume pgdata by name: on prod\'s servers it may be prod\'s; mount a Volume of the same commit ({volume, mount}), which is the preview\'s own',
    ]);
  });

  it('leaves a manifest of another environment for the scope check to refuse', () => {
    const r = previewManifests(docs('apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: X, environment: staging}\nspec: {value: "1"}\n'), placement);
    expect(r.manifests[0]!.metadata.environment).to.equal('staging');
  });
});

describe('previews config', () => {
  const ok = { pullRequests: true, serverSelector: { matchLabels: { previews: 'yes' } } };
  it('accepts a selector with a label, a TTL, secrets and a host template holding {number}', () => {
    expect(previewsProblem({ ...ok, ttlHours: 24, secrets: ['DB_URL'], hostTemplate: 'pr-{number}.example.com' })).to.equal(null);
  });
  it('names the field of each problem', () => {
    const field = (p: object) => previewsProblem({ ...ok, ...p } as never)?.field;
    expect(field({ serverSelector: { matchLabels: {} } })).to.equal('previews.serverSelector.matchLabels');
    expect(field({ serverSelector: { matchLabels: { 'bad key!': 'x' } } })).to.equal('previews.serverSelector.matchLabels');
    expect(field({ hostTemplate: 'preview.example.com' })).to.equal('previews.hostTemplate');
    expect(field({ hostTemplate: 'pr-{number}' })).to.equal('previews.hostTemplate');
    expect(field({ secrets: ['lower'] })).to.equal('previews.secrets');
    expect(field({ branches: 'feature/*' })).to.equal('previews.branches');
  });
});
