import { expect } from 'chai';
import { desiredStates, mapDigest, secretDigest } from '../../../controller/manifests/desired.js';
import { diffStates } from '../../../controller/manifests/diff.js';
import { loadManifests } from '../../../controller/manifests/load.js';
import type { ObjectState } from '../../../controller/manifests/state.js';
import { formatError } from '../../../controller/manifests/types.js';

const env = 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: prod}\nspec: {}\n';
const subscription = (spec: string) => loadManifests([
  { path: 'env.yaml', content: env },
  { path: 'hooks.yaml', content: `apiVersion: stevedore/v1\nkind: WebhookSubscription\nmetadata: {name: ci, environment: prod}\nspec:\n${spec}` },
]);
const desiredOf = (spec: string, secrets: Record<string, string> = {}) => {
  const loaded = subscription(spec);
  expect(loaded.errors.map(formatError)).to.deep.equal([]);
  const out = desiredStates(loaded.manifests, 'r1', { origin: 'folder', env: secrets, baseDir: null });
  expect(out.errors).to.deep.equal([]);
  return out.objects.find((o) => o.kind === 'WebhookSubscription')!;
};
const stored = (fields: Record<string, unknown>, fromManifest?: string[]): ObjectState => ({
  kind: 'WebhookSubscription', environment: 'prod', name: 'ci', id: 'sub-1',
  fields: { url: 'https://ci.example.com/hook', secret: null, headers: {}, enabled: true, eventTypes: [], ...fields },
  ...(fromManifest && { source: { kind: 'manifest' as const, path: 'hooks.yaml', revision: 'r0', fields: fromManifest } }),
});

