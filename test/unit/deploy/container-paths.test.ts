import { expect } from 'chai';
import { reservedContainerPath, reservedMountOf, volumeTarget } from '../../../controller/deploy/container-paths.js';
import { hideHostPaths } from '../../../controller/deploy/host-paths.js';
import { assertTargetPath } from '../../../controller/config-files/target-path.js';
import { assertVolumeSpec } from '../../../controller/catalog/validators.js';

describe('container paths the kernel and Docker own', () => {
  it('refuses /proc, /sys, /dev and everything under them, the container root and the files Docker mounts', () => {
    for (const p of ['/proc', '/proc/self/environ', '/sys/kernel', '/dev', '/dev/null', '/dev/shm/x', '/', '//proc//self', '/proc/',
      '/etc/hostname', '/etc/hosts', '/etc/resolv.conf', '/.dockerenv']) {
      expect(reservedContainerPath(p), p).to.be.a('string');
    }
  });

  it('allows paths that only look alike', () => {
    for (const p of ['/procfs', '/etc/app/proc', '/devices/x', '/system', '/etc/hosts.allow', '/etc/hostname.d/a', '/var/lib/app']) {
      expect(reservedContainerPath(p), p).to.equal(null);
    }
  });

  it('config-file targets and volume container sides are refused with a clear message and a hint', () => {
    expect(() => assertTargetPath('/proc/self/environ')).to.throw('targetPath /proc/self/environ is inside /proc')
      .with.property('field', 'targetPath');
    expect(() => assertVolumeSpec('data:/sys/fs', 'volumes.0')).to.throw('volumes.0: the container path /sys/fs is inside /sys')
      .with.property('hint').that.includes('/var/lib/myapp');
    expect(() => assertVolumeSpec('/etc/hosts', 'volumes.1')).to.throw('Docker mounts');
    expect(() => assertVolumeSpec('/srv/proc:/data', 'volumes.2')).not.to.throw();
  });

  it('finds a reserved mount among a container\'s files and volumes (rows stored before the rule)', () => {
    expect(volumeTarget('data:/var/lib/app:ro')).to.equal('/var/lib/app');
    expect(volumeTarget('/cache')).to.equal('/cache');
    expect(reservedMountOf({ files: [{ targetPath: '/etc/app.conf' }], volumes: ['data:/data'] })).to.equal(null);
    expect(reservedMountOf({ files: [{ targetPath: '/proc/self/environ' }], volumes: [] })).to.match(/^the config-file target \/proc\/self\/environ is inside \/proc/);
    expect(reservedMountOf({ files: [], volumes: ['x:/dev/kmsg'] })).to.match(/^the volume x:\/dev\/kmsg is inside \/dev/);
  });
});

describe('host paths in error texts', () => {
  const id = 'a'.repeat(64);
  it('hides paths into the Docker data directory, wherever its root is', () => {
    const docker = `error mounting "/opt/stevedore/deployments/api/files/proc/self/environ" to rootfs at "/proc/self/environ": `
      + `mount /opt/x:/var/lib/docker/overlay2/${id}/merged/proc/self/environ (via /proc/self/fd/6), flags: 0x5000: not a directory`;
    const out = hideHostPaths(docker);
    expect(out).not.to.include('/var/lib/docker');
    expect(out).not.to.include(id);
    expect(out).to.include('<docker data dir>/…');
    expect(hideHostPaths(`open /srv/fleet3/s1/docker-root/containers/${id}/hostconfig.json: no such file`))
      .to.equal('open <docker data dir>/…: no such file');
  });

  it('leaves other text alone', () => {
    for (const t of ['pull access denied for acme/api', 'targetPath /proc/self/environ is inside /proc', `image sha256:${id}`]) expect(hideHostPaths(t)).to.equal(t);
  });
});
