// Rollout waves on the fleet's three servers (docs/progressive-delivery.md): a canary of a good
// version, a version that turns unhealthy stopped at the canary and rolled back, a paused canary
// promoted through the API, and a metric ceiling that fails on a container burning CPU. What runs
// is checked on the servers themselves (docker inspect), never through our own readers.
import { expect } from 'chai';
import { cleanup, startWorld, waitPlan, type World } from '../deploy/deploy-world.js';
import { serverExec } from '../../fleet/fleet.js';
import { sleep, until } from '../../support/until.js';
import { openStream } from '../../support/sse-stream.js';
import { CliHome } from '../../support/cli-run.js';
import { Receiver } from '../../support/receiver.js';

const SERVERS = ['s1', 's2', 's3'] as const;

/** What the container is, as its server's Docker says: id, image, state. */
async function inspect(server: string, name: string): Promise<{ id: string; image: string; status: string }> {
  const [id, image, status] = (await serverExec(server, ['docker', 'inspect', '--format', '{{.Id}} {{.Config.Image}} {{.State.Status}}', name])).trim().split(' ');
  return { id, image, status };
}

describe('progressive delivery: canary waves with analysis (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let name: string;
  let serviceId: string;

  const plan = async (id: string) => (await w.admin.get(`/api/deployment-plans/${id}`)).body;
  const newestPlan = async (): Promise<string> => (await w.s.db('deployment_plans').where({ environmentId: w.envId }).orderBy('createdAt', 'desc').first()).id;
  const setRollout = async (rollout: unknown, extra: Record<string, unknown> = {}) => {
    const res = await w.admin.patch(`/api/services/${serviceId}`, { rollout, ...extra });
    expect(res.status, res.text).to.equal(200);
  };
  const deploy = async (imageTag: string) => {
    const res = await w.admin.post(`/api/services/${serviceId}/deploy`, { imageTag });
    expect(res.status, res.text).to.equal(202);
    return res.body.id as string;
  };
  const tagNow = async () => (await w.admin.get(`/api/services/${serviceId}`)).body.imageTag as string;
  const eventsOf = async (planId: string, type: string) =>
    (await w.s.db('events').where({ type }).orderBy('id')).filter((e: { data: { planId?: string } }) => e.data.planId === planId);

  before(async () => {
    w = await startWorld({ SCHEDULER_METRICS_SEC: '2' });
    name = `pd-${w.tag}-app`;
    for (const server of SERVERS) expect((await w.admin.patch(`/api/servers/${w.servers[server]}`, { labels: { role: 'web' } })).status).to.equal(200);
    const created = await w.admin.post(`/api/environments/${w.envId}/services`, {
      name, containerImageId: w.imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } },
    });
    expect(created.status, created.text).to.equal(201);
    serviceId = created.body.id;
    const first = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, { strategy: 'parallel' });
    expect(first.body.status, first.text).to.equal('succeeded');
  });
  after(() => cleanup(w));

  it('a canary rollout of a good version runs on one server, waits, then the rest', async () => {
    const from = await tagNow();
    const to = from === 'v1' ? 'v2' : 'v1';
    await setRollout({ strategy: 'canary', steps: [{ servers: 1 }, { pauseSec: 3 }], analysis: { durationSec: 3, httpGet: { port: 80, path: '/' } } });
    const before = Object.fromEntries(await Promise.all(SERVERS.map(async (x) => [x, await inspect(x, name)] as const)));
    const id = await deploy(to);

    // the canary alone, then watched
    const analysing = await until('the canary wave to be analysed', async () => {
      const p = await plan(id);
      return p.currentWave?.phase === 'analysing' && p;
    }, { timeoutMs: 60_000, everyMs: 100 });
    expect(analysing.currentWave).to.include({ index: 0, of: 2 });
    expect(analysing.waves.map((x: { size: number }) => x.size)).to.deep.equal([1, 2]);
    expect((await inspect('s1', name)).image).to.match(new RegExp(`web:${to}$`));
    for (const x of ['s2', 's3']) expect(await inspect(x, name), x).to.deep.equal(before[x]);

    // then the pause, the others still untouched
    const paused = await until('the pause after the canary', async () => {
      const p = await plan(id);
      return p.currentWave?.phase === 'paused' && p;
    }, { timeoutMs: 30_000, everyMs: 100 });
    expect(paused.currentWave.pausedBy).to.equal('rollout');
    expect(paused.currentWave.pauseUntil).to.be.a('string');
    expect(paused.waves[0].result).to.include({ verdict: 'passed' });
    expect(paused.waves[0].result.checks).to.deep.equal(['health, restarts <= 0', 'httpGet :80/ = 200']);
    for (const x of ['s2', 's3']) expect(await inspect(x, name), x).to.deep.equal(before[x]);

    const done = await waitPlan(w, id);
    expect(done.status, JSON.stringify(done)).to.equal('succeeded');
    for (const x of SERVERS) expect((await inspect(x, name)).image, x).to.match(new RegExp(`web:${to}$`));
    // the rest started only after the canary's analysis and pause
    const canary = done.steps.find((x: { wave: number }) => x.wave === 0);
    const rest = done.steps.filter((x: { wave: number }) => x.wave === 1);
    expect(rest).to.have.length(2);
    for (const r of rest) expect(new Date(r.startedAt).getTime() - new Date(canary.finishedAt).getTime()).to.be.at.least(6000);
    const started = await eventsOf(id, 'deployment.wave_started');
    expect(started.map((e: { data: { wave: number; containers: string[] } }) => [e.data.wave, e.data.containers.length])).to.deep.equal([[1, 1], [2, 2]]);
  });

  it('a version whose container turns unhealthy is stopped at the canary and rolled back; the other two containers are the same as before', async () => {
    // an outgoing webhook subscribed to the two new event types hears of the wave and of the failure
    const rx = new Receiver();
    await rx.start();
    const hook = await w.admin.post('/api/admin/webhooks', {
      name: `waves-${w.tag}`, url: `${rx.url}/hook`, enabled: true, eventTypes: ['deployment.wave_started', 'deployment.analysis_failed'], environmentIds: [w.envId],
    });
    expect(hook.status, hook.text).to.equal(201);
    await setRollout({ strategy: 'canary', steps: [{ servers: 1 }], analysis: { durationSec: 20 } });
    const before = Object.fromEntries(await Promise.all(SERVERS.map(async (x) => [x, await inspect(x, name)] as const)));
    // healthy at its first check, unhealthy from about four seconds after it
    const healthCheck = {
      test: ['CMD-SHELL', 'test -f /tmp/up || touch /tmp/up; [ $(( $(date +%s) - $(date -r /tmp/up +%s) )) -lt 4 ]'],
      intervalSec: 1, timeoutSec: 1, retries: 1,
    };
    const res = await w.admin.patch(`/api/services/${serviceId}`, { healthCheck });
    expect(res.status, res.text).to.equal(200);
    const id = await newestPlan();
    const done = await waitPlan(w, id);
    expect(done.status, JSON.stringify(done)).to.equal('rolled_back');
    expect(done.error).to.match(/^analysis after wave 1 failed: s1: unhealthy after \d+ s; rolled back$/);
    expect(done.steps.map((x: { serverId: string; status: string }) => [x.serverId, x.status])).to.deep.equal([
      [w.servers.s1, 'rolled_back'], [w.servers.s2, 'skipped'], [w.servers.s3, 'skipped'],
    ]);
    expect(done.waves[0]).to.include({ status: 'rolled_back' });
    expect(done.waves[0].result.failure).to.include({ check: 'health', target: 's1' });
    expect(done.waves[1]).to.include({ status: 'skipped' });
    for (const x of ['s2', 's3']) expect(await inspect(x, name), x).to.deep.equal(before[x]);
    // the canary runs the previous revision again: no healthcheck of its own, running
    const s1 = JSON.parse(await serverExec('s1', ['docker', 'inspect', name]))[0];
    expect(s1.Id).to.not.equal(before.s1.id);
    expect(s1.State.Status).to.equal('running');
    expect(JSON.stringify(s1.Config.Healthcheck ?? {})).to.not.include('/tmp/up');
    const failed = await eventsOf(id, 'deployment.analysis_failed');
    expect(failed).to.have.length(1);
    expect(failed[0].data).to.include({ check: 'health', target: 's1', wave: 1 });
    await rx.waitFor(() => rx.requests.some((r) => r.json?.event === 'deployment.analysis_failed'), 30_000, 'the analysis_failed delivery');
    const delivered = rx.requests.find((r) => r.json?.event === 'deployment.analysis_failed')!.json;
    expect(delivered.data).to.include({ planId: id, check: 'health', target: 's1' });
    expect(delivered.data.message).to.match(/analysis after wave 1 failed: s1: unhealthy after \d+ s$/);
    expect(rx.requests.filter((r) => r.json?.event === 'deployment.wave_started').map((r) => r.json.data.planId)).to.include(id);
    await w.admin.delete(`/api/admin/webhooks/${hook.body.id}`);
    await rx.stop();
    // put the healthcheck back for the next tests (a revert of the desired state, rolled out at once)
    const back = await w.admin.patch(`/api/services/${serviceId}`, { healthCheck: null, rollout: null });
    expect(back.status, back.text).to.equal(200);
    const restored = await newestPlan();
    if (restored !== id) expect((await waitPlan(w, restored)).status).to.equal('succeeded');
  });

  it('a paused canary is promoted through the API; its SSE stream and `stevedore plan follow` show the waves', async () => {
    const from = await tagNow();
    const to = from === 'v1' ? 'v2' : 'v1';
    await setRollout({ strategy: 'canary', steps: [{ servers: 1 }, { pause: true }] });
    const before = Object.fromEntries(await Promise.all(SERVERS.map(async (x) => [x, await inspect(x, name)] as const)));
    const [{ max: lastEventId }] = await w.s.db('events').max('id');
    const id = await deploy(to);
    // resumed from before the deploy (Last-Event-ID): every event of the plan, the first wave's included
    const stream = openStream(`${w.svc.url}/api/deployment-plans/${id}/events`, w.admin.token!, { 'last-event-id': String(lastEventId ?? 0) });
    const home = new CliHome();
    let followed = '';
    const follow = home.run(['plan', 'follow', id], { env: { STEVEDORE_URL: w.svc.url, STEVEDORE_TOKEN: w.admin.token! }, onStdout: (c) => { followed += c; } });
    try {
      const paused = await until('the canary to pause', async () => {
        const p = await plan(id);
        return p.currentWave?.phase === 'paused' && p;
      }, { timeoutMs: 60_000, everyMs: 100 });
      expect(paused.currentWave).to.include({ index: 0, pausedBy: 'rollout', pauseUntil: null });
      // it stays paused: nothing moves on the other servers while nobody promotes it
      await sleep(2000);
      expect((await plan(id)).currentWave.phase).to.equal('paused');
      for (const x of ['s2', 's3']) expect(await inspect(x, name), x).to.deep.equal(before[x]);
      expect((await inspect('s1', name)).image).to.match(new RegExp(`web:${to}$`));
      await until('plan follow to print the pause', () => followed.includes(`plan ${id}: wave 1/2 paused until promoted`), { timeoutMs: 15_000 });

      // resume is for an operator's pause; a rollout's pause ends by promote
      expect((await w.admin.post(`/api/deployment-plans/${id}/resume`)).status).to.equal(409);
      const promoted = await w.admin.post(`/api/deployment-plans/${id}/promote`);
      expect(promoted.status, promoted.text).to.equal(200);
      const done = await waitPlan(w, id);
      expect(done.status, JSON.stringify(done)).to.equal('succeeded');
      for (const x of SERVERS) expect((await inspect(x, name)).image, x).to.match(new RegExp(`web:${to}$`));
      expect((await w.admin.post(`/api/deployment-plans/${id}/promote`)).status).to.equal(409);

      const result = await follow;
      expect(result.code, result.stderr).to.equal(0);
      expect(followed).to.include(`plan ${id}: succeeded`);
      expect(followed.indexOf(`plan ${id}: wave 1/2 paused until promoted`)).to.be.below(followed.indexOf(`plan ${id}: succeeded`));
      await until('the stream to show the end', () => stream.frames.some((f) => f.event === 'plan.updated' && f.data.status === 'succeeded'), { timeoutMs: 10_000 });
      const phases = stream.frames.filter((f) => f.event === 'plan.updated' && f.data.currentWave).map((f) => `${f.data.currentWave.index}:${f.data.currentWave.phase}`);
      expect(phases).to.include('0:paused').and.include('1:deploying');
      expect(stream.frames.filter((f) => f.event === 'deployment.wave_started').map((f) => f.data.wave)).to.deep.equal([1, 2]);
    } finally {
      stream.close();
      follow.kill();
      home.remove();
    }
  });

  it('a metric-ceiling analysis fails on a container that burns CPU', async () => {
    await w.s.db('servers').whereIn('id', Object.values(w.servers)).update({ metricsMode: 'ssh' });
    await setRollout({ strategy: 'canary', steps: [{ servers: 1 }], analysis: { durationSec: 30, healthChecks: false, metrics: [{ name: 'cpuPercent', max: 25 }] } });
    const before = Object.fromEntries(await Promise.all(SERVERS.map(async (x) => [x, await inspect(x, name)] as const)));
    const res = await w.admin.patch(`/api/services/${serviceId}`, {
      command: ['sh', '-c', 'while :; do :; done'], healthCheck: { test: ['CMD', 'true'], intervalSec: 1, timeoutSec: 1, retries: 1 },
    });
    expect(res.status, res.text).to.equal(200);
    const id = await newestPlan();
    const done = await waitPlan(w, id);
    await w.s.db('servers').whereIn('id', Object.values(w.servers)).update({ metricsMode: 'disabled' });
    expect(done.status, JSON.stringify(done)).to.equal('rolled_back');
    expect(done.error).to.match(/^analysis after wave 1 failed: s1: cpuPercent [\d.]+ > 25; rolled back$/);
    const figure = done.waves[0].result.failure.figure;
    expect(figure).to.be.above(25);
    for (const x of ['s2', 's3']) expect(await inspect(x, name), x).to.deep.equal(before[x]);
    // the burner is gone from s1: the previous revision (the web server) runs there again
    const s1 = JSON.parse(await serverExec('s1', ['docker', 'inspect', name]))[0];
    expect(s1.State.Status).to.equal('running');
    expect(s1.Config.Cmd ?? []).to.not.include('while :; do :; done');
  });
});