describe('manifest WebhookSubscription', () => {
  const spec = '  url: https://ci.example.com/hook\n  eventTypes: [deployment.failed]\n  secret: {valueFrom: {env: HOOK_SECRET}}\n';

  it('keeps the API field names and only a digest of the signing secret', () => {
    const d = desiredOf(spec, { HOOK_SECRET: 's3cret-value' });
    expect(d.fields).to.deep.equal({ url: 'https://ci.example.com/hook', eventTypes: ['deployment.failed'], secret: secretDigest('s3cret-value') });
    expect(d.secretValues).to.deep.equal({ secret: 's3cret-value' });
    expect(d.source!.fields).to.deep.equal(['eventTypes', 'secret', 'url']);
    expect(JSON.stringify({ ...d, secretValues: undefined })).not.to.include('s3cret-value');
  });

  it('refuses a plain secret, a non-http URL and an unknown event type', () => {
    const plain = subscription('  url: https://ci.example.com/hook\n  secret: abc\n').errors.map(formatError);
    expect(plain).to.have.length(1);
    expect(plain[0]).to.match(/^hooks\.yaml:6:\d+: spec\/secret: plain secret values are not allowed/);
    expect(plain[0]).not.to.include('abc');
    expect(subscription('  url: ftp://ci.example.com/hook\n').errors.map((e) => e.path)).to.deep.equal(['spec/url']);
    expect(subscription('  url: https://x.example\n  eventTypes: [nope]\n').errors.map((e) => e.path)).to.deep.equal(['spec/eventTypes/0']);
  });

  it('creates a subscription the store lacks, showing the secret only as changed', () => {
    const d = desiredOf(spec, { HOOK_SECRET: 'a' });
    const changes = diffStates([d], [], { prune: false });
    expect(changes).to.deep.equal([{
      action: 'create', kind: 'WebhookSubscription', environment: 'prod', name: 'ci', path: 'hooks.yaml',
      fields: [{ field: 'url', to: 'https://ci.example.com/hook' }, { field: 'eventTypes', to: ['deployment.failed'] }, { field: 'secret', secret: true }],
    }]);
  });

  it('finds nothing to do when the stored subscription matches, and ignores fields the manifest does not set', () => {
    const d = desiredOf(spec, { HOOK_SECRET: 'a' });
    const a = stored({ eventTypes: ['deployment.failed'], secret: secretDigest('a'), headers: { 'X-Api': '1' } }, ['eventTypes', 'secret', 'url']);
    expect(diffStates([{ ...d, source: { ...d.source!, revision: 'r0' } }], [a], { prune: false })).to.deep.equal([]);
  });

  it('updates a changed URL and a changed secret without showing either secret', () => {
    const d = desiredOf(spec.replace('ci.example.com', 'ci2.example.com'), { HOOK_SECRET: 'b' });
    const a = stored({ eventTypes: ['deployment.failed'], secret: secretDigest('a') }, ['eventTypes', 'secret', 'url']);
    const [change, ...rest] = diffStates([d], [a], { prune: false });
    expect(rest).to.deep.equal([]);
    expect(change).to.deep.equal({
      action: 'update', kind: 'WebhookSubscription', environment: 'prod', name: 'ci', path: 'hooks.yaml',
      fields: [{ field: 'url', from: 'https://ci.example.com/hook', to: 'https://ci2.example.com/hook' }, { field: 'secret', secret: true }],
    });
  });

  it('keeps header values only as digests, and a changed header value is a secret change', () => {
    const d = desiredOf(spec + '  headers: {Authorization: Bearer hv-1}\n', { HOOK_SECRET: 'a' });
    expect(d.fields.headers).to.deep.equal({ Authorization: secretDigest('Bearer hv-1') });
    expect(d.sealedMapValues).to.deep.equal({ headers: { Authorization: 'Bearer hv-1' } });
    expect(JSON.stringify({ ...d, sealedMapValues: undefined })).not.to.include('hv-1');
    const fields = ['eventTypes', 'headers', 'secret', 'url'];
    const same = stored({ eventTypes: ['deployment.failed'], secret: secretDigest('a'), headers: mapDigest({ Authorization: 'Bearer hv-1' }) }, fields);
    expect(diffStates([{ ...d, source: { ...d.source!, revision: 'r0' } }], [same], { prune: false })).to.deep.equal([]);
    const changed = stored({ eventTypes: ['deployment.failed'], secret: secretDigest('a'), headers: mapDigest({ Authorization: 'Bearer hv-0' }) }, fields);
    const [change] = diffStates([d], [changed], { prune: false });
    expect(change.fields).to.deep.equal([{ field: 'headers', secret: true }]);
    expect(diffStates([d], [], { prune: false })[0].fields).to.deep.include({ field: 'headers', secret: true });
  });

  it('adopts a subscription made through the API as an ownership-only update', () => {
    const d = desiredOf('  url: https://ci.example.com/hook\n');
    expect(diffStates([d], [stored({})], { prune: false })).to.deep.equal([{
      action: 'update', kind: 'WebhookSubscription', environment: 'prod', name: 'ci', path: 'hooks.yaml', fields: [], sourceOnly: true,
    }]);
  });

  it('reports a removed manifest subscription orphaned, deletes it only with prune, and never touches API-made ones', () => {
    const fromManifest = stored({}, ['url']);
    const fromApi = { ...stored({}), name: 'manual', id: 'sub-2' };
    expect(diffStates([], [fromManifest, fromApi], { prune: false }).map((c) => `${c.action} ${c.name} ${c.path}`)).to.deep.equal(['orphan ci hooks.yaml']);
    expect(diffStates([], [fromManifest, fromApi], { prune: true }).map((c) => `${c.action} ${c.name}`)).to.deep.equal(['delete ci']);
  });

  it('creates subscriptions after the objects of the environment and deletes them before', () => {
    const sub = desiredOf('  url: https://ci.example.com/hook\n');
    const server: ObjectState = { kind: 'Server', environment: 'prod', name: 's1', fields: { hostname: 'h' }, source: { kind: 'manifest', path: 'a.yaml', revision: 'r1', fields: ['hostname'] } };
    expect(diffStates([sub, server], [], { prune: false }).map((c) => c.kind)).to.deep.equal(['Server', 'WebhookSubscription']);
    const oldServer = { ...server, id: 'srv', name: 's0' };
    expect(diffStates([], [oldServer, stored({}, ['url'])], { prune: true }).map((c) => c.kind)).to.deep.equal(['WebhookSubscription', 'Server']);
  });
});
