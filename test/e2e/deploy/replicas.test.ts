// Two controller replicas as real child processes (`node bin/stevedore.js serve`) on different
// ports, one DATABASE_URL: scheduler jobs run on the leader only, a revoked token is refused by
// the other replica within a second, and a deploy started through A is seen live by an SSE
// client of B, survives SIGKILL of A and is finished by B (checked on the servers themselves).
import { logRecords } from '../../support/log-lines.js';
import { serveController, type ControllerProcess } from '../../support/controller-process.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../controller/store/knex.js';
import { addService, cleanup, containerImage, startWorld, type World } from './deploy-world.js';
import { until } from '../../support/until.js';
import { sseFrames } from '../../support/sse-stream.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';

type Replica = ControllerProcess;
const serve = serveController;

/** How many times this replica ran the scheduler job `job`. */
const jobRuns = (r: Replica, job: string) => logRecords(r.lines.join('\n')).filter((l) => l.msg === 'scheduled job ran' && l.job === job).length;

/** The events of GET /api/events on a replica, as they arrive. */
async function openEvents(r: Replica, token: string) {
  const ctrl = new AbortController();
  const res = await fetch(`${r.url}/api/events`, { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal });
  expect(res.status).to.equal(200);
  const events: Array<{ type: string; data: any }> = [];
  void (async () => {
    try {
      for await (const f of sseFrames(res.body as unknown as AsyncIterable<Uint8Array>)) if (f.event && f.data !== undefined) events.push({ type: f.event, data: f.data });
    } catch { /* aborted */ }
  })();
  return { events, close: () => ctrl.abort() };
}

describe('two controller replicas on one database (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let db: Knex;
  let a: Replica;
  let b: Replica;
  let token: string;
  let app: Awaited<ReturnType<typeof addService>>;

  before(async () => {
    w = await startWorld();
    // a cheap 1 s healthcheck (two containers only): each step waits about a second for healthy
    app = await addService(w, 'replica', { servers: ['s1', 's2'], healthCheck: { test: ['CMD', 'true'], intervalSec: 1, timeoutSec: 30, retries: 3 } });
    token = w.admin.token!;
    const c = w.s.config;
    const env = {
      DATABASE_URL: c.databaseUrl!, SECRETS_KEY: c.secretsKey.toString('base64'), JWT_SECRET: c.jwtSecret,
      PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', RATE_LIMIT_PER_MINUTE: '0',
      // as the in-process test services: the fleet's registry is on this host's bridge address
      OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST,
      // short lease and election retry for the test; a 1 s scheduler job that costs one query
      PLAN_LEASE_MS: '2000', LEADER_RETRY_MS: '200', SCHEDULER_BACKUP_SEC: '1',
      SCHEDULER_HEALTH_CHECK_SEC: '3600', SCHEDULER_DRIFT_CHECK_SEC: '3600',
    };
    // the in-process service stops (its database stays): only the two replicas work
    await w.svc.stop();
    db = createKnex(c.databaseUrl!, 2);
    a = await serve('A', { ...env, STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-replica-a-')) }, token);
    b = await serve('B', { ...env, STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-replica-b-')) }, token);
  });
  after(async () => {
    a?.child.kill('SIGKILL');
    b?.child.kill('SIGKILL');
    await db?.destroy();
    await cleanup(w);
  });

  it('runs scheduler jobs on the leader only, not once per replica', async () => {
    const from = jobRuns(a, 'database-backups');
    await until('three runs of the job on A', () => jobRuns(a, 'database-backups') >= from + 3, { timeoutMs: 10_000 });
    expect(jobRuns(b, 'database-backups')).to.equal(0);
    expect(a.lines.some((l) => l.includes('this replica is the leader'))).to.equal(true);
    expect(b.lines.some((l) => l.includes('this replica is the leader'))).to.equal(false);
  });

  it('refuses on B, within a second, a token revoked through A', async () => {
    const adminId = (await a.api.get('/api/auth/me')).body.id;
    const created = await a.api.post('/api/admin/tokens', { name: 'replicas', ownerUserId: adminId, role: 'viewer' });
    expect(created.status, created.text).to.equal(201);
    const onB = b.api.withToken(created.body.token);
    // B has resolved (and cached) the token just before it is revoked
    expect((await onB.get('/api/environments')).status).to.equal(200);
    const revoked = await a.api.post(`/api/admin/tokens/${created.body.id}/revoke`);
    expect(revoked.status, revoked.text).to.equal(200);
    const at = Date.now();
    await until('B to refuse the revoked token', async () => (await onB.get('/api/environments')).status === 401, { timeoutMs: 1000, everyMs: 20 });
    expect(Date.now() - at).to.be.below(1000);
  });

  it('a deploy started through A is streamed by B, survives SIGKILL of A and is finished by B', async () => {
    const stream = await openEvents(b, token);
    try {
      const started = await a.api.post(`/api/services/${app.service.id}/deploy`, { imageTag: 'v2', strategy: 'rolling' });
      expect(started.status, started.text).to.equal(202);
      const planId: string = started.body.id;
      const ownerA = (await db('deployment_plans').where({ id: planId }).first()).owner;
      // kill A while the second step runs: one step done, one half-way
      await until('the second step to run', async () => {
        const steps = await db('plan_steps').where({ planId }).orderBy('position');
        return steps[1].status === 'running';
      }, { timeoutMs: 60_000, everyMs: 25 });
      // B's client saw the steps A ran, live
      await until('B to stream the steps run by A', () => stream.events.some((e) => e.type === 'plan.step' && e.data.planId === planId && e.data.status === 'succeeded'), { timeoutMs: 5000 });
      a.child.kill('SIGKILL');
      await new Promise((r) => a.child.once('exit', r));
      expect((await db('deployment_plans').where({ id: planId }).first()).status).to.equal('running');

      const done = await until('the plan to end', async () => {
        const row = await db('deployment_plans').where({ id: planId }).first();
        return ['running', 'rolling_back', 'pending'].includes(row.status) ? undefined : row;
      }, { timeoutMs: 90_000, everyMs: 100 });
      expect(done.status, done.error).to.equal('succeeded');
      expect(done.owner).to.not.equal(ownerA);
      expect(done.takeovers).to.be.at.least(1);
      const steps = await db('plan_steps').where({ planId }).orderBy('position');
      expect(steps.map((s) => s.status)).to.deep.equal(['succeeded', 'succeeded']);
      for (const d of app.deployments) {
        const server = d.containerName.split('-').at(-1)!;
        expect(await containerImage(server, d.containerName)).to.equal(`${w.fleet.images.webV2} running`);
      }
      // B took the leader's work over too: its scheduler job runs now
      await until('B to run the scheduler job', () => jobRuns(b, 'database-backups') > 0, { timeoutMs: 5000 });
      expect(b.lines.some((l) => l.includes('this replica is the leader'))).to.equal(true);
      await until('B to stream the end of the plan', () => stream.events.some((e) => e.type === 'plan.updated' && e.data.planId === planId && e.data.status === 'succeeded'), { timeoutMs: 5000 });
    } finally {
      stream.close();
    }
  });
});
