// Restores: a stored backup is read from its store, gunzipped when it was stored gzipped (a `.gz`
// key; a pg_dump archive is stored as pg_dump wrote it) and streamed into the type's
// restore command inside the target container (the database's own, or a scratch one). Drills
// restore the latest backup into a scratch container, run the check query, and remove it.
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { BackupRow, RestoreRow } from '../store/repositories/backups.js';
import type { DatabaseRow } from '../store/repositories/databases.js';
import { startBackup } from './backup-run.js';
import { credentialsOf, placeOf, reasonOf, typeCommand, type Credentials, type DatabaseContext } from './context.js';
import { startScratch } from './scratch.js';
import { streamVerifiedInto } from './storage/verified-get.js';

/** Streams the backup into `container` with the type's restore command; throws with the tool's reason. */
async function streamInto(ctx: DatabaseContext, db: DatabaseRow, backup: BackupRow, serverId: string, container: string, creds: Credentials) {
  const store = await ctx.stores.of(backup);
  const argv = await typeCommand(ctx, db.type, 'restore', { container, database: db.databaseName, creds, stdin: true });
  const source = await store.get(backup.objectKey);
  await streamVerifiedInto(ctx.hosts, serverId, argv, source as Readable, backup.objectKey.endsWith('.gz') ? [createGunzip()] : [], backup.sha256, 'the restore');
}

/** Runs the check query (the drill's, else the type's `check`) and returns its output. */
async function check(ctx: DatabaseContext, db: DatabaseRow, serverId: string, container: string, creds: Credentials): Promise<string> {
  const argv = db.drillCheckCommand
    ? await typeCommand(ctx, db.type, 'query', { container, database: db.databaseName, creds, query: db.drillCheckCommand })
    : await typeCommand(ctx, db.type, 'check', { container, database: db.databaseName, creds });
  const r = await ctx.hosts.exec(serverId, argv, { check: false, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`the check query exited ${r.code}: ${reasonOf(r.stderr, 'no error output')}`);
  return r.stdout.trim().slice(0, 2000);
}

export type RestoreTarget = 'database' | 'scratch' | 'drill';

/** Inserts the running record; `done` settles with the finished one (never rejects). */
export async function startRestore(ctx: DatabaseContext, db: DatabaseRow, backup: BackupRow, target: RestoreTarget)
  : Promise<{ row: RestoreRow; done: Promise<RestoreRow> }> {
  placeOf(db);
  const row = await ctx.restores.insert({ databaseId: db.id, backupId: backup.id, target, status: 'running', owner: ctx.owner });
  const started = Date.now();
  const done = (async (): Promise<RestoreRow> => {
    const fields: Partial<RestoreRow> = {};
    try {
      if (target === 'database') {
        // a safety backup first: a restore that goes wrong can itself be undone
        const safety = await (await startBackup(ctx, db, { trigger: 'safety', storage: backup.storage })).done;
        fields.safetyBackupId = safety.id;
        if (safety.status !== 'succeeded') throw new Error(`the safety backup failed, nothing was restored: ${safety.error}`);
        const { serverId, container } = placeOf(db);
        await streamInto(ctx, db, backup, serverId, container, credentialsOf(ctx, db));
      } else {
        const scratch = await startScratch(ctx, db, target === 'drill' ? 'drill' : 'restore');
        fields.scratchContainer = scratch.container;
        try {
          await streamInto(ctx, db, backup, scratch.serverId, scratch.container, scratch.creds);
          fields.checkOutput = await check(ctx, db, scratch.serverId, scratch.container, scratch.creds);
        } finally {
          // a drill leaves nothing behind; a scratch restore is kept for the operator to look at
          if (target === 'drill' || fields.checkOutput === undefined) await scratch.remove();
        }
      }
      return (await ctx.restores.update(row.id, { ...fields, status: 'succeeded', durationMs: Date.now() - started, finishedAt: new Date() }))!;
    } catch (err) {
      return (await ctx.restores.update(row.id, {
        ...fields, status: 'failed', error: (err as Error).message.slice(0, 2000), durationMs: Date.now() - started, finishedAt: new Date(),
      }))!;
    }
  })().then(async (r) => { await announceRestore(ctx, db, r); return r; });
  return { row, done };
}

/** A drill's result is a condition of the database; a failed drill or restore also notifies. */
export async function announceRestore(ctx: DatabaseContext, db: DatabaseRow, r: RestoreRow): Promise<void> {
  const ok = r.status === 'succeeded';
  if (r.target === 'drill') {
    // both conditions of a failed drill in one write: a reader sees both or neither
    await ctx.databases.setConditions(db.id, ok
      ? [{ type: 'DrillSucceeded', status: true, reason: 'DrillSucceeded', message: `backup ${r.backupId} restored and checked in ${r.durationMs} ms: ${r.checkOutput}` }]
      : [{ type: 'DrillSucceeded', status: false, reason: 'DrillFailed', message: r.error ?? 'failed' },
        { type: 'Degraded', status: true, reason: 'DrillFailed', message: r.error ?? 'failed' }]);
  }
  if (!ok) {
    const what = r.target === 'drill' ? 'Restore drill' : 'Restore';
    await ctx.events.publish(r.target === 'drill' ? 'backup.drill_failed' : 'backup.restore_failed', db.environmentId, {
      databaseId: db.id, databaseName: db.name, backupId: r.backupId, restoreId: r.id,
      message: `${what} of ${db.name} failed: ${r.error}`.slice(0, 1000),
    }).catch((err: Error) => ctx.logger.warn('restore event not published', { error: err.message }));
  }
}
