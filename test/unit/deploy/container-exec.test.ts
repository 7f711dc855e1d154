// The pure parts of exec: which container is the deployment's own, the browser's token
// subprotocol, and the CLI's WebSocket URL (the argument vector as repeated ?cmd=).
import { expect } from 'chai';
import { notOwnedReason } from '../../../controller/deploy/container-exec.js';
import { bearerFromProtocols } from '../../../api/http/websocket.js';
import { execSocketUrl } from '../../../controller/cli/commands/exec-interactive.js';

describe('exec: the deployment\'s own container', () => {
  const d = { id: 'dep-1', environmentId: 'env-1', composePath: null, adoptedContainerId: null };
  const ours = { 'stevedore.managed': 'true', 'stevedore.deployment-id': 'dep-1', 'stevedore.environment-id': 'env-1' };

  it('is the one whose labels name this deployment of this environment', () => {
    expect(notOwnedReason(d, ours, 'c1')).to.equal(null);
    expect(notOwnedReason(d, { ...ours, 'stevedore.deployment-id': 'dep-2' }, 'c1')).to.equal('belongs to another deployment');
    expect(notOwnedReason(d, { ...ours, 'stevedore.environment-id': 'env-2' }, 'c1')).to.equal('belongs to another environment');
  });

  it('takes an unlabelled container only when adopted by id or made by a hand-written compose file', () => {
    expect(notOwnedReason(d, {}, 'c1')).to.equal('was not created by Stevedore');
    expect(notOwnedReason({ ...d, adoptedContainerId: 'c1' }, {}, 'c1')).to.equal(null);
    expect(notOwnedReason({ ...d, adoptedContainerId: 'c1' }, {}, 'c2')).to.equal('was not created by Stevedore');
    expect(notOwnedReason({ ...d, composePath: '/srv/app/compose.yml' }, {}, 'c1')).to.equal(null);
    expect(notOwnedReason({ ...d, composePath: '/opt/stevedore/deployments/x/compose.yml' }, {}, 'c1')).to.equal('was not created by Stevedore');
    // an adopted id whose container now carries another owner's labels is not ours
    expect(notOwnedReason({ ...d, adoptedContainerId: 'c1' }, { 'stevedore.managed': 'true', 'stevedore.deployment-id': 'dep-9' }, 'c1')).to.equal('belongs to another deployment');
  });

  it('reads the token of a bearer.<token> subprotocol and nothing else', () => {
    expect(bearerFromProtocols('stevedore.exec, bearer.abc.def')).to.equal('abc.def');
    expect(bearerFromProtocols('bearer.')).to.equal(null);
    expect(bearerFromProtocols('stevedore.exec')).to.equal(null);
    expect(bearerFromProtocols(undefined)).to.equal(null);
  });

  it('puts each argument in its own ?cmd=, quoted by the URL and never joined', () => {
    const url = new URL(execSocketUrl('https://ctl.example:8443/', '/api/services/s/deployments/d/exec/ws', ['sh', '-c', 'echo a&b=c; exit 3'], { cols: 80, rows: 24 }));
    expect(url.protocol).to.equal('wss:');
    expect(url.searchParams.getAll('cmd')).to.deep.equal(['sh', '-c', 'echo a&b=c; exit 3']);
    expect([url.searchParams.get('cols'), url.searchParams.get('rows')]).to.deep.equal(['80', '24']);
    expect(new URL(execSocketUrl('http://127.0.0.1:8080', '/x', ['id'])).protocol).to.equal('ws:');
  });
});
