import { scheduleProblem } from '../databases/cron-schedule.js';
import type { KindDescriptor } from './kind.js';
import { name, secretRef } from './manifest-fields.js';
import { bool, int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid, type Schema } from './schema.js';

const TYPE_NAME = nonEmpty(100, { description: 'A database type (GET /api/settings/database-types): postgres, mysql, mariadb…' });
const CONTAINER = nullable(str({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', description: 'Container on the server that runs it' }));
const SCHEDULE = (what: string) => nullable(str({ minLength: 1, maxLength: 100, description: `Cron expression of scheduled ${what} (5 fields, or 6 with seconds) in timezone, UTC when none; null: none` }));
const TIMEZONE = nullable(str({ minLength: 1, maxLength: 64, description: 'IANA time zone of its schedules (default UTC)' }));

const schemas = resourceSchemas({
  writable: {
    name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
    type: TYPE_NAME,
    serverId: nullable(uuid),
    containerName: CONTAINER,
    host: nullable(str({ minLength: 1, maxLength: 253 })),
    port: nullable(int(1, 65535)),
    databaseName: nonEmpty(63, { description: 'The database inside the server' }),
    username: nullable(str({ minLength: 1, maxLength: 63 })),
    password: nullable(str({ minLength: 1, maxLength: 1024 })),
    timezone: TIMEZONE,
    monitoringEnabled: bool,
    collectionIntervalSec: int(60, 3600),
  },
  readOnly: {
    id: uuid, environmentId: uuid, hasCredentials: bool, generation: int(1),
    status: { type: 'object' }, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['name', 'type', 'databaseName'],
  writeOnly: ['password'],
});

export const database: KindDescriptor = {
  kind: 'Database',
  namespaced: true,
  description: 'A database in a container on a server (or at host/port), backed up and restore-drilled by the controller. The password comes from valueFrom.',
  table: 'databases',
  schemas,
  references: [{ path: 'server', kind: 'Server', column: 'serverId' }],
  secrets: [{ field: 'password', column: 'passwordEnc' }],
  api: { path: 'databases', tagDescription: 'Managed databases' },
  manifest: {
    spec: object({
      type: TYPE_NAME,
      server: name('Name of the Server it runs on'),
      containerName: CONTAINER,
      host: nullable(str({ minLength: 1, maxLength: 253 })),
      port: nullable(int(1, 65535)),
      databaseName: nonEmpty(63),
      username: nullable(str({ minLength: 1, maxLength: 63 })),
      password: secretRef('Database password'),
      timezone: TIMEZONE,
      backupSchedule: SCHEDULE('backups'),
      keepLast: nullable(int(1, 10000, { description: 'Retention: keep the newest N backups of each status (pinned ones are never rotated)' })),
      keepDays: nullable(int(1, 36500, { description: 'Retention: delete backups older than N days' })),
      drillSchedule: SCHEDULE('restore drills'),
      drillCheckCommand: nullable(str({ minLength: 1, maxLength: 2000, description: "SQL query a drill runs in the restored copy instead of the type's check" })),
    } as Record<string, Schema>, ['type', 'databaseName']),
    columns: ['type', 'containerName', 'host', 'port', 'databaseName', 'username', 'timezone', 'keepLast', 'keepDays', 'drillCheckCommand'],
    defaults: {
      server: null, containerName: null, host: null, port: null, username: null, timezone: null,
      backupSchedule: null, keepLast: null, keepDays: null, drillSchedule: null, drillCheckCommand: null,
    },
    // a schedule that cannot run is an error of the folder, not a warning in the scheduler's log
    problems(spec) {
      const out: { path: string[]; message: string }[] = [];
      for (const field of ['backupSchedule', 'drillSchedule'] as const) {
        if (spec[field] == null) continue;
        const p = scheduleProblem(spec[field], spec.timezone);
        if (p?.field === 'cron') out.push({ path: [field], message: `'${spec[field]}': ${p.message}` });
        else if (p && !out.some((o) => o.path[0] === 'timezone')) out.push({ path: ['timezone'], message: p.message });
      }
      return out;
    },
    // a schedule is its cron while enabled; the scheduler computes the next run of a new one
    actual: (row) => ({ backupSchedule: row.backupEnabled ? row.backupCron : null, drillSchedule: row.drillEnabled ? row.drillCron : null }),
    write(field, value) {
      if (field === 'backupSchedule') return { backupCron: value ?? null, backupEnabled: value != null, nextBackupAt: null };
      if (field === 'drillSchedule') return { drillCron: value ?? null, drillEnabled: value != null, nextDrillAt: null };
      return undefined;
    },
  },
};
