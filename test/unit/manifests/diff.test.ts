import { expect } from 'chai';
import { diffStates } from '../../../controller/manifests/diff.js';
import type { ObjectState } from '../../../controller/manifests/state.js';

const source = (path: string, fields: string[]) => ({ kind: 'manifest' as const, path, revision: 'r1', fields });
const desired = (kind: string, name: string, fields: Record<string, unknown>, path = 'a.yaml'): ObjectState =>
  ({ kind, environment: kind === 'Environment' ? undefined : 'prod', name, fields, source: source(path, Object.keys(fields).sort()) });
const actual = (kind: string, name: string, fields: Record<string, unknown>, fromManifest?: string): ObjectState => ({
  kind, environment: kind === 'Environment' ? undefined : 'prod', name, fields, id: `${kind}-${name}`,
  ...(fromManifest && { source: source(fromManifest, Object.keys(fields).sort()) }),
});

describe('manifest diff', () => {
  it('creates what the store lacks, in dependency order (environment, servers, then services)', () => {
    const changes = diffStates([
      desired('Service', 'web', { imageTag: 'v1' }), desired('Server', 's1', { hostname: 'h' }), desired('Environment', 'prod', {}),
    ], [], { prune: false });
    expect(changes.map((c) => `${c.action} ${c.kind}`)).to.deep.equal(['create Environment', 'create Server', 'create Service']);
  });

  it('updates only the fields that differ and leaves fields the manifest does not set alone', () => {
    const changes = diffStates(
      [desired('Server', 's1', { hostname: 'new', tags: ['a'] })],
      [actual('Server', 's1', { hostname: 'old', tags: ['a'], sshPort: 2222 }, 'a.yaml')],
      { prune: false },
    );
    expect(changes).to.deep.equal([{ action: 'update', kind: 'Server', environment: 'prod', name: 's1', path: 'a.yaml', fields: [{ field: 'hostname', from: 'old', to: 'new' }] }]);
  });

  it('finds nothing to do when the store already matches', () => {
    const fields = { hostname: 'h', tags: ['a', 'b'], env: { A: '1' } };
    const stored = { ...actual('Server', 's1', { ...fields, sshPort: 22 }), source: source('a.yaml', Object.keys(fields).sort()) };
    expect(diffStates([desired('Server', 's1', fields)], [stored], { prune: true })).to.deep.equal([]);
  });

  it('takes over an object created through the API as an ownership-only update', () => {
    const changes = diffStates([desired('Server', 's1', { hostname: 'h' })], [actual('Server', 's1', { hostname: 'h' })], { prune: false });
    expect(changes).to.deep.equal([{ action: 'update', kind: 'Server', environment: 'prod', name: 's1', path: 'a.yaml', fields: [], sourceOnly: true }]);
  });

  it('reports objects that left the folder as orphaned, or deletes them when pruning, children first', () => {
    const store = [actual('Server', 's1', { hostname: 'h' }, 'old.yaml'), actual('Service', 'web', {}, 'old.yaml'), actual('Server', 'api-made', { hostname: 'x' })];
    expect(diffStates([], store, { prune: false }).map((c) => `${c.action} ${c.name} ${c.path}`)).to.deep.equal(['orphan s1 old.yaml', 'orphan web old.yaml']);
    expect(diffStates([], store, { prune: true }).map((c) => `${c.action} ${c.kind}`)).to.deep.equal(['delete Service', 'delete Server']);
  });

  it('shows a changed secret without its value', () => {
    const changes = diffStates([desired('Secret', 'TOKEN', { value: 'sha256:new' })], [actual('Secret', 'TOKEN', { value: 'sha256:old' }, 'a.yaml')], { prune: false });
    expect(changes[0].fields).to.deep.equal([{ field: 'value', secret: true }]);
  });
});
