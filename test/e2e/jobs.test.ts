// Scheduled jobs on the fleet, with two controller replicas as real child processes on one
// database. Time is driven by real cron occurrences, with seconds schedules (the `cron` package's
// 6-field form) and a 1 s scheduler tick so the test takes seconds, not minutes: a job every three
// seconds runs exactly once per occurrence, with no duplicate and no gap; a job that overlaps itself
// under forbid skips the occurrence with the reason; a failing job raises one notification at a
// real HTTP receiver; and occurrences that came while every controller was down run once after the
// restart (within deadlineSec) or are recorded as missed. What ran is read on the server and in the store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { serverExec } from '../fleet/fleet.js';
import { createKnex } from '../../controller/store/knex.js';
import { killController, serveController, type ControllerProcess } from '../support/controller-process.js';
import { logRecords } from '../support/log-lines.js';
import { TEST_ALLOW_LIST } from '../support/outgoing-allow.js';
import { Receiver } from '../support/receiver.js';
import { until } from '../support/until.js';
import { addService, cleanup, startWorld, waitPlan, type World } from './deploy/deploy-world.js';

/** A cron expression (6 fields, UTC) that fires once, at `at` (whole second), this year. */
const onceAt = (at: Date) => `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
/** How many times a replica ran the scheduler's `jobs` tick. */
const ticks = (r: ControllerProcess) => logRecords(r.lines.join('\n')).filter((l) => l.msg === 'scheduled job ran' && l.job === 'jobs').length;

describe('scheduled jobs on the fleet, two replicas (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let db: Knex;
  let a: ControllerProcess | undefined;
  let b: ControllerProcess | undefined;
  let env: Record<string, string>;
  let serviceId: string;
  const rx = new Receiver();

  const api = () => (a && a.child.exitCode === null && a.child.signalCode === null ? a : b)!.api;
  const serve = (name: string) => serveController(name, { ...env, STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), `stevedore-jobs-${name}-`)) }, w.admin.token!);
  const createJob = async (body: Record<string, unknown>) => {
    const r = await api().post(`/api/environments/${w.envId}/jobs`, { serviceId, ...body });
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string; name: string };
  };
  const runsOf = async (jobId: string) => (await api().get(`/api/jobs/${jobId}/runs?limit=200`)).body.items as Array<Record<string, any>>;
  const disable = async (jobId: string) => expect((await api().patch(`/api/jobs/${jobId}`, { enabled: false })).status).to.equal(200);
  const runContainers = async () => (await serverExec('s1', ['docker', 'ps', '-aq', '--filter', 'label=stevedore.run'])).trim();
  /** Waits for every run of the job to end (none pending or running). */
  const settled = (jobId: string) => until('the job\'s runs to end', async () => {
    const runs = await runsOf(jobId);
    return runs.every((r) => r.status !== 'running' && r.status !== 'pending') && runs;
  }, { timeoutMs: 60_000, everyMs: 300 });

  before(async () => {
    await rx.start();
    w = await startWorld();
    const { service } = await addService(w, 'batch', { servers: ['s1'], env: { GREETING: 'from-the-service' } });
    serviceId = service.id;
    const plan = await w.admin.post(`/api/services/${serviceId}/deploy`, {});
    expect(plan.status, plan.text).to.equal(202);
    expect((await waitPlan(w, plan.body.id)).status).to.equal('succeeded');
    const c = w.s.config;
    env = {
      DATABASE_URL: c.databaseUrl!, SECRETS_KEY: c.secretsKey.toString('base64'), JWT_SECRET: c.jwtSecret,
      PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', RATE_LIMIT_PER_MINUTE: '0', OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST,
      // a 1 s jobs tick and a quick election: seconds schedules start on time, a dead leader is replaced at once
      SCHEDULER_JOBS_SEC: '1', LEADER_RETRY_MS: '200', PLAN_LEASE_MS: '2000',
      SCHEDULER_HEALTH_CHECK_SEC: '3600', SCHEDULER_DRIFT_CHECK_SEC: '3600',
    };
    // only the two replicas schedule: the in-process service stops (its database stays)
    await w.svc.stop();
    db = createKnex(c.databaseUrl!, 2);
    a = await serve('A');
    b = await serve('B');
  });
  after(async () => {
    await killController(a);
    await killController(b);
    await serverExec('s1', ['sh', '-c', 'docker ps -aq --filter label=stevedore.run | xargs -r docker rm -f']).catch(() => undefined);
    await db?.destroy();
    await rx.stop();
    await cleanup(w);
  });

  it('a job every three seconds runs exactly once per occurrence with two replicas: no duplicate, no gap, nothing left behind', async () => {
    const job = await createJob({ name: 'tick', command: ['sh', '-c', 'echo "ran $GREETING"'], schedule: '*/3 * * * * *', concurrencyPolicy: 'allow', historyLimit: 100 });
    await until('six runs to succeed', async () => (await runsOf(job.id)).filter((r) => r.status === 'succeeded').length >= 6, { timeoutMs: 90_000, everyMs: 500 });
    await disable(job.id);
    const runs = (await settled(job.id)).slice().reverse();
    const times = runs.map((r) => Date.parse(r.scheduledAt));
    expect(new Set(times).size, 'one run per occurrence').to.equal(times.length);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1], `gap before ${runs[i].scheduledAt}`).to.equal(3000);
    for (const r of runs) {
      expect(r, JSON.stringify(r)).to.include({ trigger: 'schedule', status: 'succeeded', exitCode: 0, logTail: 'ran from-the-service\n', serverId: w.servers.s1 });
      expect(r.durationMs).to.be.a('number');
    }
    // each occurrence started one container (one one-off run row), and none is left on the server
    const rows = await db('job_runs').where({ jobId: job.id }).whereNotNull('runId');
    expect(new Set(rows.map((r) => r.runId)).size).to.equal(runs.length);
    expect(await db('service_runs').where({ serviceId }).whereIn('id', rows.map((r) => r.runId))).to.have.length(runs.length);
    expect(await runContainers()).to.equal('');
    // one replica ticked the scheduler: the other never ran the jobs tick while it followed
    expect([ticks(a!), ticks(b!)].filter((n) => n > 0)).to.have.length(1);
    // /metrics counts them by result, on the replica that saw them end
    const counted = await Promise.all([a!, b!].map(async (r) => Number(/stevedore_job_runs_total\{result="succeeded"\} (\d+)/.exec(await (await fetch(`${r.url}/metrics`)).text())?.[1] ?? 0)));
    expect(counted[0] + counted[1]).to.be.at.least(runs.length);
  });

  it('under forbid, an occurrence while the last run still runs is skipped with the reason; runs never overlap', async () => {
    const job = await createJob({ name: 'slow', command: ['sh', '-c', 'sleep 4; echo slept'], schedule: '*/2 * * * * *', concurrencyPolicy: 'forbid', historyLimit: 100 });
    await until('a skipped occurrence and two finished runs', async () => {
      const runs = await runsOf(job.id);
      return runs.some((r) => r.status === 'skipped') && runs.filter((r) => r.status === 'succeeded').length >= 2;
    }, { timeoutMs: 90_000, everyMs: 500 });
    await disable(job.id);
    const runs = await settled(job.id);
    const skipped = runs.filter((r) => r.status === 'skipped');
    for (const s of skipped) {
      expect(s.reason).to.match(/^concurrencyPolicy forbid: the run of \S+ \(run [0-9a-f-]{36}\) is still running$/);
      expect(s.runId).to.equal(null);
    }
    const ran = runs.filter((r) => r.status === 'succeeded').map((r) => [Date.parse(r.startedAt), Date.parse(r.finishedAt)]).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < ran.length; i++) expect(ran[i][0], 'a run started while the previous one ran').to.be.at.least(ran[i - 1][1]);
    expect(await runContainers()).to.equal('');
  });

  it('a failing job raises one job.failed notification at a real receiver, with its exit code', async () => {
    const hook = await api().post('/api/admin/webhooks', { name: 'jobs-rx', url: `${rx.url}/jobs`, enabled: true, eventTypes: ['job.failed'] });
    expect(hook.status, hook.text).to.equal(201);
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 4000);
    const job = await createJob({ name: 'broken', command: ['sh', '-c', 'echo boom >&2; exit 3'], schedule: onceAt(at) });
    const [run] = await until('its one run to fail', async () => {
      const runs = await runsOf(job.id);
      return runs.length === 1 && runs[0].status === 'failed' && runs;
    }, { timeoutMs: 30_000, everyMs: 300 });
    expect(run).to.include({ scheduledAt: at.toISOString(), exitCode: 3, logTail: 'boom\n', reason: 'exited with 3' });
    const delivered = await until('the notification to arrive', () => rx.requests.filter((q) => q.path === '/jobs').length > 0 && rx.requests.filter((q) => q.path === '/jobs'), { timeoutMs: 30_000 });
    // the outbox has delivered it and holds nothing more for this receiver: one event, one delivery
    const events = await db('events').where({ type: 'job.failed' }).whereRaw(`data->>'jobId' = ?`, [job.id]);
    expect(events).to.have.length(1);
    expect(events[0].data).to.include({ jobName: 'broken', exitCode: 3, runId: run.runId });
    expect(delivered).to.have.length(1);
    expect(JSON.stringify(delivered[0].json)).to.include('broken').and.include(run.runId);
  });

  it('a job from manifests is held to the container policy: tightened after the deploy, its trigger and its occurrence are refused with the policy\'s message', async () => {
    const ops = `/api/environments/${w.envId}/settings/operations`;
    expect((await api().patch(ops, { containerPolicy: 'privileged' })).status).to.equal(200);
    const created = await api().post(`/api/environments/${w.envId}/services`, {
      name: 'rooted', containerImageId: w.imageId, imageTag: 'v1', env: { GREETING: 'hello' }, volumes: ['/:/host'],
    });
    expect(created.status, created.text).to.equal(201);
    expect((await api().post(`/api/services/${created.body.id}/deployments`, { serverId: w.servers.s1, containerName: `rooted-${w.tag}-s1` })).status).to.equal(201);
    const deployed = await api().post(`/api/services/${created.body.id}/deploy?wait=true`, {});
    expect(deployed.body.status, deployed.text).to.equal('succeeded');
    const envName = (await api().get(`/api/environments/${w.envId}`)).body.name;
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 6000);
    const applied = await api().post('/api/manifests/apply', { files: [{ path: 'job.yaml', content: [
      'apiVersion: stevedore/v1', 'kind: Job', `metadata: {name: host-reader, environment: ${envName}}`,
      `spec: {service: rooted, command: [ls, /host], schedule: "${onceAt(at)}"}`, '',
    ].join('\n') }] });
    expect(applied.status, applied.text).to.equal(200);
    expect((await api().patch(ops, { containerPolicy: 'baseline' })).status).to.equal(200);
    const job = (await api().get(`/api/environments/${w.envId}/jobs`)).body.items.find((j: { name: string }) => j.name === 'host-reader');
    const message = "volumes.0: the host path / is the server's whole filesystem; the container policy baseline of this environment refuses it";
    const trigger = await api().post(`/api/jobs/${job.id}/trigger`, {});
    expect(trigger.status, trigger.text).to.equal(400);
    expect(trigger.body.message).to.equal(message);
    const [run] = await until('the occurrence to be refused', async () => {
      const runs = await runsOf(job.id);
      return runs.length && runs[0].status !== 'pending' && runs;
    }, { timeoutMs: 30_000, everyMs: 300 });
    expect(run).to.include({ status: 'failed', scheduledAt: at.toISOString(), runId: null, reason: `could not start: ${message}` });
    expect(await runContainers()).to.equal('');
  });

  it('occurrences that came while every controller was down: one within deadlineSec runs once after the restart, one past it is missed', async () => {
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 8000);
    const late = await createJob({ name: 'catch-up', command: ['sh', '-c', 'echo caught up'], schedule: onceAt(at), deadlineSec: 300 });
    const strict = await createJob({ name: 'strict', command: ['sh', '-c', 'echo never'], schedule: onceAt(at), deadlineSec: 2 });
    // both know their occurrence before the controllers go
    await until('the occurrences to be scheduled', async () => {
      const rows = await db('jobs').whereIn('id', [late.id, strict.id]).whereNotNull('nextRunAt');
      return rows.length === 2 && rows.every((r) => r.nextRunAt.getTime() === at.getTime());
    }, { timeoutMs: 20_000, everyMs: 200 });
    await killController(a);
    await killController(b);
    a = undefined;
    b = undefined;
    await until('the occurrence to pass by five seconds with no controller', () => Date.now() > at.getTime() + 5000, { timeoutMs: 30_000, everyMs: 200 });
    expect(await db('job_runs').whereIn('jobId', [late.id, strict.id])).to.have.length(0);
    a = await serve('A2');
    const [run] = await until('the caught-up run to succeed', async () => {
      const runs = await runsOf(late.id);
      return runs.length && runs.every((r) => r.status === 'succeeded') && runs;
    }, { timeoutMs: 60_000, everyMs: 300 });
    expect(run).to.include({ scheduledAt: at.toISOString(), logTail: 'caught up\n', exitCode: 0 });
    expect(run.reason).to.match(/^started \d+ s after its time/);
    const [missed] = await until('the strict one to be recorded', async () => {
      const runs = await runsOf(strict.id);
      return runs.length && runs;
    }, { timeoutMs: 20_000, everyMs: 300 });
    expect(missed).to.include({ status: 'missed', scheduledAt: at.toISOString(), runId: null });
    expect(missed.reason).to.include('deadlineSec is 2');
    // once each: a few more ticks of the new leader add nothing
    const from = ticks(a);
    await until('three more ticks', () => ticks(a!) >= from + 3, { timeoutMs: 20_000 });
    expect(await runsOf(late.id)).to.have.length(1);
    expect(await runsOf(strict.id)).to.have.length(1);
  });
});
