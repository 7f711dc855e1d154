// The registry client against the fleet's three real registry fronts (one storage): open, basic
// auth (htpasswd) and bearer token (a real token server). Each test stands alone.
import { expect } from 'chai';
import { RegistryClient } from '../../../controller/registry/registry-client.js';
import { isRegistryError, type RegistryError } from '../../../controller/registry/registry-error.js';
import { loadFleet } from '../../fleet/fleet.js';
import { OutgoingGuard } from '../../../controller/net/outgoing-guard.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';

const fleet = loadFleet();
// the fleet's registries listen on this host's bridge address; the refused-port case aims at loopback
const guard = new OutgoingGuard(async () => TEST_ALLOW_LIST.split(','));
const open = () => new RegistryClient({ guard, url: `http://${fleet.registry.address}`, pageSize: 1 });
const basic = (password = fleet.authRegistry.password) => new RegistryClient({ guard, url: `http://${fleet.authRegistry.address}`, username: fleet.authRegistry.username, password });
const bearer = (password = fleet.tokenRegistry.password) => new RegistryClient({ guard, url: `http://${fleet.tokenRegistry.address}`, username: fleet.tokenRegistry.username, password });

async function failure(p: Promise<unknown>): Promise<RegistryError> {
  try {
    await p;
  } catch (e) {
    if (isRegistryError(e)) return e;
    throw e;
  }
  throw new Error('expected a RegistryError');
}

describe('e2e: registry client', function () {
  this.timeout(20_000);

  it('lists the catalog and tags across Link pages (one entry per page)', async () => {
    const c = open();
    expect(await c.ping()).to.equal(true);
    expect(await c.catalog()).to.include.members(['stevedore-test/web', 'stevedore-test/busybox']);
    expect(await c.tags('stevedore-test/web')).to.include.members(['v1', 'v2', 'unhealthy']);
  });

  it('reads the same digest by HEAD and GET, for the Docker v2 / OCI manifest', async () => {
    const c = open();
    const head = await c.digest('stevedore-test/web', 'v1');
    const { ref, body } = await c.manifest('stevedore-test/web', 'v1');
    expect(head.digest).to.match(/^sha256:[0-9a-f]{64}$/).and.equal(ref.digest);
    expect(body.schemaVersion).to.equal(2);
    expect(head.digest).not.to.equal((await c.digest('stevedore-test/web', 'v2')).digest);
  });

  it('says unknown repository and unknown tag on 404s', async () => {
    const c = open();
    const repo = await failure(c.tags('stevedore-test/nothing-here'));
    expect(repo.kind).to.equal('not-found');
    expect(repo.message).to.contain('unknown repository');
    const tag = await failure(c.digest('stevedore-test/web', 'no-such-tag'));
    expect(tag.kind).to.equal('not-found');
  });

  it('answers a Basic challenge with the credentials and refuses wrong ones with a clear 401', async () => {
    expect((await basic().digest('stevedore-test/web', 'v1')).digest).to.equal((await open().digest('stevedore-test/web', 'v1')).digest);
    const wrong = await failure(basic('wrong-password').ping());
    expect(wrong.kind).to.equal('unauthorized');
    expect(wrong.message).to.contain('refused the credentials').and.not.contain('wrong-password');
    const none = await failure(new RegistryClient({ guard, url: `http://${fleet.authRegistry.address}` }).ping());
    expect(none.message).to.contain('has no credentials');
  });

  it('gets a bearer token from the token server for each scope, and is refused with wrong credentials', async () => {
    const c = bearer();
    expect(await c.catalog()).to.include('stevedore-test/web');
    expect((await c.digest('stevedore-test/web', 'v2')).digest).to.equal((await open().digest('stevedore-test/web', 'v2')).digest);
    const wrong = await failure(bearer('wrong-password').tags('stevedore-test/web'));
    expect(wrong.kind).to.equal('unauthorized');
    expect(wrong.message).to.contain('token service').and.contain('refused the credentials');
  });

  it('names unreachable hosts, timeouts and TLS failures', async () => {
    const refused = await failure(new RegistryClient({ guard, url: 'http://127.0.0.1:1' }).ping());
    expect(refused.kind).to.equal('unreachable');
    // the plain-HTTP registry spoken to over TLS: the handshake fails
    const tls = await failure(new RegistryClient({ guard, url: `https://${fleet.registry.address}`, timeoutMs: 5000 }).ping());
    expect(tls.kind).to.equal('tls');
  });
});
