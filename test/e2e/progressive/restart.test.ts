// A rollout's waves survive their controller: a replica killed while the canary is analysed is
// taken over by the next one, which analyses again and pauses; stopped while paused, the next one
// stays paused (the other servers untouched) until the plan is promoted through it. Controllers are
// real child processes (`node bin/stevedore.js serve`) on one database; containers are checked on
// the servers themselves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../controller/store/knex.js';
import { killController, serveController, type ControllerProcess } from '../../support/controller-process.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';
import { until } from '../../support/until.js';
import { serverExec } from '../../fleet/fleet.js';
import { cleanup, startWorld, type World } from '../deploy/deploy-world.js';

type Replica = ControllerProcess;
const kill = killController;

const imageOf = async (server: string, name: string) =>
  (await serverExec(server, ['docker', 'inspect', '--format', '{{.Id}} {{.Config.Image}}', name])).trim();

describe('rollout waves across controller restarts (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let db: Knex;
  const replicas: Replica[] = [];
  let env: Record<string, string>;
  let name: string;
  let serviceId: string;

  before(async () => {
    w = await startWorld();
    name = `pd-${w.tag}-rs`;
    for (const server of ['s1', 's2', 's3']) expect((await w.admin.patch(`/api/servers/${w.servers[server]}`, { labels: { role: 'web' } })).status).to.equal(200);
    const created = await w.admin.post(`/api/environments/${w.envId}/services`, {
      name, containerImageId: w.imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } },
    });
    expect(created.status, created.text).to.equal(201);
    serviceId = created.body.id;
    const first = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, {});
    expect(first.body.status, first.text).to.equal('succeeded');
    const rollout = { strategy: 'canary', steps: [{ servers: 1 }, { pause: true }], analysis: { durationSec: 8 } };
    expect((await w.admin.patch(`/api/services/${serviceId}`, { rollout })).status).to.equal(200);
    const c = w.s.config;
    env = {
      DATABASE_URL: c.databaseUrl!, SECRETS_KEY: c.secretsKey.toString('base64'), JWT_SECRET: c.jwtSecret,
      PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST,
      PLAN_LEASE_MS: '2000', LEADER_RETRY_MS: '200', SCHEDULER_HEALTH_CHECK_SEC: '3600', SCHEDULER_DRIFT_CHECK_SEC: '3600',
    };
    await w.svc.stop();
    db = createKnex(c.databaseUrl!, 2);
  });
  after(async () => {
    for (const r of replicas) await kill(r);
    await db?.destroy();
    await cleanup(w);
  });

  const start = async () => {
    const r = await serveController(`controller ${replicas.length + 1}`, { ...env, STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-waves-')) }, w.admin.token!);
    replicas.push(r);
    return r;
  };
  const planRow = (id: string) => db('deployment_plans').where({ id }).first();

  it('a canary analysed when its controller dies is analysed again by the next; paused when that one stops, it stays paused until promoted', async () => {
    const before = { s2: await imageOf('s2', name), s3: await imageOf('s3', name) };
    const a = await start();
    const started = await a.api.post(`/api/services/${serviceId}/deploy`, { imageTag: 'v2' });
    expect(started.status, started.text).to.equal(202);
    const id: string = started.body.id;
    await until('the canary to be analysed', async () => (await planRow(id)).waveState?.phase === 'analysing', { timeoutMs: 60_000, everyMs: 50 });
    await kill(a);

    const b = await start();
    const paused = await until('B to take the plan over, analyse the canary again and pause', async () => {
      const row = await planRow(id);
      return row.waveState?.phase === 'paused' && row;
    }, { timeoutMs: 60_000, everyMs: 100 });
    expect(paused.status).to.equal('running');
    expect(paused.takeovers).to.be.at.least(1);
    // one analysis of the canary: the interrupted one was replaced by the one B ran to the end
    expect(paused.analysis.map((r: { wave: number; verdict: string }) => [r.wave, r.verdict])).to.deep.equal([[0, 'passed']]);
    expect(new Date(paused.analysis[0].finishedAt).getTime() - new Date(paused.analysis[0].startedAt).getTime()).to.be.at.least(8000);
    // B is stopped gracefully (SIGTERM): it lets the paused plan go at once instead of waiting on it
    const stopAt = Date.now();
    b.child.kill('SIGTERM');
    await new Promise((x) => b.child.once('exit', x));
    expect(Date.now() - stopAt).to.be.below(15_000);
    expect((await planRow(id)).status).to.equal('running');

    const c = await start();
    // C holds the plan (its lease) and keeps it paused: the other servers are not touched
    await until('C to take the plan over', async () => (await planRow(id)).takeovers >= 2, { timeoutMs: 30_000, everyMs: 100 });
    const held = await c.api.get(`/api/deployment-plans/${id}`);
    expect(held.body.currentWave).to.include({ index: 0, phase: 'paused', pausedBy: 'rollout' });
    expect({ s2: await imageOf('s2', name), s3: await imageOf('s3', name) }).to.deep.equal(before);
    expect(await imageOf('s1', name)).to.match(/web:v2$/);

    const promoted = await c.api.post(`/api/deployment-plans/${id}/promote`);
    expect(promoted.status, promoted.text).to.equal(200);
    const done = await until('the plan to end', async () => {
      const row = await planRow(id);
      return !['running', 'rolling_back'].includes(row.status) && row;
    }, { timeoutMs: 90_000, everyMs: 100 });
    expect(done.status, done.error).to.equal('succeeded');
    for (const server of ['s1', 's2', 's3']) expect(await imageOf(server, name), server).to.match(/web:v2$/);
  });
});
