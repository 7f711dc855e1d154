// The test fleet's servers are honest: a file written on one server is on that server only, not on
// its siblings nor on the host (each server has private /etc, /opt, /srv, /tmp, ... see
// test/fleet/common.sh). Without this, a test could "see" a file on s2 that was written on s3.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { readFile, writeFileAtomic } from '../../controller/hosts/sftp.js';
import { serverExec } from '../fleet/fleet.js';
import { hostLayer, type HostLayer } from './hosts/host-layer.js';

/** Every directory a deploy, a config sync or a test writes into on a server. */
const WRITTEN_DIRS = ['/etc', '/opt/stevedore/deployments', '/srv', '/tmp', '/root', '/var/lib/stevedore'];

/** Which of the paths exist on the server (one call: serverExec is slow on a busy machine). */
async function existingOn(server: string, paths: string[]): Promise<string[]> {
  const out = await serverExec(server, ['sh', '-c', 'for p in "$@"; do [ -e "$p" ] && echo "$p"; done; true', 'sh', ...paths]);
  return out.split('\n').filter(Boolean);
}

describe('test fleet isolation (each server has its own files)', function () {
  this.timeout(60_000);   // a dozen server.sh calls; slow when the machine is busy
  let h: HostLayer;
  const tag = randomBytes(4).toString('hex');
  const written: Array<[string, string]> = [];

  before(() => { h = hostLayer(); });
  after(async () => {
    for (const [server, path] of written) await serverExec(server, ['rm', '-rf', '--', path]).catch(() => undefined);
    await h.pool.close();
  });

  it('a file written on s1 through the fleet\'s own access is on s1 only', async () => {
    const [first, ...others] = h.names;
    const paths = WRITTEN_DIRS.map((dir) => `${dir}/fleet-isolation-${tag}-exec`);
    for (const path of paths) written.push([first!, path]);
    await serverExec(first!, ['sh', '-c', 'for p in "$@"; do mkdir -p "$(dirname "$p")" && echo "$p" >"$p"; done', 'sh', ...paths]);
    expect(await serverExec(first!, ['cat', ...paths])).to.equal(paths.map((p) => `${p}\n`).join(''));
    for (const other of others) expect(await existingOn(other, paths), `on ${other}`).to.deep.equal([]);
    expect(paths.filter((p) => existsSync(p)), 'on the host').to.deep.equal([]);
  });

  it('a file written on s2 through our SSH/SFTP layer under /etc and /opt is on s2 only', async () => {
    const target = h.names[1]!;
    const paths = [`/etc/fleet-isolation-${tag}/app.conf`, `/opt/stevedore/deployments/fleet-isolation-${tag}/docker-compose.yml`];
    for (const path of paths) {
      written.push([target, path.slice(0, path.lastIndexOf('/'))]);
      await writeFileAtomic(h.pool, target, path, `written on ${target}\n`, { mode: 0o644 });
      expect(await serverExec(target, ['cat', path]), path).to.equal(`written on ${target}\n`);
      for (const other of h.names.filter((n) => n !== target)) {
        expect(await readFile(h.pool, other, path), `${path} read over ssh from ${other}`).to.equal(null);
        expect(await existingOn(other, [path]), `${path} on ${other}`).to.deep.equal([]);
      }
      expect(existsSync(path), `${path} on the host`).to.equal(false);
    }
  });

  it('a file written on the host is on no server, and each server keeps a working copy of /etc', async () => {
    const hostFile = `/opt/fleet-isolation-${tag}-host`;
    writeFileSync(hostFile, 'host only\n');
    try {
      for (const name of h.names) {
        expect(await existingOn(name, [hostFile]), `${hostFile} on ${name}`).to.deep.equal([]);
        // the private /etc is a working copy of the host's: own hostname, root in /etc/passwd
        expect(await serverExec(name, ['sh', '-c', 'cat /etc/hostname; id -un'])).to.equal(`${name}\nroot\n`);
      }
    } finally {
      rmSync(hostFile, { force: true });
    }
  });
});
