import type { Services } from '../../controller/services.js';
import { conflict, forbiddenRole, notFound, validationError } from '../../controller/errors/app-error.js';
import { nextRun, scheduleProblem } from '../../controller/databases/cron-schedule.js';
import { toBackup, toRestore, type BackupRow, type RestoreRow } from '../../controller/store/repositories/backups.js';
import { removeKeptScratch } from '../../controller/databases/scratch.js';
import type { DatabaseRow } from '../../controller/store/repositories/databases.js';
import { result, route, type RouteSpec } from '../http/route.js';
import type { Ctx } from '../http/types.js';
import type { Schema } from '../http/schema.js';
import type { Page, PageQuery } from '../../controller/store/repositories/base-repository.js';
import {
  arrayOf, bool, enumOf, int, listOf, nonEmpty, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid,
} from '../http/schema.js';
import { rowOf } from './loaders.js';

const backupSchema = object({
  id: uuid, databaseId: uuid, environmentId: uuid, status: enumOf('running', 'succeeded', 'failed'),
  trigger: enumOf('manual', 'schedule', 'safety'), storage: enumOf('local', 's3'), bucket: nullable(str()), objectKey: str(),
  sizeBytes: nullable(int(0)), sha256: nullable(str()), pinned: bool, error: nullable(str()), startedAt: timestamp, finishedAt: nullableTimestamp,
});
const restoreSchema = object({
  id: uuid, databaseId: uuid, backupId: nullable(uuid), safetyBackupId: nullable(uuid), target: enumOf('database', 'scratch', 'drill'),
  status: enumOf('running', 'succeeded', 'failed'), scratchContainer: nullable(str()), checkOutput: nullable(str()),
  durationMs: nullable(int(0)), error: nullable(str()), startedAt: timestamp, finishedAt: nullableTimestamp,
});
const cron = nonEmpty(100, { description: 'Cron expression (5 fields, or 6 with seconds), e.g. "0 3 * * *"' });
const timezone = nullable(str({ minLength: 1, maxLength: 64, description: 'IANA zone; default the database\'s, else UTC' }));
const scheduleSchema = object({ cron: nullable(cron), timezone, enabled: bool, nextRunAt: nullableTimestamp });
const retentionSchema = object({ keepLast: nullable(int(1, 10000)), keepDays: nullable(int(1, 36500)) });
const checkCommand = nullable(str({ minLength: 1, maxLength: 2000, description: "SQL query run in the restored copy instead of the type's check (count tables)" }));
const drillSchema = object({ cron: nullable(cron), enabled: bool, nextRunAt: nullableTimestamp, checkCommand });

/**
 * The list and the backup-now routes of what is backed up (a database, a volume: docs/volumes.md):
 * the same pages, roles, 202 and audit entry.
 */
export function backupNowRoutes<R extends { id: string; environmentId: string }, B extends { id: string; storage: string }>(o: {
  path: string; operationIds: [string, string]; tag: string; load: (ctx: Ctx, params: Record<string, string>) => Promise<R>; response: Schema;
  listSummary: string; createSummary: string; resourceType: string;
  page: (id: string, q: PageQuery) => Promise<Page<B>>; present: (b: B) => unknown; start: (r: R, storage?: 'local' | 's3') => Promise<B>;
}): RouteSpec[] {
  return [
    route<unknown, { limit: number; offset: number }, R>({
      method: 'GET', path: o.path, operationId: o.operationIds[0], tag: o.tag, access: 'viewer',
      load: o.load, query: paginationQuery, response: listOf(o.response), summary: o.listSummary,
      async handler(_ctx, { resource, query }) {
        const page = await o.page(resource.id, query);
        return { ...page, items: page.items.map(o.present) };
      },
    }),
    route<{ storage?: 'local' | 's3' }, unknown, R>({
      method: 'POST', path: o.path, operationId: o.operationIds[1], tag: o.tag, access: 'operator',
      load: o.load, body: object({ storage: enumOf('local', 's3') }), status: 202, response: o.response, errors: [409], summary: o.createSummary,
      async handler(ctx, { resource, body }) {
        const row = await o.start(resource, body.storage);
        ctx.state.audit = { environmentId: resource.environmentId, resourceType: o.resourceType, resourceId: row.id, details: { storage: row.storage } };
        return result(202, o.present(row));
      },
    }),
  ];
}

