import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { createEnvironment, startWithRoles } from '../support/fixtures.js';
import { createService, expectError, insertServer, limitedToken } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import type { ServerSample } from '../../controller/monitoring/server-sample.js';
import { METRICS_EVENT } from '../../controller/monitoring/metrics-worker.js';
import { until } from '../support/until.js';
import { openStream } from '../support/sse-stream.js';

describe('metrics routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let alpha: { id: string; name: string };
  let beta: { id: string; name: string };
  // taken when the file's tests start, not when it is loaded: a whole suite loads every file first
  let now: number;
  // history samples end on a 10-minute boundary, so 5-minute buckets line up with them
  let minute: number;

  before(async () => {
    now = Date.now();
    minute = Math.floor(now / 600_000) * 600_000;
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    alpha = await insertServer(svc, envId, 'alpha');
    beta = await insertServer(svc, envId, 'beta');
    const samples: ServerSample[] = [];
    for (let i = 10; i >= 1; i--) {
      const at = new Date(minute - i * 60_000);
      samples.push({ serverId: alpha.id, at, source: 'ssh', cpuPercent: 20, memoryUsedBytes: 1000, memoryTotalBytes: 4000, diskUsedBytes: 10, diskTotalBytes: 100 });
      samples.push({ serverId: beta.id, at, source: 'ssh', cpuPercent: 40, memoryUsedBytes: 3000, memoryTotalBytes: 4000 });
    }
    samples.push({ serverId: beta.id, at: new Date(now - 2000), source: 'ssh', cpuPercent: 40, memoryUsedBytes: 3000, memoryTotalBytes: 4000 });
    samples.push({
      serverId: alpha.id, at: new Date(now - 1000), source: 'ssh', cpuPercent: 12.5, memoryUsedBytes: 1500, memoryTotalBytes: 4000,
      containers: [{ name: 'web-1', cpuPercent: 3.5, memoryUsedBytes: 100, memoryLimitBytes: 1000 }, { name: 'other', cpuPercent: 1, memoryUsedBytes: 1, memoryLimitBytes: 2 }],
    });
    await svc.services.serverSamples.insertServerSamples(samples);
  });
  after(() => svc.stop());

  it("GET /api/servers/{id}/metrics answers the newest sample, absent metrics left out", async () => {
    const res = await viewer.get(`/api/servers/${alpha.id}/metrics`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ serverId: alpha.id, metricsMode: 'disabled', stale: false });
    expect(res.body.sample).to.include({ source: 'ssh', cpuPercent: 12.5, memoryUsedBytes: 1500 });
    expect(res.body.sample).to.not.have.property('diskUsedBytes');
    expect(res.body.sample.containers).to.have.length(2);
    const none = await insertServer(svc, envId);
    expect((await viewer.get(`/api/servers/${none.id}/metrics`)).body).to.deep.include({ stale: true, sample: null });
    expectError(await viewer.get('/api/servers/00000000-0000-4000-8000-000000000000/metrics'), 404, 'NOT_FOUND');
  });

  it("GET /api/services/{id}/metrics answers each deployment's container stats", async () => {
    const web = await createService(operator, envId, { name: `web-${Date.now()}` });
    for (const [serverId, containerName] of [[alpha.id, 'web-1'], [beta.id, 'web-2']]) {
      const d = await operator.post(`/api/services/${web.id}/deployments`, { serverId, containerName });
      expect(d.status, d.text).to.equal(201);
    }
    const res = await viewer.get(`/api/services/${web.id}/metrics`);
    expect(res.status, res.text).to.equal(200);
    const byName = Object.fromEntries(res.body.items.map((i: any) => [i.containerName, i]));
    expect(byName['web-1']).to.include({ serverId: alpha.id, serverName: 'alpha', cpuPercent: 3.5, memoryUsedBytes: 100, memoryLimitBytes: 1000 });
    expect(byName['web-2']).to.include({ serverName: 'beta', cpuPercent: null, at: null });
  });

  it("GET /api/services/{id}/metrics/history answers each container's CPU and memory per bucket, aligned", async () => {
    const web = await createService(operator, envId, { name: `hist-${Date.now()}` });
    for (const [serverId, containerName] of [[alpha.id, 'hist-1'], [beta.id, 'hist-2']]) {
      const d = await operator.post(`/api/services/${web.id}/deployments`, { serverId, containerName });
      expect(d.status, d.text).to.equal(201);
    }
    // hist-1 on alpha in three minutes, hist-2 on beta in one; a container of the same name on
    // another server and another container on alpha stay out
    const at = (m: number) => new Date(minute - 3 * 3_600_000 + m * 60_000); // older than the newest samples of the other tests
    const c = (name: string, cpu: number, mem: number) => ({ name, cpuPercent: cpu, memoryUsedBytes: mem, memoryLimitBytes: 1000 });
    await svc.services.serverSamples.insertServerSamples([
      { serverId: alpha.id, at: at(0), source: 'ssh', containers: [c('hist-1', 1, 100), c('other', 9, 9)] },
      { serverId: alpha.id, at: at(1), source: 'ssh', containers: [c('hist-1', 2, 200)] },
      { serverId: alpha.id, at: at(2), source: 'ssh', containers: [c('hist-1', 3.333, 300)] },
      { serverId: beta.id, at: at(1), source: 'ssh', containers: [c('hist-2', 7, 700), c('hist-1', 50, 5000)] },
    ]);
    const q = `from=${at(0).toISOString()}&to=${at(3).toISOString()}&stepSec=60`;
    const res = await viewer.get(`/api/services/${web.id}/metrics/history?${q}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ stepSec: 60, from: at(0).toISOString() });
    expect(res.body.timestamps).to.deep.equal([0, 1, 2].map((m) => at(m).toISOString()));
    const byName = Object.fromEntries(res.body.containers.map((x: any) => [x.containerName, x]));
    expect(byName['hist-1']).to.deep.include({ serverId: alpha.id, serverName: 'alpha', cpuPercent: [1, 2, 3.33], memoryUsedBytes: [100, 200, 300] });
    expect(byName['hist-2']).to.deep.include({ serverId: beta.id, serverName: 'beta', cpuPercent: [null, 7, null], memoryUsedBytes: [null, 700, null] });
    // two minutes a bucket: the mean of the samples in it
    const wide = (await viewer.get(`/api/services/${web.id}/metrics/history?from=${at(0).toISOString()}&to=${at(4).toISOString()}&stepSec=120`)).body;
    expect(wide.containers.find((x: any) => x.containerName === 'hist-1').cpuPercent).to.deep.equal([1.5, 3.33]);
    expectError(await viewer.get(`/api/services/${web.id}/metrics/history?from=${at(3).toISOString()}&to=${at(0).toISOString()}`), 400, 'VALIDATION_ERROR');
  });

  it('GET …/metrics/history answers columnar buckets for one server or the environment', async () => {
    const from = new Date(minute - 10 * 60_000).toISOString();
    const to = new Date(minute).toISOString();
    const one = await viewer.get(`/api/environments/${envId}/metrics/history?serverId=${beta.id}&from=${from}&to=${to}&stepSec=60`);
    expect(one.status, one.text).to.equal(200);
    expect(one.body).to.include({ from, to, stepSec: 60 });
    expect(one.body.timestamps).to.have.length(10);
    expect(one.body.timestamps[0]).to.equal(from);
    expect(one.body.series.cpuPercent).to.deep.equal(Array(10).fill(40));
    expect(one.body.series.diskUsedBytes).to.deep.equal(Array(10).fill(null));
    // the environment, in 5-minute buckets: mean cpu, summed memory
    const env = await viewer.get(`/api/environments/${envId}/metrics/history?from=${from}&to=${to}&stepSec=300`);
    expect(env.body.timestamps).to.have.length(2);
    expect(env.body.series.cpuPercent).to.deep.equal([30, 30]);
    expect(env.body.series.memoryUsedBytes).to.deep.equal([4000, 4000]);
    // default range: the last hour, in about 720 points of at least a minute
    const dflt = await viewer.get(`/api/environments/${envId}/metrics/history`);
    expect(dflt.status, dflt.text).to.equal(200);
    expect(dflt.body.stepSec).to.equal(60);
    expect(dflt.body.series.cpuPercent.filter((v: unknown) => v !== null).length).to.be.at.least(2);
    expectError(await viewer.get(`/api/environments/${envId}/metrics/history?from=${to}&to=${from}`), 400, 'VALIDATION_ERROR', 'from');
    const other = await createEnvironment(admin);
    const stranger = await insertServer(svc, other.id);
    expectError(await viewer.get(`/api/environments/${envId}/metrics/history?serverId=${stranger.id}`), 404, 'NOT_FOUND');
  });

  it('monitoring summary and overview add up the fresh samples, per visible environment', async () => {
    const res = await viewer.get(`/api/environments/${envId}/monitoring/summary`);
    expect(res.status, res.text).to.equal(200);
    const a = res.body.servers.find((x: any) => x.serverId === alpha.id);
    expect(a).to.include({ name: 'alpha', stale: false });
    expect(res.body.totals).to.include({ reporting: 2, memoryUsedBytes: 4500, memoryTotalBytes: 8000, containers: 2 });
    expect(res.body.totals.cpuPercent).to.equal(26.25);
    const all = await viewer.get('/api/monitoring/overview');
    expect(all.status, all.text).to.equal(200);
    expect(all.body.items.find((i: any) => i.environmentId === envId).totals).to.include({ reporting: 2 });

    // an environment-limited token: only its environment in the overview, never server item routes
    const me = (await viewer.get('/api/auth/me')).body;
    const other = await createEnvironment(admin);
    const limited = await limitedToken(svc, viewer, me.id, [other.id]);
    const mine = await limited.get('/api/monitoring/overview');
    expect(mine.body.items.map((i: any) => i.environmentId)).to.deep.equal([other.id]);
    expectError(await limited.get(`/api/servers/${alpha.id}/metrics`), 403, 'FORBIDDEN_SCOPE');
    expectError(await limited.get(`/api/environments/${envId}/metrics/history`), 403, 'FORBIDDEN_SCOPE');
    expectError(await svc.http.get(`/api/environments/${envId}/monitoring/summary`), 401, 'UNAUTHORIZED');
  });

  it('GET …/metrics/stream sends the newest samples on connect, then each stored collection of the environment', async () => {
    const stream = openStream(`${svc.url}/api/environments/${envId}/metrics/stream`, viewer.token!);
    try {
      expect((await stream.ready).status).to.equal(200);
      const first = await until('the first frame', () => stream.frames[0]);
      expect(first.event).to.equal('metrics');
      expect(first.data.samples.map((x: any) => x.serverId).sort()).to.deep.equal([alpha.id, beta.id].sort());
      // a collection of another environment is not sent; this one's is
      const other = await createEnvironment(admin);
      await svc.services.events.publish(METRICS_EVENT, other.id, { serverIds: [alpha.id] });
      await svc.services.serverSamples.insertServerSamples([{ serverId: beta.id, at: new Date(), source: 'agent', cpuPercent: 77 }]);
      await svc.services.events.publish(METRICS_EVENT, envId, { serverIds: [beta.id] });
      const next = await until('the collection frame', () => stream.frames[1]);
      expect(next.id).to.match(/^\d+$/);
      expect(next.data.samples).to.have.length(1);
      expect(next.data.samples[0]).to.include({ serverId: beta.id, source: 'agent', cpuPercent: 77 });
      expect(stream.frames).to.have.length(2);
    } finally {
      stream.close();
    }
  });
});
