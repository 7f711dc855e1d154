import { expect } from 'chai';
import { HostUnreachable } from '../../../controller/hosts/errors.js';
import { serverCtl } from '../../fleet/fleet.js';
import { hostLayer, type HostLayer } from './host-layer.js';

describe('unreachable servers (e2e)', function () {
  this.timeout(30_000);
  let h: HostLayer;
  before(() => { h = hostLayer(); });
  after(async () => {
    await serverCtl('s2', 'start-ssh');
    await h.pool.close();
  });

  it('fails fast with HostUnreachable when sshd is down, and reconnects once it is back', async () => {
    await h.driver.exec('s2', ['true']);
    const connects = h.pool.connectCount('s2');
    await serverCtl('s2', 'stop-ssh');

    const t0 = performance.now();
    const err = await h.driver.exec('s2', ['true'], { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(HostUnreachable);
    expect((err as HostUnreachable).retryable).to.equal(true);
    expect(performance.now() - t0).to.be.below(2000);
    // other servers are not affected
    expect((await h.driver.exec('s1', ['hostname'])).stdout).to.equal('s1\n');

    await serverCtl('s2', 'start-ssh');
    expect((await h.driver.exec('s2', ['hostname'])).stdout).to.equal('s2\n');
    expect(h.pool.connectCount('s2')).to.be.above(connects);
    expect(String(await h.docker.for('s2').ping())).to.equal('OK');
  });
});