/** A stored backup's delete (refused while pinned or running) and its pin and unpin: a database's or a volume's. */
export function backupItemRoutes<B extends { id: string; environmentId: string; pinned: boolean; status: string }>(o: {
  path: string; name: string; noun: string; tag: string; load: (ctx: Ctx, params: Record<string, string>) => Promise<B>; response: Schema;
  present: (b: B) => unknown; remove: (b: B) => Promise<void>; pin: (b: B, pinned: boolean) => Promise<B>;
}): RouteSpec[] {
  return [
    route<unknown, unknown, B>({
      method: 'DELETE', path: o.path, operationId: `delete${o.name}`, tag: o.tag, access: 'operator',
      load: o.load, status: 204, errors: [409], summary: `Delete a ${o.noun} and its stored object; refused while pinned or running`,
      async handler(ctx, { resource }) {
        if (resource.pinned) throw conflict('This backup is pinned', 'Unpin it first');
        if (resource.status === 'running') throw conflict('This backup is still running');
        await o.remove(resource);
        ctx.state.audit = { environmentId: resource.environmentId };
        return undefined;
      },
    }),
    ...(['pin', 'unpin'] as const).map((action) => route<unknown, unknown, B>({
      method: 'POST', path: `${o.path}/${action}`, operationId: `${action}${o.name}`, tag: o.tag, access: 'operator',
      load: o.load, response: o.response,
      summary: action === 'pin' ? `Pin a ${o.noun}: rotation never deletes it` : `Unpin a ${o.noun}: rotation may delete it again`,
      async handler(ctx, { resource }) {
        ctx.state.audit = { environmentId: resource.environmentId };
        return o.present(await o.pin(resource, action === 'pin'));
      },
    })),
  ];
}

