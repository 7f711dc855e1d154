import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { readFile, writeFileAtomic } from '../../../controller/hosts/sftp.js';
import { serverExec } from '../../fleet/fleet.js';
import { hostLayer, scratchDir, type HostLayer } from './host-layer.js';

describe('sftp atomic files (e2e)', () => {
  let h: HostLayer;
  const dir = scratchDir();
  before(() => { h = hostLayer(); });
  after(async () => {
    await h.driver.exec('s2', ['rm', '-rf', '--', dir]).catch(() => undefined);
    await h.pool.close();
  });

  it('writes into a new directory tree and reads back byte for byte with mode 0600', async () => {
    const path = `${dir}/a/b/secret.bin`;
    const data = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(100_000)]);
    await writeFileAtomic(h.pool, 's2', path, data);
    const back = await readFile(h.pool, 's2', path);
    expect(back).to.not.equal(null);
    expect(Buffer.compare(back!, data)).to.equal(0);
    expect((await serverExec('s2', ['stat', '-c', '%a', path])).trim()).to.equal('600');
    const sum = (await serverExec('s2', ['sha256sum', path])).split(' ')[0];
    const { createHash } = await import('node:crypto');
    expect(sum).to.equal(createHash('sha256').update(data).digest('hex'));
  });

  it('replaces an existing file and leaves no temporary files behind', async () => {
    const path = `${dir}/config.env`;
    await writeFileAtomic(h.pool, 's2', path, 'A=1\n', { mode: 0o644 });
    await writeFileAtomic(h.pool, 's2', path, 'A=2\n', { mode: 0o640 });
    expect((await readFile(h.pool, 's2', path))!.toString()).to.equal('A=2\n');
    expect((await serverExec('s2', ['stat', '-c', '%a', path])).trim()).to.equal('640');
    expect((await serverExec('s2', ['ls', '-A', dir])).trim().split('\n').sort()).to.deep.equal(['a', 'config.env']);
  });

  it('reads an absent file as null', async () => {
    expect(await readFile(h.pool, 's2', `${dir}/does-not-exist`)).to.equal(null);
  });
});
