import { expect } from 'chai';
import { SshConfigInvalid } from '../../../controller/hosts/errors.js';
import { SshDriver } from '../../../controller/hosts/ssh-driver.js';
import { SshPool } from '../../../controller/hosts/ssh-pool.js';

describe('ssh-connect', () => {
  it('reports an unparsable private key as terminal SshConfigInvalid, not as an unreachable host', async () => {
    const pool = new SshPool({ connectTimeoutMs: 1000 });
    pool.register({ id: 'bad', hostname: '127.0.0.1', sshPort: 9, sshUser: 'root', dockerMode: 'ssh' }, 'not a key');
    const err = await new SshDriver(pool).exec('bad', ['true']).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SshConfigInvalid);
    expect((err as SshConfigInvalid).retryable).to.equal(false);
    await pool.close();
  });
});