/** Backups, schedules, retention, restores and restore drills of a database. */
export default function backupRoutes(s: Services) {
  const ops = s.databaseOps;
  const { databases, backups, restores } = ops.ctx;
  const loadDb = rowOf(databases, 'Database');
  const loadBackup = rowOf(backups, 'Backup');
  const dbOf = async (b: BackupRow): Promise<DatabaseRow> => (await databases.findById(b.databaseId)) ?? (() => { throw notFound('Database'); })();

  /** A schedule change: validated, the next run computed in the database's zone. */
  function scheduleColumns(body: { cron?: string | null; timezone?: string | null; enabled: boolean }, db: DatabaseRow) {
    const zone = body.timezone !== undefined ? body.timezone : db.timezone;
    if (body.enabled && !body.cron) throw validationError('An enabled schedule needs a cron expression', 'cron');
    if (body.cron) {
      const problem = scheduleProblem(body.cron, zone);
      if (problem) throw validationError(problem.message, problem.field);
    }
    const next = body.enabled && body.cron ? nextRun(body.cron, zone) : null;
    return { zone, next };
  }

  return [
    ...backupNowRoutes<DatabaseRow, BackupRow>({
      path: '/api/databases/{id}/backups', operationIds: ['listBackups', 'createBackup'], tag: 'backups', load: loadDb, response: backupSchema,
      listSummary: 'Backups of a database, newest first',
      createSummary: "Start a backup (202, status running): the dump runs in the database's container and streams to storage (s3 when the environment enabled object storage, else local)",
      page: (id, q) => backups.pageOf(id, q), present: toBackup, resourceType: 'backups',
      start: async (db, storage) => (await ops.backup(db, { trigger: 'manual', storage })).row,
    }),

    route({
      method: 'GET', path: '/api/backups/{id}', operationId: 'getBackup', tag: 'backups', access: 'viewer',
      load: loadBackup, response: backupSchema, summary: 'One backup: status, size, SHA-256, and the reason of a failure',
      handler: async (_ctx, { resource }) => toBackup(resource),
    }),

    ...backupItemRoutes<BackupRow>({
      path: '/api/backups/{id}', name: 'Backup', noun: 'backup', tag: 'backups', load: loadBackup, response: backupSchema, present: toBackup,
      remove: (b) => ops.deleteBackup(b), pin: async (b, pinned) => (await backups.update(b.id, { pinned }))!,
    }),

    route<unknown, unknown, BackupRow>({
      method: 'GET', path: '/api/backups/{id}/download', operationId: 'downloadBackup', tag: 'backups', access: 'operator',
      load: loadBackup, errors: [403, 409], summary: "Stream the stored backup; 403 while the environment's data.allowBackupDownload is false",
      responseType: 'application/octet-stream',
      response: { type: 'string', format: 'binary', description: 'The dump as stored: `<id>.dump` a PostgreSQL custom-format archive (pg_restore reads it), `<id>.dump.gz` a gzip-compressed SQL dump (Content-Disposition names it); X-Checksum-Sha256 holds its SHA-256' },
      async handler(_ctx, { resource }) {
        const data = await s.settings.get<{ allowBackupDownload: boolean }>(resource.environmentId, 'data');
        if (!data.allowBackupDownload) {
          throw forbiddenRole('Backup downloads are disabled in this environment', 'An admin sets data.allowBackupDownload to true');
        }
        if (resource.status !== 'succeeded') throw conflict(`Only a succeeded backup can be downloaded (this one is ${resource.status})`);
        const stream = await (await ops.ctx.stores.of(resource)).get(resource.objectKey);
        const name = `${resource.id}${resource.objectKey.endsWith('.gz') ? '.dump.gz' : '.dump'}`;
        return result(200, stream, {
          'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${name}"`,
          'Content-Length': String(resource.sizeBytes), 'X-Checksum-Sha256': resource.sha256 ?? '',
        });
      },
    }),

    route<{ target: 'database' | 'scratch'; confirm?: string }, unknown, BackupRow>({
      method: 'POST', path: '/api/backups/{id}/restore', operationId: 'restoreBackup', tag: 'backups', access: 'operator',
      load: loadBackup, status: 202, response: restoreSchema, errors: [409],
      body: object({
        target: enumOf('database', 'scratch'),
        confirm: str({ maxLength: 100, description: "The database's name: required when target is database" }),
      }, ['target']),
      summary: 'Restore a backup into its database (confirm with its name; a safety backup is taken first) or into a scratch container (202)',
      async handler(ctx, { resource, body }) {
        const db = await dbOf(resource);
        if (resource.status !== 'succeeded') throw conflict(`Only a succeeded backup can be restored (this one is ${resource.status})`);
        if (body.target === 'database' && body.confirm !== db.name) {
          throw validationError(`Restoring replaces the data of '${db.name}': send confirm with its name`, 'confirm');
        }
        const { row } = await ops.restore(db, resource, body.target);
        ctx.state.audit = { environmentId: db.environmentId, details: { target: body.target, databaseId: db.id } };
        return result(202, toRestore(row));
      },
    }),

    route({
      method: 'GET', path: '/api/restores/{id}', operationId: 'getRestore', tag: 'backups', access: 'viewer',
      load: rowOf(restores, 'Restore'), response: restoreSchema, summary: 'One restore or restore drill: status, duration, check output, reason',
      handler: async (_ctx, { resource }) => toRestore(resource),
    }),

    route<unknown, unknown, RestoreRow & { environmentId: string | null }>({
      method: 'DELETE', path: '/api/restores/{id}/scratch-container', operationId: 'removeScratchContainer', tag: 'backups', access: 'operator',
      // with its database's environment, which the per-environment role check reads
      load: async (ctx, params) => {
        const restore = await rowOf(restores, 'Restore')(ctx, params);
        return { ...restore, environmentId: (await databases.findById(restore.databaseId))?.environmentId ?? null };
      },
      response: restoreSchema, errors: [409],
      summary: 'Remove the scratch container a restore kept for inspection (only a container labelled as this database\'s scratch)',
      async handler(ctx, { resource }) {
        if (resource.target !== 'scratch' || !resource.scratchContainer) throw conflict('This restore kept no scratch container');
        if (resource.status === 'running') throw conflict('The restore is still running');
        const db = (await databases.findById(resource.databaseId)) ?? (() => { throw notFound('Database'); })();
        const removed = await removeKeptScratch(ops.ctx, db, resource.scratchContainer);
        const row = await restores.update(resource.id, { scratchContainer: null });
        ctx.state.audit = { environmentId: db.environmentId, details: { container: resource.scratchContainer, removed } };
        return toRestore(row!);
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'GET', path: '/api/databases/{id}/backup-schedule', operationId: 'getBackupSchedule', tag: 'backups', access: 'viewer',
      load: loadDb, response: scheduleSchema, summary: "The database's backup schedule",
      handler: async (_ctx, { resource: d }) => ({ cron: d.backupCron, timezone: d.timezone, enabled: d.backupEnabled, nextRunAt: d.nextBackupAt }),
    }),

    route<{ cron?: string | null; timezone?: string | null; enabled: boolean }, unknown, DatabaseRow>({
      method: 'PUT', path: '/api/databases/{id}/backup-schedule', operationId: 'setBackupSchedule', tag: 'backups', access: 'operator',
      load: loadDb, body: object({ cron: nullable(cron), timezone, enabled: bool }, ['enabled']), response: scheduleSchema,
      summary: "Set the backup schedule (cron in the database's time zone, UTC when it has none)",
      async handler(ctx, { resource, body }) {
        const { zone, next } = scheduleColumns(body, resource);
        const d = (await databases.update(resource.id, {
          backupCron: body.cron ?? null, backupEnabled: body.enabled, timezone: zone, nextBackupAt: next,
        }))!;
        ctx.state.audit = { environmentId: d.environmentId };
        return { cron: d.backupCron, timezone: d.timezone, enabled: d.backupEnabled, nextRunAt: d.nextBackupAt };
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'GET', path: '/api/databases/{id}/backup-retention', operationId: 'getBackupRetention', tag: 'backups', access: 'viewer',
      load: loadDb, response: retentionSchema, summary: 'How many and how old backups rotation keeps',
      handler: async (_ctx, { resource: d }) => ({ keepLast: d.keepLast, keepDays: d.keepDays }),
    }),

    route<{ keepLast?: number | null; keepDays?: number | null }, unknown, DatabaseRow>({
      method: 'PUT', path: '/api/databases/{id}/backup-retention', operationId: 'setBackupRetention', tag: 'backups', access: 'operator',
      load: loadDb, body: retentionSchema, response: retentionSchema,
      summary: 'Set retention: keep the newest keepLast and those younger than keepDays (null: no limit); pinned backups are always kept',
      async handler(ctx, { resource, body }) {
        const d = (await databases.update(resource.id, { keepLast: body.keepLast ?? null, keepDays: body.keepDays ?? null }))!;
        ctx.state.audit = { environmentId: d.environmentId };
        return { keepLast: d.keepLast, keepDays: d.keepDays };
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'GET', path: '/api/databases/{id}/backups/rotation-preview', operationId: 'previewBackupRotation', tag: 'backups',
      access: 'viewer', load: loadDb, response: object({ items: arrayOf(backupSchema) }),
      summary: 'The backups rotation would delete now, under the current retention',
      handler: async (_ctx, { resource }) => ({ items: (await ops.rotationPreview(resource)).map(toBackup) }),
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'POST', path: '/api/databases/{id}/backups/rotate', operationId: 'rotateBackups', tag: 'backups', access: 'operator',
      load: loadDb, response: object({ deleted: arrayOf(backupSchema) }), summary: 'Apply retention now: deletes exactly what the preview names',
      async handler(ctx, { resource }) {
        const deleted = await ops.rotate(resource);
        ctx.state.audit = { environmentId: resource.environmentId, details: { deleted: deleted.map((b) => b.id) } };
        return { deleted: deleted.map(toBackup) };
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'GET', path: '/api/databases/{id}/restore-drill', operationId: 'getRestoreDrill', tag: 'backups', access: 'viewer',
      load: loadDb, response: drillSchema, summary: "The database's restore drill schedule",
      handler: async (_ctx, { resource: d }) => ({ cron: d.drillCron, enabled: d.drillEnabled, checkCommand: d.drillCheckCommand, nextRunAt: d.nextDrillAt }),
    }),

    route<{ cron?: string | null; enabled: boolean; checkCommand?: string | null }, unknown, DatabaseRow>({
      method: 'PUT', path: '/api/databases/{id}/restore-drill', operationId: 'setRestoreDrill', tag: 'backups', access: 'operator',
      load: loadDb, body: object({ cron: nullable(cron), enabled: bool, checkCommand }, ['enabled']),
      response: drillSchema, summary: 'Schedule restore drills: the latest backup restored into a scratch container and checked',
      async handler(ctx, { resource, body }) {
        const { next } = scheduleColumns(body, resource);
        const d = (await databases.update(resource.id, {
          drillCron: body.cron ?? null, drillEnabled: body.enabled, nextDrillAt: next,
          ...(body.checkCommand !== undefined && { drillCheckCommand: body.checkCommand }),
        }))!;
        ctx.state.audit = { environmentId: d.environmentId };
        return { cron: d.drillCron, enabled: d.drillEnabled, checkCommand: d.drillCheckCommand, nextRunAt: d.nextDrillAt };
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'POST', path: '/api/databases/{id}/restore-drill/run', operationId: 'runRestoreDrill', tag: 'backups', access: 'operator',
      load: loadDb, status: 202, response: restoreSchema, errors: [409], summary: 'Run a restore drill now (202)',
      async handler(ctx, { resource }) {
        const started = await ops.drill(resource);
        if (!started) throw conflict('There is no succeeded backup to drill', 'Run a backup first');
        ctx.state.audit = { environmentId: resource.environmentId, resourceType: 'restores', resourceId: started.row.id };
        return result(202, toRestore(started.row));
      },
    }),

    route<unknown, { limit: number; offset: number }, DatabaseRow>({
      method: 'GET', path: '/api/databases/{id}/restore-drills', operationId: 'listRestoreDrills', tag: 'backups', access: 'viewer',
      load: loadDb, query: paginationQuery, response: listOf(restoreSchema), summary: 'Restore drills of a database, newest first',
      async handler(_ctx, { resource, query }) {
        const page = await restores.drillsOf(resource.id, query);
        return { ...page, items: page.items.map(toRestore) };
      },
    }),
  ];
}

