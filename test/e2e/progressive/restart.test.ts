// A rollout's waves survive their controller: a replica killed while the canary is analysed is
// taken over by the next one, which analyses again and pauses; killed while paused, the next one
// stays paused (the other servers untouched) until the plan is promoted through it. Controllers are
// real child processes (`node bin/stevedore.js serve`) on one database; containers are checked on
// the servers themselves.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../controller/store/knex.js';
import { HttpClient } from '../../support/http-client.js';
import { listeningUrl } from '../../support/log-lines.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';
import { until } from '../../support/until.js';
import { serverExec } from '../../fleet/fleet.js';
import { cleanup, startWorld, type World } from '../deploy/deploy-world.js';

interface Replica { child: ChildProcess; api: HttpClient }

function serve(env: Record<string, string>, token: string): Promise<Replica> {
  const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let rest = '';
    const timer = setTimeout(() => reject(new Error(`the controller did not start:\n${lines.join('\n')}`)), 120_000);
    child.stderr!.on('data', (d: Buffer) => {
      const parts = (rest + d.toString()).split('\n');
      rest = parts.pop()!;
      for (const l of parts) {
        lines.push(l);
        const url = listeningUrl(l);
        if (url) { clearTimeout(timer); resolve({ child, api: new HttpClient(url, token) }); }
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the controller exited ${code}:\n${lines.join('\n')}`)); });
  });
}

const kill = async (r: Replica | undefined) => {
  if (!r || r.child.exitCode !== null || r.child.signalCode !== null) return;
  r.child.kill('SIGKILL');
  await new Promise((x) => r.child.once('exit', x));
};

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
    const r = await serve({ ...env, STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-waves-')) }, w.admin.token!);
    replicas.push(r);
    return r;
  };
  const planRow = (id: string) => db('deployment_plans').where({ id }).first();

  it('a canary analysed when its controller dies is analysed again by the next; paused when that one dies, it stays paused until promoted', async () => {
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
    await kill(b);

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
