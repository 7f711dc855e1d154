import { expect } from 'chai';
import { ComposeDetector } from '../../../controller/hosts/compose-detect.js';
import { createDockerClient } from '../../../controller/hosts/docker-client.js';
import { serverExec } from '../../fleet/fleet.js';
import { hostLayer, type HostLayer } from './host-layer.js';

describe('dockerode over the pooled ssh connection (e2e)', () => {
  let h: HostLayer;
  const name = `stevedore-e2e-hand-${process.pid}`;
  before(() => { h = hostLayer(); });
  after(async () => {
    await serverExec('s1', ['docker', 'rm', '-f', name]).catch(() => undefined);
    await h.pool.close();
  });

  it('pings and lists containers on every server through one connection each', async () => {
    for (const n of h.names) {
      const docker = h.docker.for(n);
      expect(String(await docker.ping())).to.equal('OK');
      expect((await docker.info()).Name).to.equal(n);
      for (let i = 0; i < 5; i++) expect(await docker.listContainers({ all: true })).to.be.an('array');
      expect(h.pool.connectCount(n)).to.equal(1);
    }
  });

  it('sees a container started by hand on the server', async () => {
    await serverExec('s1', ['docker', 'run', '-d', '--name', name, '--label', 'stevedore.e2e=hand', h.fleet.images.busybox, 'sleep', '300']);
    const found = await h.docker.for('s1').listContainers({ filters: { label: ['stevedore.e2e=hand'] } });
    expect(found.map((c) => c.Names[0])).to.deep.equal([`/${name}`]);
    const other = await h.docker.for('s2').listContainers({ all: true, filters: { label: ['stevedore.e2e=hand'] } });
    expect(other).to.have.length(0);
  });

  it('talks to a server through its local socket in socket mode', async () => {
    const s3 = h.fleet.servers[2]!;
    const docker = createDockerClient(h.pool, { id: 's3-socket', hostname: s3.host, sshPort: s3.port, sshUser: s3.user, dockerMode: 'socket', dockerSocketPath: s3.dockerSocket! });
    expect((await docker.info()).Name).to.equal('s3');
  });

  it('detects the compose flavour once per server', async () => {
    const plugin = await serverExec('s1', ['sh', '-c', 'docker compose version >/dev/null 2>&1 && echo plugin || echo standalone']);
    const detector = new ComposeDetector(h.driver);
    expect(await detector.flavor('s1')).to.equal(plugin.trim());
    const before = h.pool.connectCount('s1');
    expect(await detector.flavor('s1')).to.equal(plugin.trim());
    expect(h.pool.connectCount('s1')).to.equal(before);
  });
});
