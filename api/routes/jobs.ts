// A scheduled job's routes beyond its CRUD (which the generic kind routes serve from
// controller/kinds/job.ts): its run history and a run now. Who may trigger a job is who may start
// a one-off run (operator and above in its environment, with operations.allowExec on); a trigger
// is audited like a run, its end by the run's watcher.
import type { Services } from '../../controller/services.js';
import type { JobRow } from '../../controller/store/repositories/jobs.js';
import { triggerJob } from '../../reconcilers/job/job-runs.js';
import { result, route } from '../http/route.js';
import { enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';

const jobRunSchema = object({
  id: uuid, jobId: uuid, trigger: enumOf('schedule', 'manual'), scheduledAt: timestamp,
  status: enumOf('pending', 'running', 'succeeded', 'failed', 'skipped', 'missed'),
  reason: nullable(str()), runId: nullable(uuid), serverId: nullable(uuid), exitCode: nullable(int()), logTail: str(),
  startedAt: nullableTimestamp, finishedAt: nullableTimestamp, durationMs: nullable(int(0)), createdBy: nullable(str()), createdAt: timestamp,
}, ['id', 'jobId', 'trigger', 'scheduledAt', 'status', 'reason', 'runId', 'serverId', 'exitCode', 'logTail', 'startedAt', 'finishedAt', 'durationMs', 'createdBy', 'createdAt']);

export default function jobRoutes(s: Services) {
  const load = rowOf<JobRow>(s.jobs, 'Job');
  return [
    route<unknown, { limit: number; offset: number }, JobRow>({
      method: 'GET', path: '/api/jobs/{id}/runs', operationId: 'listJobRuns', tag: 'jobs', access: 'viewer',
      summary: 'A job\'s runs, newest first: each occurrence (or trigger) with its status, reason, exit code, duration and output tail',
      description: 'status: pending (claimed, its container not started yet), running, succeeded, failed, '
        + 'skipped (concurrencyPolicy forbid while a run was running) or missed (not started within deadlineSec); reason says why. '
        + 'Only the newest historyLimit runs are kept.',
      load, query: paginationQuery, response: listOf(jobRunSchema),
      async handler(_ctx, { resource, query }) {
        await s.serviceRuns.failStale();
        const page = await s.jobs.runsOf(resource.id, query);
        return { ...page, limit: query.limit, offset: query.offset };
      },
    }),
    route<unknown, unknown, JobRow>({
      method: 'POST', path: '/api/jobs/{id}/trigger', operationId: 'triggerJob', tag: 'jobs', access: 'operator',
      summary: 'Run the job now, outside its schedule, under its concurrency policy (202 {jobRunId, runId})',
      description: 'As a one-off run of its service: 403 when the environment\'s operations.allowExec is false; 409 when its '
        + 'concurrencyPolicy is forbid and a run is still running, or the service is not deployed where the job runs. '
        + 'replace stops the running run first. Watch it with GET /api/jobs/{id}/runs or GET /api/runs/{runId}.',
      load, status: 202, errors: [403, 409],
      response: object({ jobRunId: uuid, runId: uuid }, ['jobRunId', 'runId']),
      async handler(ctx, { resource: job }) {
        const started = await triggerJob(s, job, ctx.state.actor);
        ctx.state.audit = { resourceType: 'jobs', resourceId: job.id, environmentId: job.environmentId, details: { name: job.name, ...started, command: job.command } };
        return result(202, started);
      },
    }),
  ];
}
