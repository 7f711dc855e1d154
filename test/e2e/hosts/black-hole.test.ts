import { expect } from 'chai';
import { HostUnreachable } from '../../../controller/hosts/errors.js';
import { startBlackHole, type BlackHole } from '../../fleet/black-hole.js';
import { privateKeyOf } from '../../fleet/fleet.js';
import { hostLayer, type HostLayer } from './host-layer.js';

// The black hole is a local TCP server that accepts and never answers (test/fleet/black-hole.ts).
describe('a black-hole server (e2e)', () => {
  let h: HostLayer;
  let hole: BlackHole;
  before(async () => {
    hole = await startBlackHole();
    h = hostLayer({ connectTimeoutMs: 2000 });
    h.pool.register({ id: 'hole', hostname: '127.0.0.1', sshPort: hole.port, sshUser: 'root', dockerMode: 'ssh' }, privateKeyOf(h.fleet.servers[0]!));
  });
  after(async () => {
    await h.pool.close();
    await hole.close();
  });

  it('does not block commands to other servers, and itself fails as unreachable', async () => {
    const t0 = performance.now();
    const stuck = h.driver.exec('hole', ['true'], { timeoutMs: 10_000 }).catch((e: unknown) => e);
    const others = await Promise.all(h.names.map(async (n) => {
      const t = performance.now();
      await h.driver.exec(n, ['hostname']);
      return performance.now() - t;
    }));
    for (const ms of others) expect(ms).to.be.below(1000);

    const err = await stuck;
    expect(err).to.be.instanceOf(HostUnreachable);
    expect(performance.now() - t0).to.be.within(1900, 4000);
  });
});
