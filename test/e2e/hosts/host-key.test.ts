import { expect } from 'chai';
import { HostKeyMismatch } from '../../../controller/hosts/errors.js';
import { SshDriver } from '../../../controller/hosts/ssh-driver.js';
import { SshPool } from '../../../controller/hosts/ssh-pool.js';
import { loadFleet, privateKeyOf, serverCtl, toHostServer } from '../../fleet/fleet.js';

describe('host key pinning (e2e)', function () {
  this.timeout(30_000);

  it('learns and persists an unknown host key on first use', async () => {
    const s1 = loadFleet().servers[0]!;
    const persisted: Array<[string, string]> = [];
    const pool = new SshPool({ onNewHostKey: (id, fp) => { persisted.push([id, fp]); } });
    pool.register({ ...toHostServer(s1), hostKeyFingerprint: null }, privateKeyOf(s1));
    await new SshDriver(pool).exec('s1', ['true']);
    expect(persisted).to.deep.equal([['s1', s1.hostKeyFingerprint]]);
    await pool.close();
  });

  it('refuses a changed host key with HostKeyMismatch showing both fingerprints', async () => {
    const s3 = loadFleet().servers[2]!;
    const pool = new SshPool();
    pool.register(toHostServer(s3), privateKeyOf(s3));
    const driver = new SshDriver(pool);
    await driver.exec('s3', ['true']);

    const rotated = await serverCtl('s3', 'rotate-hostkey'); // also kills the pooled connection
    const err = await driver.exec('s3', ['true']).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(HostKeyMismatch);
    const mismatch = err as HostKeyMismatch;
    expect(mismatch.expected).to.equal(s3.hostKeyFingerprint);
    expect(mismatch.actual).to.equal(rotated);
    expect(mismatch.message).to.contain(`expected ${s3.hostKeyFingerprint}`).and.contain(`got ${rotated}`);
    expect(mismatch.retryable).to.equal(false);
    await pool.close();

    // the fleet now advertises the new key, and pinning it works again
    expect(loadFleet().servers[2]!.hostKeyFingerprint).to.equal(rotated);
  });
});
