// Scheduled jobs (docs/jobs.md): each occurrence of a job's cron schedule is claimed once and run
// as a one-off run of its service's current revision (reconcilers/run/run-container.ts), so a job
// run has the service's env, secrets, config files, volumes and container policy, and is never
// the service's container. The `jobs` tick runs on the shared scheduler (the leader's, like the
// database backups'); the claim is a compare-and-set of the job's next_run_at together with the
// insert of a job_runs row unique on (job, occurrence), so two replicas, a leadership hand-over or
// a restart never run one occurrence twice.
import type { Services } from '../../controller/services.js';
import type { Actor } from '../../controller/auth/actor.js';
import { execAllowed } from '../../controller/auth/exec-allowed.js';
import { conflict, forbiddenScope } from '../../controller/errors/app-error.js';
import { dueOccurrence, nextOccurrence } from '../../controller/jobs/occurrence.js';
import { matchesSelector } from '../../controller/placement/labels.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import type { JobRow, NewJobRun } from '../../controller/store/repositories/jobs.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { ServiceRunRow } from '../../controller/store/repositories/service-runs.js';
import { startRun, stopRun, type RunEnd } from '../run/run-container.js';

type Result = 'succeeded' | 'failed' | 'skipped' | 'missed' | 'replaced';

/** Registers the `jobs` tick on the shared scheduler (it runs on the leader only). */
export async function startJobScheduler(s: Services): Promise<void> {
  s.scheduler.every('jobs', s.config.scheduler.jobsSec, () => tickJobs(s));
}

/**
 * One tick: new jobs get their first occurrence; every due occurrence is claimed and decided
 * once (run, or recorded as missed or skipped with the reason).
 */
export async function tickJobs(s: Services, now = new Date()): Promise<void> {
  await s.serviceRuns.failStale();
  await s.jobs.failAbandoned();
  for (const job of await s.jobs.unscheduled()) {
    try {
      await s.jobs.schedule(job.id, nextOccurrence(job, now));
    } catch (e) {
      s.logger.warn('the schedule of a job cannot be computed', { jobId: job.id, error: (e as Error).message });
    }
  }
  for (const job of await s.jobs.due(now)) {
    await occur(s, job, now).catch((e) => s.logger.error('a job occurrence failed to be decided', { jobId: job.id, error: String(e) }));
  }
}

async function occur(s: Services, job: JobRow, now: Date): Promise<void> {
  const due = dueOccurrence(job, job.nextRunAt!, now);
  const base = { jobId: job.id, environmentId: job.environmentId, trigger: 'schedule' as const, scheduledAt: due.scheduledAt };
  if (due.missed) {
    if (await s.jobs.claim(job, job.nextRunAt!, due.next, { ...base, outcome: 'missed', reason: due.missed })) {
      counted(s, 'missed');
      await s.jobs.prune(job.id, job.historyLimit);
    }
    return;
  }
  const active = await s.jobs.activeRuns(job.id);
  if (active.length && job.concurrencyPolicy === 'forbid') {
    const a = active[0];
    const reason = `concurrencyPolicy forbid: the run of ${a.scheduledAt.toISOString()} (run ${a.runId}) is still running`;
    if (await s.jobs.claim(job, job.nextRunAt!, due.next, { ...base, outcome: 'skipped', reason })) {
      counted(s, 'skipped');
      await s.jobs.prune(job.id, job.historyLimit);
    }
    return;
  }
  const caughtUp = now.getTime() - due.scheduledAt.getTime() > s.config.scheduler.jobsSec * 1000 + 2000
    ? `started ${Math.round((now.getTime() - due.scheduledAt.getTime()) / 1000)} s after its time (no controller ran the scheduler then)`
      + (due.passedBefore ? `; ${due.passedBefore} earlier occurrence(s) passed and were not run` : '')
    : null;
  const jobRunId = await s.jobs.claim(job, job.nextRunAt!, due.next, { ...base, outcome: 'started', reason: caughtUp });
  if (!jobRunId) return;
  await replaceActive(s, job, active, due.scheduledAt);
  try {
    const { service, deployment } = await placeOf(s, job);
    if (!(await execAllowed(s, job.environmentId))) throw forbiddenScope('runs are turned off in this environment (setting operations.allowExec is false)');
    const run = await startRun(s, { service, deployment, command: job.command, actor: undefined, onEnd: (r, end) => ended(s, job, service, r, end) });
    await s.jobs.setRun(jobRunId, { outcome: 'started', runId: run.id });
  } catch (e) {
    const reason = `could not start: ${(e as Error).message}`;
    await s.jobs.setRun(jobRunId, { outcome: 'failed', reason });
    await failed(s, job, { jobRunId, reason });
  }
  await s.jobs.prune(job.id, job.historyLimit);
}

