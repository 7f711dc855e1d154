// SSH metrics against the real fleet, collected by the scheduled worker (the real trigger, at a
// one-second cadence): plausible values checked against the servers themselves, a monitoring
// toggle respected, and retention dropping an old partition.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../../fleet/fleet.js';
import { until } from '../../support/until.js';

const DAY = 86_400_000;

const WAIT = { timeoutMs: 30_000, everyMs: 200 };

describe('ssh metrics on the fleet (e2e)', function () {
  this.timeout(90_000);
  let svc: TestService;
  let fleet: Fleet;
  let admin: HttpClient;
  let envId: string;
  const ids: Record<string, string> = {};
  let probeStarted = 0;

  /** The server's newest sample taken after `after`, once the worker has stored one with cpu. */
  const sampleAfter = (name: string, after: number, wantCpu = true) => until(`a sample of ${name}`, async () => {
    const res = await admin.get(`/api/servers/${ids[name]}/metrics`);
    expect(res.status, res.text).to.equal(200);
    const s = res.body.sample;
    return s && Date.parse(s.at) > after && (!wantCpu || s.cpuPercent !== undefined) ? s : undefined;
  }, WAIT);

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService({
      SCHEDULER_METRICS_SEC: '1', SCHEDULER_METRICS_RETENTION_SEC: '1', METRICS_RETENTION_DAYS: '3', SCHEDULER_HEALTH_CHECK_SEC: '86400',
    });
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    const key = await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) });
    expect(key.status, key.text).to.equal(200);
    for (const f of fleet.servers) {
      const res = await admin.post(`/api/environments/${envId}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user, metricsMode: 'ssh' });
      expect(res.status, res.text).to.equal(201);
      ids[f.name] = res.body.id;
    }
    await serverExec('s1', ['docker', 'run', '-d', '--name', 'metrics-probe', fleet.images.busybox, 'sleep', '2147483647']);
    probeStarted = Date.now();
  });
  after(async () => {
    await serverExec('s1', ['docker', 'rm', '-f', 'metrics-probe']).catch(() => undefined);
    await svc?.stop();
  });

  it('samples the three servers with plausible values that match what the servers report', async () => {
    const started = Date.now();
    for (const f of fleet.servers) {
      const s = await sampleAfter(f.name, started - 60_000);
      expect(s.source).to.equal('ssh');
      expect(s.cpuPercent).to.be.within(0, 100);
      expect(s.memoryUsedBytes).to.be.above(0).and.below(s.memoryTotalBytes);
      expect(s.swapUsedBytes).to.be.at.most(s.swapTotalBytes);
      expect(s.diskUsedBytes).to.be.above(0).and.below(s.diskTotalBytes);
      expect(s.load1).to.be.at.least(0);
      expect(s.openFds).to.be.above(0);
      expect(s.processes).to.be.above(0);
      // at least the controller's own ssh connection is established in the server's network
      expect(s.tcpConnections).to.be.at.least(1);
      // the server's own view: its memory size, and the filesystem of its Docker data root
      const memTotal = Number(/MemTotal:\s+(\d+)/.exec(await serverExec(f.name, ['cat', '/proc/meminfo']))![1]) * 1024;
      expect(s.memoryTotalBytes).to.equal(memTotal);
      const root = (await serverExec(f.name, ['docker', 'info', '--format', '{{.DockerRootDir}}'])).trim();
      const df = (await serverExec(f.name, ['df', '-P', '-k', root])).trim().split('\n')[1]!.split(/\s+/);
      expect(s.diskTotalBytes).to.equal(Number(df[1]) * 1024);
    }
    // a sample taken once the probe runs (one taken while `docker run` was still creating it lists
    // no probe), waited for as the positive signal rather than read once
    const probeOf = (s: { containers?: Array<{ name: string; memoryUsedBytes: number }> }) => s.containers?.find((c) => c.name === 'metrics-probe');
    const s1 = await until('a sample of s1 listing the probe', async () => {
      const s = await sampleAfter('s1', probeStarted);
      return probeOf(s) ? s : undefined;
    }, WAIT);
    const probe = probeOf(s1);
    expect(probe, JSON.stringify(s1.containers)).to.exist;
    expect(probe!.memoryUsedBytes).to.be.above(0);
    // and it is history too: the environment's series has points with cpu
    const hist = await admin.get(`/api/environments/${envId}/metrics/history?serverId=${ids.s1}&stepSec=1&from=${new Date(started - 60_000).toISOString()}`);
    expect(hist.status, hist.text).to.equal(200);
    expect(hist.body.series.cpuPercent.filter((v: number | null) => v !== null).length).to.be.at.least(1);
  });

  it('the first sample of each server already carries CPU (two readings of /proc/stat a moment apart)', async () => {
    for (const f of fleet.servers) {
      await sampleAfter(f.name, 0, false);
      const first = await svc.services.db('server_samples').where({ serverId: ids[f.name] }).orderBy('at').first();
      expect(first.cpuPercent, `${f.name}'s first sample`).to.be.a('number').and.within(0, 100);
    }
  });

  it('leaves out a metric whose monitoring toggle is off, and collects it again once on', async () => {
    const off = await admin.patch(`/api/environments/${envId}/settings/monitoring`, { collectSwap: false, collectTcp: false });
    expect(off.status, off.text).to.equal(200);
    try {
      const s = await sampleAfter('s2', Date.now() + 100, false);
      expect(s).to.not.have.property('swapUsedBytes');
      expect(s).to.not.have.property('swapTotalBytes');
      expect(s).to.not.have.property('tcpConnections');
      expect(s.memoryTotalBytes).to.be.above(0);
    } finally {
      expect((await admin.patch(`/api/environments/${envId}/settings/monitoring`, { collectSwap: true, collectTcp: true })).status).to.equal(200);
    }
    const back = await sampleAfter('s2', Date.now() + 100, false);
    expect(back.tcpConnections).to.be.at.least(1);
  });

  it('drops a partition past METRICS_RETENTION_DAYS on the scheduled pass, keeping the recent ones', async () => {
    const samples = svc.services.serverSamples;
    const old = new Date(Math.floor((Date.now() - 10 * DAY) / DAY) * DAY);
    const name = `server_samples_p${old.toISOString().slice(0, 10).replaceAll('-', '')}`;
    // created here (the pass may drop it any moment after, so its creation is the proof it existed)
    expect(await samples.partitions.ensure(old, 1)).to.deep.equal([name]);
    await until('the old partition to go', async () => ((await samples.partitions.names()).includes(name) ? undefined : true), WAIT);
    const today = `server_samples_p${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(await samples.partitions.names()).to.include(today);
  });
});
