// Scheduled jobs without a server to reach: the kind's CRUD (who may, validation, references
// inside the environment), the trigger's refusals, manifests, and the scheduler's decisions on
// the real store: an occurrence claimed once by concurrent ticks, a missed one, a skipped one
// under forbid, the history limit, job.failed and the counter. What a run does on a server, two
// replicas and a restart are e2e (test/e2e/jobs.test.ts).
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { startWithRoles, createEnvironment } from '../support/fixtures.js';
import { createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import type { TestService } from '../support/test-service.js';
import type { HttpClient } from '../support/http-client.js';
import { tickJobs } from '../../reconcilers/job/job-runs.js';

describe('scheduled job routes and scheduler', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let serviceId: string;
  let serverId: string;
  let path: string;

  before(async () => {
    // the test ticks the scheduler itself: the service's own tick never comes
    ({ svc, admin, operator, viewer, envId } = await startWithRoles({ SCHEDULER_JOBS_SEC: '3600' }));
    serviceId = (await createService(operator, envId, { name: 'job-api' })).id;
    serverId = (await insertServer(svc, envId, 'job-srv')).id;
    const dep = await operator.post(`/api/services/${serviceId}/deployments`, { serverId, containerName: 'job-api-1' });
    expect(dep.status, dep.text).to.equal(201);
    path = `/api/environments/${envId}/jobs`;
  });
  after(() => svc.stop());

  const db = () => svc.services.db;
  const jobRows = () => db()('jobs').where({ environmentId: envId });
  const body = (over: Record<string, unknown> = {}) => ({ name: `job-${Math.random().toString(36).slice(2, 8)}`, serviceId, command: ['echo', 'hi'], schedule: '*/5 * * * *', ...over });
  const create = async (over: Record<string, unknown> = {}) => {
    const r = await operator.post(path, body(over));
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string; name: string; nextRunAt: string | null };
  };
  const runsOf = async (id: string) => {
    const r = await viewer.get(`/api/jobs/${id}/runs`);
    expect(r.status, r.text).to.equal(200);
    return r.body.items as Array<Record<string, any>>;
  };
  const failedEvents = (jobId: string) => db()('events').where({ type: 'job.failed' }).whereRaw(`data->>'jobId' = ?`, [jobId]);

  it('creates, reads, lists, changes and deletes a job as an operator, with the defaults', async () => {
    const made = await operator.post(path, body({ name: 'nightly', timeZone: 'Europe/Paris', serverId }));
    expect(made.status, made.text).to.equal(201);
    expect(made.body).to.include({ name: 'nightly', serviceId, serverId, schedule: '*/5 * * * *', timeZone: 'Europe/Paris', concurrencyPolicy: 'forbid', historyLimit: 10, enabled: true, deadlineSec: null, serverSelector: null, nextRunAt: null });
    expect(made.body.command).to.deep.equal(['echo', 'hi']);
    const list = await viewer.get(path);
    expect(list.body.items.map((j: { name: string }) => j.name)).to.include('nightly');
    // a changed schedule is awaited afresh
    await db()('jobs').where({ id: made.body.id }).update({ nextRunAt: new Date() });
    const changed = await operator.patch(`/api/jobs/${made.body.id}`, { schedule: '0 3 * * *' });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.include({ schedule: '0 3 * * *', nextRunAt: null });
    expectError(await operator.post(path, body({ name: 'nightly' })), 409, 'CONFLICT', 'name');
    expect((await operator.delete(`/api/jobs/${made.body.id}`)).status).to.equal(204);
    expectError(await viewer.get(`/api/jobs/${made.body.id}`), 404, 'NOT_FOUND');
  });

  it('refuses a viewer every write and the trigger with 403, and lets it read the runs', async () => {
    const job = await create();
    expectError(await viewer.post(path, body()), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.patch(`/api/jobs/${job.id}`, { enabled: false }), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.delete(`/api/jobs/${job.id}`), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.post(`/api/jobs/${job.id}/trigger`, {}), 403, 'FORBIDDEN_ROLE');
    expect(await runsOf(job.id)).to.deep.equal([]);
    expect(await db()('job_runs').where({ jobId: job.id })).to.have.length(0);
  });

  it('refuses bad jobs with 400 naming the field, and writes nothing', async () => {
    const before = (await jobRows()).length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ schedule: 'every minute' }, 'schedule'],
      [{ schedule: '* * * * *', timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ serverId, serverSelector: { matchLabels: { role: 'batch' } } }, 'serverSelector'],
      [{ serverSelector: { matchLabels: { 'bad key!': 'x' } } }, 'serverSelector'],
      [{ concurrencyPolicy: 'sometimes' }, 'concurrencyPolicy'],
      [{ command: [] }, 'command'],
      [{ command: 'echo hi' }, 'command'],
      [{ historyLimit: 0 }, 'historyLimit'],
      [{ deadlineSec: 0 }, 'deadlineSec'],
      [{ serviceId: '00000000-0000-4000-8000-000000000000' }, 'serviceId'],
    ];
    for (const [over, field] of cases) {
      const r = await operator.post(path, body(over));
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.body.field, `${JSON.stringify(over)}: ${r.text}`).to.match(new RegExp(`^${field}`));
    }
    const job = await create();
    expectError(await operator.patch(`/api/jobs/${job.id}`, { schedule: '61 * * * *' }), 400, 'VALIDATION_ERROR', 'schedule');
    // the rule holds on the job as it would be: a selector on a job that names a server
    await operator.patch(`/api/jobs/${job.id}`, { serverId });
    expectError(await operator.patch(`/api/jobs/${job.id}`, { serverSelector: { matchLabels: { a: 'b' } } }), 400, 'VALIDATION_ERROR', 'serverSelector');
    expect((await jobRows()).length).to.equal(before + 1);
  });

  it('refuses a service or a server of another environment', async () => {
    const other = await createEnvironment(admin);
    const foreignService = (await createService(admin, other.id, { name: 'elsewhere' })).id;
    const foreignServer = (await insertServer(svc, other.id, 'elsewhere-srv')).id;
    expectError(await operator.post(path, body({ serviceId: foreignService })), 400, 'VALIDATION_ERROR', 'serviceId');
    expectError(await operator.post(path, body({ serverId: foreignServer })), 400, 'VALIDATION_ERROR', 'serverId');
    const job = await create();
    expectError(await operator.patch(`/api/jobs/${job.id}`, { serviceId: foreignService }), 400, 'VALIDATION_ERROR', 'serviceId');
    expect((await db()('jobs').where({ id: job.id }).first()).serviceId).to.equal(serviceId);
  });

  it('a trigger answers 409 while the service is not deployed and 403 while runs are off; neither records a run', async () => {
    const job = await create();
    const r = await operator.post(`/api/jobs/${job.id}/trigger`, {});
    expectError(r, 409, 'CONFLICT');
    expect(r.body.message).to.include('not deployed');
    expect((await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: false })).status).to.equal(200);
    try {
      expectError(await admin.post(`/api/jobs/${job.id}/trigger`, {}), 403, 'FORBIDDEN_SCOPE');
    } finally {
      await admin.patch(`/api/environments/${envId}/settings/operations`, { allowExec: true });
    }
    expect(await db()('job_runs').where({ jobId: job.id })).to.have.length(0);
    expect(await db()('service_runs').where({ serviceId })).to.have.length(0);
  });

  it('a new job gets its next occurrence; a due one is claimed once by concurrent ticks and raises one job.failed', async () => {
    const job = await create({ schedule: '* * * * * *' });
    await tickJobs(svc.services);
    const scheduled = await db()('jobs').where({ id: job.id }).first();
    expect(scheduled.nextRunAt).to.be.instanceOf(Date);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    await db()('jobs').where({ id: job.id }).update({ nextRunAt: at });
    const metric = async () => Number(/stevedore_job_runs_total\{result="failed"\} (\d+)/.exec(await (await fetch(`${svc.url}/metrics`)).text())?.[1] ?? 0);
    const before = await metric();
    // five ticks at once, as replicas in a leadership hand-over: one claim, one run record
    await Promise.all([1, 2, 3, 4, 5].map(() => tickJobs(svc.services, new Date(at.getTime() + 500))));
    const runs = await runsOf(job.id);
    expect(runs).to.have.length(1);
    expect(runs[0]).to.include({ trigger: 'schedule', status: 'failed', scheduledAt: at.toISOString(), runId: null });
    expect(runs[0].reason).to.include('not deployed');
    expect(await failedEvents(job.id)).to.have.length(1);
    expect(await metric()).to.equal(before + 1);
    // the job moved on to the occurrence after the tick's time
    expect((await db()('jobs').where({ id: job.id }).first()).nextRunAt.getTime()).to.equal(at.getTime() + 1000);
  });

  it('an occurrence later than deadlineSec is recorded as missed with the reason, and raises nothing', async () => {
    const job = await create({ schedule: '0 * * * *', deadlineSec: 60 });
    const at = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000);
    await db()('jobs').where({ id: job.id }).update({ nextRunAt: at });
    // the controller comes back 90 s after the hourly occurrence
    await tickJobs(svc.services, new Date(at.getTime() + 90_000));
    const [run] = await runsOf(job.id);
    expect(run).to.include({ status: 'missed', scheduledAt: at.toISOString() });
    expect(run.reason).to.include('90 s after').and.include('deadlineSec is 60');
    expect(await failedEvents(job.id)).to.have.length(0);
  });

  it('forbid skips an occurrence while a run of the job runs, with the reason; the history keeps historyLimit runs', async () => {
    const job = await create({ schedule: '* * * * * *', historyLimit: 3 });
    const dep = await db()('deployments').where({ serviceId }).first();
    const [active] = await db()('service_runs').insert({
      serviceId, environmentId: envId, deploymentId: dep.id, serverId, containerName: 'job-api-1-run-abcdef12', command: JSON.stringify(['sleep', '600']),
    }).returning('*');
    await db()('job_runs').insert({ jobId: job.id, environmentId: envId, trigger: 'manual', scheduledAt: new Date(), outcome: 'started', runId: active.id });
    const t0 = Math.floor(Date.now() / 1000) * 1000 - 10_000;
    for (let i = 0; i < 5; i++) {
      await db()('jobs').where({ id: job.id }).update({ nextRunAt: new Date(t0 + i * 1000) });
      await tickJobs(svc.services, new Date(t0 + i * 1000 + 200));
    }
    const runs = await runsOf(job.id);
    // the newest three, and the older run still running: a running run is never pruned
    expect(runs.map((r) => r.status)).to.deep.equal(['skipped', 'skipped', 'skipped', 'running']);
    const skipped = runs[0];
    expect(skipped.reason).to.include('concurrencyPolicy forbid').and.include(active.id);
    expect(runs[0].scheduledAt).to.equal(new Date(t0 + 4000).toISOString());
    // once it ended, the next prune takes it and its one-off run row
    await db()('service_runs').where({ id: active.id }).update({ status: 'failed', finishedAt: new Date() });
    await db()('jobs').where({ id: job.id }).update({ nextRunAt: new Date(t0 + 5000) });
    await tickJobs(svc.services, new Date(t0 + 5200));
    const after = await runsOf(job.id);
    expect(after).to.have.length(3);
    expect(after[0]).to.include({ status: 'failed' }); // not skipped any more: it tried to start (the service is not deployed here)
    expect(await db()('service_runs').where({ id: active.id })).to.have.length(0);
  });

  it('export writes the jobs as manifests naming their service and server, which diff as no field change', async () => {
    await create({ name: 'exported', serverId, timeZone: 'Europe/Paris', concurrencyPolicy: 'allow', deadlineSec: 30, historyLimit: 5 });
    const text = (await admin.get(`/api/environments/${envId}/manifests/export`)).text;
    const docs = parseAllDocuments(text).filter((d) => d.toJS().kind === 'Job');
    const exported = docs.map((d) => d.toJS()).find((d) => d.metadata.name === 'exported');
    expect(exported.spec).to.deep.include({ service: 'job-api', server: 'job-srv', schedule: '*/5 * * * *', timeZone: 'Europe/Paris', concurrencyPolicy: 'allow', deadlineSec: 30, historyLimit: 5 });
    expect(exported.spec.command).to.deep.equal(['echo', 'hi']);
    const diff = await admin.post('/api/manifests/diff', { files: [{ path: 'jobs.yaml', content: docs.map((d) => d.toString()).join('---\n') }] });
    expect(diff.body.ok, JSON.stringify(diff.body.errors)).to.equal(true);
    expect(diff.body.changes.filter((c: { fields: string[] }) => c.fields.length)).to.deep.equal([]);
  });

  it('a Job from manifests names its service and server by name, in its own environment', async () => {
    const files = [
      { path: 'env.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: batch}\nspec: {}\n' },
      { path: 'server.yaml', content: 'apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: b1, environment: batch}\nspec: {hostname: 10.0.0.9}\n' },
      { path: 'image.yaml', content: 'apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: tool, environment: batch}\nspec: {imageName: example.test/tool}\n' },
      { path: 'service.yaml', content: 'apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: tool, environment: batch}\nspec: {image: tool, imageTag: v1, deployments: [{server: b1}]}\n' },
      {
        path: 'job.yaml',
        content: 'apiVersion: stevedore/v1\nkind: Job\nmetadata: {name: report, environment: batch}\nspec:\n  service: tool\n  server: b1\n  command: [sh, -c, "echo report"]\n  schedule: "0 6 * * *"\n  timeZone: Europe/Paris\n  concurrencyPolicy: replace\n  deadlineSec: 600\n',
      },
    ];
    const applied = await admin.post('/api/manifests/apply', { files });
    expect(applied.status, applied.text).to.equal(200);
    const env = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === 'batch');
    const [job] = (await admin.get(`/api/environments/${env.id}/jobs`)).body.items;
    const service = (await admin.get(`/api/environments/${env.id}/services`)).body.items[0];
    const server = (await admin.get(`/api/environments/${env.id}/servers`)).body.items[0];
    expect(job).to.include({ name: 'report', serviceId: service.id, serverId: server.id, schedule: '0 6 * * *', timeZone: 'Europe/Paris', concurrencyPolicy: 'replace', deadlineSec: 600 });
    // owned by the folder
    expectError(await admin.patch(`/api/jobs/${job.id}`, { schedule: '0 7 * * *' }), 409, 'CONFLICT');
    const again = await admin.post('/api/manifests/apply', { files });
    expect(JSON.stringify(again.body)).to.not.match(/"(create|update)"[^}]*Job/);
    // a service of another environment is not found by name: the folder is refused
    const bad = files.map((f) => (f.path === 'job.yaml' ? { ...f, content: f.content.replace('service: tool', 'service: job-api') } : f));
    const refused = await admin.post('/api/manifests/apply', { files: bad });
    expect(refused.status, refused.text).to.be.oneOf([400, 422]);
    const badCron = files.map((f) => (f.path === 'job.yaml' ? { ...f, content: f.content.replace('0 6 * * *', '0 25 * * *') } : f));
    const refusedCron = await admin.post('/api/manifests/apply', { files: badCron });
    expect(refusedCron.status, refusedCron.text).to.be.oneOf([400, 422]);
    expect(refusedCron.text).to.include('schedule');
  });
});