/**
 * A trigger (POST /api/jobs/{id}/trigger): a run now, outside the schedule, under the job's
 * concurrency policy; a refusal (forbid with a run active, not deployed, the container policy,
 * runs turned off) is the request's error and records nothing.
 */
export async function triggerJob(s: Services, job: JobRow, actor: Actor | undefined): Promise<{ jobRunId: string; runId: string }> {
  if (!(await execAllowed(s, job.environmentId))) {
    throw forbiddenScope('Runs are turned off in this environment (setting operations.allowExec is false)',
      'An admin of the environment can set operations.allowExec to true in its settings');
  }
  await s.serviceRuns.failStale();
  const active = await s.jobs.activeRuns(job.id);
  if (active.length && job.concurrencyPolicy === 'forbid') {
    throw conflict(`job ${job.name} has a run still running (run ${active[0].runId}) and its concurrencyPolicy is forbid`, 'Wait for it to end, or set concurrencyPolicy to replace or allow');
  }
  const { service, deployment } = await placeOf(s, job);
  const now = new Date();
  await replaceActive(s, job, active, now);
  const run = await startRun(s, { service, deployment, command: job.command, actor, onEnd: (r, end) => ended(s, job, service, r, end) });
  const jobRunId = await s.jobs.insertRun({
    jobId: job.id, environmentId: job.environmentId, trigger: 'manual', scheduledAt: now, outcome: 'started', reason: null, runId: run.id, createdBy: actor?.name ?? null,
  } satisfies NewJobRun);
  await s.jobs.prune(job.id, job.historyLimit);
  return { jobRunId, runId: run.id };
}

/** `replace`: the runs still running stop (ended with the reason) before the new one starts. */
async function replaceActive(s: Services, job: JobRow, active: Awaited<ReturnType<Services['jobs']['activeRuns']>>, by: Date): Promise<void> {
  if (job.concurrencyPolicy !== 'replace') return;
  for (const a of active) {
    await stopRun(s, a, `concurrencyPolicy replace: stopped for the run of ${by.toISOString()}`)
      .catch((e) => s.logger.warn('a replaced job run could not be stopped', { jobId: job.id, runId: a.runId, error: String(e) }));
    counted(s, 'replaced');
  }
}

/**
 * Where a job runs: the deployment of its service on its server, on one of the servers its
 * selector matches, or the first the service runs on; one that has a container deployed.
 */
async function placeOf(s: Services, job: JobRow): Promise<{ service: ServiceRow; deployment: DeploymentRow }> {
  const service = await s.services.findById(job.serviceId);
  if (!service) throw conflict(`the service of job ${job.name} no longer exists`);
  let candidates = await s.deployments.listByServiceInServerOrder(service.id);
  if (job.serverId) candidates = candidates.filter((d) => d.serverId === job.serverId);
  if (job.serverSelector) {
    const servers = await s.servers.findByIds(candidates.map((d) => d.serverId));
    const chosen = new Set(servers.filter((v) => matchesSelector(job.serverSelector, v.labels)).map((v) => v.id));
    candidates = candidates.filter((d) => chosen.has(d.serverId));
  }
  const deployment = candidates.find((d) => d.imageTag !== null);
  if (!deployment) {
    const where = job.serverId ? 'on its server' : job.serverSelector ? 'on a server its serverSelector matches' : 'on any server';
    throw conflict(`service ${service.name} is not deployed ${where}`, 'Deploy the service first');
  }
  return { service, deployment };
}

/** A run's end, observed by its watcher: counted, and a failure raises job.failed. */
async function ended(s: Services, job: JobRow, service: ServiceRow, run: ServiceRunRow, end: RunEnd): Promise<void> {
  counted(s, end.status);
  if (end.status === 'failed') await failed(s, job, { runId: run.id, serviceName: service.name, exitCode: end.exitCode, reason: end.reason });
}

async function failed(s: Services, job: JobRow, d: { jobRunId?: string; runId?: string; serviceName?: string; exitCode?: number | null; reason: string | null }): Promise<void> {
  if (!d.runId) counted(s, 'failed');
  await s.events.publish('job.failed', job.environmentId, {
    jobId: job.id, jobName: job.name, serviceId: job.serviceId, ...d,
    message: `Job ${job.name} failed: ${d.reason ?? 'no reason recorded'}`.slice(0, 1000),
  }).catch((e) => s.logger.warn('job.failed could not be published', { jobId: job.id, error: String(e) }));
}

const counted = (s: Services, result: Result) => s.metrics.jobRuns.inc({ result });
