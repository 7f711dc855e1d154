// One backup: the type's dump command runs inside the database's container over SSH; its stdout
// is hashed and counted on the way to the store, chunk by chunk (nothing is held whole in memory
// or written to the controller's disk), and gzipped unless it compresses itself (a pg_dump
// custom-format archive: pg_dump compresses on the database's server, so half the bytes cross the
// network and the controller spends no CPU on deflate). The backup is `succeeded` only when the dump
// exited 0 AND the store reports holding exactly the bytes that were hashed (storage/*: local
// hashes what it writes and fsyncs it, S3 reads the object back).
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { BackupRow } from '../store/repositories/backups.js';
import type { DatabaseRow } from '../store/repositories/databases.js';
import { credentialsOf, placeOf, reasonOf, typeCommand, type DatabaseContext } from './context.js';
import type { BackupStore } from './storage/backup-store.js';
import { compressesItself, peek } from './storage/peek.js';
import { putVerified } from './storage/verified-put.js';

/**
 * gzip level 1 for SQL dumps: deflate is most of such a backup's CPU on the controller, and level
 * 1 runs two to four times faster than 6 for a few percent more bytes (docs/backups.md).
 */
export const GZIP_OPTIONS = { level: 1, chunkSize: 64 * 1024 };

export interface BackupRequest {
  trigger: BackupRow['trigger'];
  storage?: 'local' | 's3';
}

/** Inserts the running row; the returned `done` settles with the finished row (never rejects). */
export async function startBackup(ctx: DatabaseContext, db: DatabaseRow, req: BackupRequest): Promise<{ row: BackupRow; done: Promise<BackupRow> }> {
  const place = placeOf(db);
  const { store, prefix } = await ctx.stores.forNew(db.environmentId, req.storage);
  const id = randomUUID();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  // `.gz` is added once the dump's first bytes show it must be gzipped
  const objectKey = `${prefix}${db.environmentId}/${db.id}/${stamp}-${id}.dump`;
  const row = await ctx.backups.insert({
    id, databaseId: db.id, environmentId: db.environmentId, status: 'running', trigger: req.trigger,
    storage: store.kind, bucket: store.bucket, objectKey, owner: ctx.owner,
  });
  const done = runDump(ctx, db, row, store, place).catch(async (err: Error) => finish(ctx, db, row, store, { error: err.message }));
  return { row, done };
}

async function runDump(ctx: DatabaseContext, db: DatabaseRow, row: BackupRow, store: BackupStore,
  place: { serverId: string; container: string }): Promise<BackupRow> {
  const argv = await typeCommand(ctx, db.type, 'backup', { container: place.container, database: db.databaseName, creds: credentialsOf(ctx, db) });
  const exec = await ctx.hosts.stream(place.serverId, argv);
  exec.stdin.end();
  const dump = exec.stdout as Readable;
  const gzipped = !compressesItself(await peek(dump));
  const key = gzipped ? `${row.objectKey}.gz` : row.objectKey;
  if (gzipped) await ctx.backups.update(row.id, { objectKey: key });
  let written: { sha256: string; size: number };
  try {
    written = await putVerified(store, key, dump, gzipped ? [createGzip(GZIP_OPTIONS)] : [], 'the dump');
  } catch (err) {
    exec.kill();
    await exec.exit;
    return finish(ctx, db, row, store, { error: (err as Error).message });
  }
  const exit = await exec.exit;
  if (exit.code !== 0) {
    // whatever reached the store is a truncated dump: it must not be restorable
    await store.remove(key).catch(() => undefined);
    const how = exit.code === null ? `was killed (${exit.signal ?? 'no exit status'})` : `exited ${exit.code}`;
    return finish(ctx, db, row, store, { error: `the dump ${how}: ${reasonOf(exit.stderr, 'no error output')}` });
  }
  return finish(ctx, db, row, store, { sha256: written.sha256, size: written.size });
}

/** Records the outcome, sets the database's Degraded condition and publishes backup.success/failed. */
async function finish(ctx: DatabaseContext, db: DatabaseRow, row: BackupRow, _store: BackupStore,
  outcome: { error: string } | { sha256: string; size: number }): Promise<BackupRow> {
  const failed = 'error' in outcome;
  const updated = (await ctx.backups.update(row.id, failed
    ? { status: 'failed', error: outcome.error, finishedAt: new Date() }
    : { status: 'succeeded', sha256: outcome.sha256, sizeBytes: outcome.size, finishedAt: new Date() }))!;
  await announceBackup(ctx, db, updated);
  return updated;
}

/** A finished backup's Degraded condition on its database and its backup.success/failed event. */
export async function announceBackup(ctx: DatabaseContext, db: DatabaseRow, row: BackupRow): Promise<void> {
  const outcome: { error: string } | { sha256: string; size: number } = row.status === 'succeeded'
    ? { sha256: row.sha256!, size: Number(row.sizeBytes) } : { error: row.error ?? 'failed' };
  const failed = 'error' in outcome;
  await ctx.databases.setCondition(db.id, failed
    ? { type: 'Degraded', status: true, reason: 'BackupFailed', message: outcome.error }
    : { type: 'Degraded', status: false, reason: 'BackupSucceeded', message: `backup ${row.id} verified` });
  const data = { databaseId: db.id, databaseName: db.name, backupId: row.id, trigger: row.trigger, storage: row.storage };
  await ctx.events.publish(failed ? 'backup.failed' : 'backup.success', db.environmentId, failed
    ? { ...data, message: `Backup of ${db.name} failed: ${outcome.error}`.slice(0, 1000) }
    : { ...data, sizeBytes: outcome.size, sha256: outcome.sha256 }).catch((err: Error) => ctx.logger.warn('backup event not published', { error: err.message }));
  if ('error' in outcome) ctx.logger.warn('backup failed', { databaseId: db.id, backupId: row.id, error: outcome.error });
}
