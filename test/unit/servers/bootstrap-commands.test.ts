import { expect } from 'chai';
import { addSwapFile, asRoot, installDocker, startDocker } from '../../../controller/hosts/commands/bootstrap.js';
import { distributionOf } from '../../../controller/servers/os-release.js';
import { parseSwapShow } from '../../../controller/servers/swap.js';
import { parseDsn } from '../../../controller/admin/sentry-dsn.js';

describe('server bootstrap and swap commands', () => {
  it('finds the distribution and its package manager by ID, then ID_LIKE', () => {
    expect(distributionOf('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n'))
      .to.deep.include({ id: 'debian', versionId: '12', prettyName: 'Debian GNU/Linux 12 (bookworm)', packageManager: 'apt' });
    expect(distributionOf('ID=pop\nID_LIKE="ubuntu debian"\n').packageManager).to.equal('apt');
    expect(distributionOf('ID="rocky"\nID_LIKE="rhel centos fedora"\n').packageManager).to.equal('dnf');
    expect(distributionOf('ID=alpine\n').packageManager).to.equal('apk');
    expect(distributionOf('ID=mystery\n').packageManager).to.equal(null);
  });

  it('installs from the distribution\'s own packages, non-interactively, through sudo -n when not root', () => {
    expect(installDocker('apt').at(-1)).to.deep.equal(['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', 'docker.io']);
    expect(installDocker('dnf')).to.deep.equal([['dnf', 'install', '-y', 'moby-engine']]);
    expect(asRoot(false, ['apk', 'add', 'docker'])).to.deep.equal(['sudo', '-n', 'apk', 'add', 'docker']);
    expect(asRoot(true, ['apk', 'add', 'docker'])).to.deep.equal(['apk', 'add', 'docker']);
    expect(startDocker('systemd')).to.deep.equal([['systemctl', 'enable', '--now', 'docker']]);
    expect(startDocker('sysv')).to.deep.equal([['service', 'docker', 'start']]);
  });

  it('builds the swap file commands as argv, the path one word even with odd characters', () => {
    const cmds = addSwapFile('/swap file', 512);
    expect(cmds[0]).to.deep.equal(['sh', '-c', 'test ! -e "$1"', 'sh', '/swap file']);
    expect(cmds[1]).to.deep.equal(['sh', '-c', "fallocate -l 512M '/swap file' || dd if=/dev/zero 'of=/swap file' bs=1M count=512 status=none"]);
    expect(cmds.slice(2, 5)).to.deep.equal([['chmod', '600', '/swap file'], ['mkswap', '/swap file'], ['swapon', '/swap file']]);
    expect(parseSwapShow('/swapfile file 536866816 0\n/dev/sda2 partition 1024 12\n')).to.deep.equal([
      { name: '/swapfile', type: 'file', sizeBytes: 536866816, usedBytes: 0 },
      { name: '/dev/sda2', type: 'partition', sizeBytes: 1024, usedBytes: 12 },
    ]);
  });

  it('parses a Sentry DSN into its envelope endpoint and key', () => {
    expect(parseDsn('https://abc@o1.ingest.example.test/123')).to.deep.equal({
      publicKey: 'abc', origin: 'https://o1.ingest.example.test', projectId: '123', envelopeUrl: 'https://o1.ingest.example.test/api/123/envelope/',
    });
    expect(parseDsn('http://k@127.0.0.1:9000/sentry/7').envelopeUrl).to.equal('http://127.0.0.1:9000/sentry/api/7/envelope/');
    expect(() => parseDsn('https://host/1')).to.throw(/public key/);
  });
});
