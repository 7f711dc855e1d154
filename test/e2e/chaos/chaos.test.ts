// Faults an operator meets, against the real controller (a child process), the fleet's real
// PostgreSQL, sshd and dockerd. After each: the controller still runs (or recovers on restart),
// no plan is left running, every container runs the old or the new version, the SSE client got
// every event, webhooks arrived exactly once, and no promise rejection went unhandled.
import { expect } from 'chai';
import { loadFleet, serverCtl, serverExec } from '../../fleet/fleet.js';
import { assertHealthy, deployWaiting, startChaos, stopChaos, THROUGH_FAULTS, type Chaos } from './chaos-world.js';
import { sleep, until } from '../../support/until.js';
import { FleetPostgres } from './postgres-control.js';

/** A short outage: several scheduler ticks, the event listener's backoff and plan leases run out. */
const OUTAGE_MS = 6000;

describe('chaos (e2e)', function () {
  this.timeout(600_000);
  let c: Chaos;
  let pg: FleetPostgres;
  let tag = 'v1';
  const other = () => (tag === 'v1' ? 'v2' : 'v1');

  before(async () => {
    pg = new FleetPostgres(loadFleet());
    // with durable commits, as a production database has them (postgres-control.ts says why)
    await pg.stop();
    await pg.start();
    c = await startChaos('chaos');
  });
  after(async () => {
    await pg.start().catch(() => undefined); // never leave the fleet's database down
    await stopChaos(c);
  });

  /** Starts a rolling deploy of the other version; resolves with the plan once its first step runs. */
  async function deployOther(): Promise<{ id: string }> {
    tag = other();
    const res = await c.api().post(`/api/services/${c.app.service.id}/deploy`, { imageTag: tag, strategy: 'rolling' });
    expect(res.status, res.text).to.equal(202);
    await until('the first step to run', async () => (await c.db('plan_steps').where({ planId: res.body.id, status: 'running' })).length > 0
      || (await c.db('plan_steps').where({ planId: res.body.id, status: 'succeeded' })).length > 0, { ...THROUGH_FAULTS, everyMs: 20 });
    return res.body;
  }

  async function deployAndWait(): Promise<void> {
    tag = other();
    await deployWaiting(c.api(), c.app.service.id, tag);
  }

  it('PostgreSQL stopped while idle: the API answers 503 with Retry-After, then everything resumes by itself', async () => {
    await pg.stop();
    try {
      const during = await c.api().get('/api/environments');
      expect(during.status, during.text).to.equal(503);
      expect(during.body.code).to.equal('SERVICE_UNAVAILABLE');
      expect(Number(during.headers.get('retry-after'))).to.be.greaterThan(0);
      // the caller's token cannot be checked either: /health needs none and still says why
      const health = await c.api().get('/health');
      expect(health.status, health.text).to.equal(503);
      expect(health.body).to.include({ status: 'degraded', database: 'unreachable' });
      await sleep(OUTAGE_MS);
      expect(c.controller.running, 'the controller outlives the outage').to.equal(true);
    } finally {
      await pg.start();
    }
    // events published after the restart reach the stream that was open before it
    await deployAndWait();
    await assertHealthy(c, { versions: [tag] });
  });

  it('PostgreSQL stopped during a rolling deploy: the plan ends (not running) and containers run one version each', async () => {
    const plan = await deployOther();
    await pg.stop();
    await sleep(OUTAGE_MS);
    expect(c.controller.running).to.equal(true);
    await pg.start();
    await assertHealthy(c);
    const row = await c.db('deployment_plans').where({ id: plan.id }).first();
    if (row.status !== 'succeeded') {
      const steps = await c.db('plan_steps').where({ planId: plan.id }).whereNotNull('error').select('error');
      expect(steps.map((s) => s.error).join('\n')).to.match(/database was unreachable|unreachable|database/);
    }
    await deployAndWait();
    await assertHealthy(c, { versions: [tag] });
  });

  it('the postmaster SIGKILLed and restarted: the controller reconnects (API, events, loops) without a restart', async () => {
    await pg.kill();
    await sleep(1000);
    expect((await c.api().get('/api/environments')).status).to.equal(503);
    await pg.start();
    await deployAndWait();
    await assertHealthy(c, { versions: [tag] });
    expect(c.controller.log).to.match(/event listener \(LISTEN\) connection recovered/);
  });

  it('sshd stopped on s2 and dockerd on s1 mid-deploy: the plan fails naming the server, and recovers once they are back', async () => {
    const plan = await deployOther();
    await Promise.all([serverCtl('s2', 'stop-ssh'), serverCtl('s1', 'stop-docker')]);
    try {
      const done = await until('the plan to end', async () => {
        const row = await c.db('deployment_plans').where({ id: plan.id }).first();
        return ['succeeded', 'failed', 'rolled_back', 'rollback_failed'].includes(row.status) && row;
      }, { ...THROUGH_FAULTS, timeoutMs: 120_000, everyMs: 250 });
      expect(done.status).to.not.equal('succeeded');
      const errors = (await c.db('plan_steps').where({ planId: plan.id }).whereNotNull('error').select('error')).map((s) => s.error).join('\n');
      expect(errors).to.match(/"s1"|"s2"/);
    } finally {
      await serverCtl('s2', 'start-ssh');
      await serverCtl('s1', 'start-docker');
    }
    // a restarted dockerd brings its containers back (restart policy) or the next deploy does
    await deployAndWait();
    await assertHealthy(c, { versions: [tag] });
  });

  it('s2 black-holed mid-plan (packets dropped): the plan ends as unreachable and the others are not held up', async () => {
    const plan = await deployOther();
    const rule = ['-p', 'tcp', '--dport', '22', '-j', 'DROP'];
    await serverExec('s2', ['iptables', '-I', 'INPUT', ...rule]);
    try {
      const done = await until('the plan to end', async () => {
        const row = await c.db('deployment_plans').where({ id: plan.id }).first();
        return ['succeeded', 'failed', 'rolled_back', 'rollback_failed'].includes(row.status) && row;
      }, { ...THROUGH_FAULTS, timeoutMs: 150_000, everyMs: 250 });
      if (done.status !== 'succeeded') {
        const errors = (await c.db('plan_steps').where({ planId: plan.id }).whereNotNull('error').select('error')).map((s) => s.error).join('\n');
        expect(errors).to.match(/"s2"/);
      }
    } finally {
      await serverExec('s2', ['iptables', '-D', 'INPUT', ...rule]);
    }
    await deployAndWait();
    await assertHealthy(c, { versions: [tag] });
  });

  it('the controller SIGKILLed at a step: on restart the plan is recovered and says the controller stopped', async () => {
    const plan = await deployOther();
    await c.controller.kill('SIGKILL');
    const row = await c.db('deployment_plans').where({ id: plan.id }).first();
    await c.controller.start();
    await assertHealthy(c);
    const after = await c.db('deployment_plans').where({ id: plan.id }).first();
    if (row.status === 'running' && after.status !== 'succeeded') {
      const errors = (await c.db('plan_steps').where({ planId: plan.id }).whereNotNull('error').select('error')).map((s) => s.error).join('\n');
      expect(errors).to.match(/controller stopped/);
    }
    await deployAndWait();
    await assertHealthy(c, { versions: [tag] });
  });
});
