import { expect } from 'chai';
import { startWithRoles } from '../support/fixtures.js';
import { insertServer } from '../support/catalog-fixtures.js';
import type { TestService } from '../support/test-service.js';
import type { ServerSample } from '../../controller/monitoring/server-sample.js';

const DAY = 86_400_000;
const utcDay = (t: number) => new Date(Math.floor(t / DAY) * DAY);
const partitionOf = (d: Date) => `server_samples_p${d.toISOString().slice(0, 10).replaceAll('-', '')}`;

describe('server samples storage (daily partitions)', () => {
  let svc: TestService;
  let envId: string;
  before(async () => { ({ svc, envId } = await startWithRoles()); });
  after(() => svc.stop());

  it('stores a batch across days in one insert, creating the partitions it meets, and reads the latest back', async () => {
    const a = await insertServer(svc, envId);
    const b = await insertServer(svc, envId);
    const now = Date.now();
    const samples: ServerSample[] = [
      { serverId: a.id, at: new Date(now - 2 * DAY), source: 'ssh', cpuPercent: 10, memoryUsedBytes: 1e9, memoryTotalBytes: 4e9 },
      { serverId: a.id, at: new Date(now - 1000), source: 'ssh', cpuPercent: 42.5, load1: 0.5, openFds: 1234,
        containers: [{ name: 'web-1', cpuPercent: 1.5, memoryUsedBytes: 1000, memoryLimitBytes: 2000 }] },
      { serverId: b.id, at: new Date(now - 2000), source: 'agent', swapUsedBytes: 0 },
    ];
    await svc.services.serverSamples.insertServerSamples(samples);
    const parts = await svc.services.serverSamples.partitions.names();
    expect(parts).to.include.members([partitionOf(utcDay(now - 2 * DAY)), partitionOf(utcDay(now))]);

    const latest = await svc.services.serverSamples.latest([a.id, b.id], new Date(now - DAY));
    const ofA = latest.find((s) => s.serverId === a.id)!;
    expect(ofA).to.deep.include({ source: 'ssh', cpuPercent: 42.5, load1: 0.5, openFds: 1234 });
    expect(ofA.containers).to.deep.equal(samples[1]!.containers);
    // a metric that was not collected is absent, zero stays zero
    expect(ofA).to.not.have.property('memoryUsedBytes');
    const ofB = latest.find((s) => s.serverId === b.id)!;
    expect(ofB).to.deep.include({ source: 'agent', swapUsedBytes: 0 });
    expect(ofB).to.not.have.property('cpuPercent');
  });

  it('downsamples history to buckets: mean per server, then mean of percentages and sum of bytes', async () => {
    const a = await insertServer(svc, envId);
    const b = await insertServer(svc, envId);
    const t0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000; // the start of the previous hour
    const samples: ServerSample[] = [];
    for (let i = 0; i < 10; i++) {
      samples.push({ serverId: a.id, at: new Date(t0 + i * 60_000), source: 'ssh', cpuPercent: i < 5 ? 10 : 30, memoryUsedBytes: 100 });
      samples.push({ serverId: b.id, at: new Date(t0 + i * 60_000), source: 'ssh', cpuPercent: 50, memoryUsedBytes: 300 });
    }
    await svc.services.serverSamples.insertServerSamples(samples);
    const both = await svc.services.serverSamples.history({ serverIds: [a.id, b.id], from: new Date(t0), to: new Date(t0 + 600_000), stepSec: 300 });
    expect(both.buckets).to.deep.equal([t0 / 1000, t0 / 1000 + 300]);
    expect(JSON.parse(both.seriesJson).cpuPercent).to.deep.equal([30, 40]);
    expect(JSON.parse(both.seriesJson).memoryUsedBytes).to.deep.equal([400, 400]);
    expect(JSON.parse(both.seriesJson).load1).to.deep.equal([null, null]);
    const one = await svc.services.serverSamples.history({ serverIds: [a.id], from: new Date(t0), to: new Date(t0 + 600_000), stepSec: 600 });
    expect(JSON.parse(one.seriesJson).cpuPercent).to.deep.equal([20]);
    const none = await svc.services.serverSamples.history({ serverIds: [a.id], from: new Date(t0 - 7_200_000), to: new Date(t0 - 3_600_000), stepSec: 600 });
    expect(none.buckets).to.deep.equal([]);
    expect(JSON.parse(none.seriesJson).cpuPercent).to.deep.equal([]);
  });

  it('retention drops whole partitions older than the cutoff and keeps the rest', async () => {
    const s = svc.services.serverSamples;
    const old = utcDay(Date.now() - 40 * DAY);
    expect(await s.partitions.ensure(old, 2)).to.have.length(2);
    const a = await insertServer(svc, envId);
    await s.insertServerSamples([{ serverId: a.id, at: new Date(old.getTime() + 3_600_000), source: 'ssh', cpuPercent: 1 }]);
    const dropped = await s.partitions.dropBefore(new Date(old.getTime() + DAY));
    expect(dropped).to.deep.equal([partitionOf(old)]);
    const parts = await s.partitions.names();
    expect(parts).to.not.include(partitionOf(old));
    expect(parts).to.include(partitionOf(new Date(old.getTime() + DAY)));
    expect(parts).to.include(partitionOf(utcDay(Date.now())));
  });

  it('vacuums the finished days that took inserts, once, and leaves today alone', async () => {
    const s = svc.services.serverSamples;
    const a = await insertServer(svc, envId);
    const yesterday = utcDay(Date.now() - DAY);
    await s.insertServerSamples([
      { serverId: a.id, at: new Date(yesterday.getTime() + 60_000), source: 'ssh', cpuPercent: 5 },
      { serverId: a.id, at: new Date(), source: 'ssh', cpuPercent: 6 },
    ]);
    // the statistics collector reports inserts at transaction end, give it its moment
    let vacuumed: string[] = [];
    for (let i = 0; i < 50 && !vacuumed.includes(partitionOf(yesterday)); i++) {
      vacuumed = vacuumed.concat(await s.partitions.vacuumPast(new Date()));
      if (!vacuumed.includes(partitionOf(yesterday))) await new Promise((r) => setTimeout(r, 100));
    }
    expect(vacuumed).to.include(partitionOf(yesterday));
    expect(vacuumed).to.not.include(partitionOf(utcDay(Date.now())));
    expect(await s.partitions.vacuumPast(new Date())).to.not.include(partitionOf(yesterday));
  });
});
