import { expect } from 'chai';
import { servicesAffectedByConfig } from '../../../controller/manifests/affected-services.js';
import type { Change, ObjectState } from '../../../controller/manifests/state.js';

const obj = (kind: string, name: string, fields: Record<string, unknown>): ObjectState => ({ kind, environment: 'prod', name, fields });
const update = (kind: string, name: string): Change => ({ action: 'update', kind, environment: 'prod', name, path: 'x.yaml', fields: [{ field: 'value' }] });

const objects = [
  obj('ConfigFragment', 'logging', { content: 'level ${LOG_LEVEL}' }),
  obj('ConfigFile', 'api.conf', { content: 'listen 80\n${fragment:logging}' }),
  obj('ConfigFile', 'plain.conf', { content: 'cost $${TOKEN}' }),
  obj('Service', 'api', { env: {}, configFiles: [{ name: 'api.conf', targetPath: '/etc/api.conf' }] }),
  obj('Service', 'web', { env: { TOKEN: '${TOKEN}' }, configFiles: [{ name: 'plain.conf', targetPath: '/etc/p.conf' }] }),
  obj('Service', 'idle', { env: { A: 'b' } }),
];

describe('services affected by configuration changes', () => {
  it('follows a var through a fragment into the config file a service attaches', () => {
    expect([...servicesAffectedByConfig([update('Var', 'LOG_LEVEL')], objects)]).to.deep.equal(['prod/api']);
  });

  it('finds a secret named in a service env and ignores an escaped $${KEY}', () => {
    expect([...servicesAffectedByConfig([update('Secret', 'TOKEN')], objects)]).to.deep.equal(['prod/web']);
  });

  it('redeploys the services attaching a changed file or a file including a changed fragment', () => {
    expect([...servicesAffectedByConfig([update('ConfigFile', 'plain.conf')], objects)]).to.deep.equal(['prod/web']);
    expect([...servicesAffectedByConfig([update('ConfigFragment', 'logging')], objects)]).to.deep.equal(['prod/api']);
  });

  it('ignores ownership-only updates and creations', () => {
    const sourceOnly: Change = { ...update('Var', 'LOG_LEVEL'), fields: [], sourceOnly: true };
    expect(servicesAffectedByConfig([sourceOnly, { ...update('Var', 'LOG_LEVEL'), action: 'create' }], objects).size).to.equal(0);
  });
});
