import { scheduleProblem } from '../databases/cron-schedule.js';
import { labelsProblem, serverSelectorSchema } from '../placement/labels.js';
import type { KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { arrayOf, bool, enumOf, int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid, type Schema } from './schema.js';

/** An argument vector as Docker takes it (no shell reads it), as a one-off run's. */
const COMMAND = arrayOf(str({ minLength: 1, maxLength: 8192, pattern: '^[^\\u0000]*$' }), { minItems: 1, maxItems: 256, description: 'The command the run container runs instead of the service\'s' });
const SCHEDULE = nonEmpty(100, { description: 'Cron expression (5 fields, or 6 with seconds first) in timeZone' });
const TIME_ZONE = nullable(str({ minLength: 1, maxLength: 64, description: 'IANA time zone of the schedule (default UTC)' }));
const SELECTOR = nullable({ ...serverSelectorSchema, description: 'Run on one of the servers the service runs on whose labels match (instead of serverId)' });

/** The fields a manifest spec and the API share (the API names the service and server by id). */
const shared = {
  command: COMMAND,
  schedule: SCHEDULE,
  timeZone: TIME_ZONE,
  serverSelector: SELECTOR,
  concurrencyPolicy: enumOf('forbid', 'replace', 'allow'),
  deadlineSec: nullable(int(1, 31_536_000, { description: 'An occurrence not started within this many seconds of its time (the controller was down) is recorded as missed; null: run however late' })),
  historyLimit: int(1, 1000, { description: 'Runs kept per job; older ones are deleted' }),
  enabled: bool,
} satisfies Record<string, Schema>;

/** Why a job as written cannot run, naming the field, or null (the API and manifest folders both refuse it). */
export function jobProblem(f: Record<string, any>): { field: string; message: string } | null {
  if (f.schedule != null) {
    const p = scheduleProblem(f.schedule, f.timeZone);
    if (p) return { field: p.field === 'cron' ? 'schedule' : 'timeZone', message: p.message };
  }
  if ((f.serverId ?? f.server) != null && f.serverSelector != null) {
    return { field: 'serverSelector', message: 'a job names a server or a serverSelector, not both' };
  }
  const labels = f.serverSelector ? labelsProblem(f.serverSelector.matchLabels) : null;
  return labels ? { field: 'serverSelector', message: labels } : null;
}

/**
 * A scheduled job: on each occurrence of its cron schedule, a one-off run of its service's
 * current revision with its command (docs/jobs.md). The scheduler is the controller's
 * (reconcilers/job/), the runs are one-off runs (reconcilers/run/run-container.ts).
 */
export const job: KindDescriptor = {
  kind: 'Job',
  namespaced: true,
  description: 'A command run from a service\'s current revision on a cron schedule, as a one-off run (its env, secrets, config files, volumes and container policy).',
  table: 'jobs',
  versioned: false,
  schemas: resourceSchemas({
    writable: { name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }), serviceId: uuid, serverId: nullable(uuid), ...shared },
    readOnly: { id: uuid, environmentId: uuid, nextRunAt: { ...timestamp, nullable: true }, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp },
    required: ['name', 'serviceId', 'command', 'schedule'],
  }),
  jsonColumns: ['command', 'serverSelector'],
  references: [{ path: 'service', kind: 'Service', column: 'serviceId' }, { path: 'server', kind: 'Server', column: 'serverId' }],
  problem: jobProblem,
  api: { path: 'jobs', tagDescription: 'Scheduled jobs: a service\'s revision run with a command on a cron schedule' },
  manifest: {
    spec: object({
      service: name('Name of the Service whose current revision the job runs'),
      server: nullable(name('Name of the Server to run on (one the service runs on); default: the first of them')),
      ...shared,
    }, ['service', 'command', 'schedule']),
    columns: ['command', 'schedule', 'timeZone', 'serverSelector', 'concurrencyPolicy', 'deadlineSec', 'historyLimit', 'enabled'],
    defaults: { server: null, timeZone: null, serverSelector: null, concurrencyPolicy: 'forbid', deadlineSec: null, historyLimit: 10, enabled: true },
    // a changed schedule is awaited from now on: the scheduler computes its next occurrence again
    write(field, value) {
      if (field === 'schedule') return { schedule: value, nextRunAt: null };
      if (field === 'timeZone') return { timeZone: value ?? null, nextRunAt: null };
      if (field === 'enabled') return { enabled: value, nextRunAt: null };
      return undefined;
    },
  },
};
