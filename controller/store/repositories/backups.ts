import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';

export type BackupStatus = 'running' | 'succeeded' | 'failed';

/** What every backup and restore run row holds beyond its own fields: status, reason, times, lease. */
export interface LeasedRunRow {
  status: BackupStatus;
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  /** The replica running it (its lease name) and when that replica last said it still does. */
  owner?: string | null;
  heartbeatAt?: Date | null;
}

export interface BackupRow extends LeasedRunRow {
  id: string;
  databaseId: string;
  environmentId: string;
  trigger: 'manual' | 'schedule' | 'safety';
  storage: 'local' | 's3';
  bucket: string | null;
  objectKey: string;
  sizeBytes: string | number | null;
  sha256: string | null;
  pinned: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The lease of running backups and restores (one query per table, whatever the number of runs):
 * `renew` by the replica running them, `failExpired` by any live replica. The UPDATE re-checks
 * `status = 'running'` under the row lock, so two replicas sweeping at once fail each row once.
 */
export class LeasedRuns<Row extends { id: string }> extends BaseRepository<Row> {
  async renewLeases(owner: string): Promise<number> {
    return this.q().where({ status: 'running', owner } as never).update({ heartbeatAt: this.db.fn.now() } as never);
  }

  /** Marks failed, with `error`, every running row whose lease ran out `leaseMs` ago; returns them. */
  async failExpired(leaseMs: number, error: string): Promise<Row[]> {
    return this.q().where('status', 'running')
      .whereRaw('coalesce(heartbeat_at, started_at) < now() - make_interval(secs => ?)', [leaseMs / 1000])
      .update({ status: 'failed', error, finishedAt: this.db.fn.now(), updatedAt: this.db.fn.now() } as never)
      .returning('*') as Promise<Row[]>;
  }

  /** One page of the runs of one parent (`column`: databaseId, volumeId), newest first. */
  protected async pageBy(column: string, parentId: string, page: PageQuery, where: Record<string, unknown> = {}): Promise<Page<Row>> {
    if (!isUuid(parentId)) return { items: [], total: 0, limit: page.limit, offset: page.offset };
    const filter = { [column]: parentId, ...where } as never;
    const [rows, [{ count }]] = await Promise.all([
      this.q().where(filter).orderBy([{ column: 'startedAt', order: 'desc' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      this.q().where(filter).count({ count: '*' }),
    ]);
    return { items: rows as Row[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** The newest succeeded run of one parent (what a drill restores). */
  protected latestSucceededBy(column: string, parentId: string): Promise<Row | undefined> {
    return this.q().where({ [column]: parentId, status: 'succeeded' } as never).orderBy('startedAt', 'desc').first() as Promise<Row | undefined>;
  }

  /** Every finished run of one parent, newest first (what retention looks at). */
  protected finishedBy(column: string, parentId: string): Promise<Row[]> {
    return this.q().where({ [column]: parentId } as never).whereNot('status', 'running')
      .orderBy([{ column: 'startedAt', order: 'desc' }, { column: 'id' }]) as Promise<Row[]>;
  }
}

export class BackupsRepository extends LeasedRuns<BackupRow> {
  constructor(db: Knex) {
    super(db, 'backups');
  }

  /** Backups held, by status: a gauge of /metrics. */
  async countByStatus(): Promise<Array<{ status: string; count: number }>> {
    const rows = await this.db('backups').select('status').count({ count: '*' }).groupBy('status');
    return (rows as Array<{ status: string; count: string }>).map((r) => ({ status: r.status, count: Number(r.count) }));
  }

  pageOf(databaseId: string, page: PageQuery): Promise<Page<BackupRow>> {
    return this.pageBy('databaseId', databaseId, page);
  }

  /** Every finished backup of a database, newest first (what retention looks at). */
  finishedOf(databaseId: string): Promise<BackupRow[]> {
    return this.finishedBy('databaseId', databaseId);
  }

  latestSucceeded(databaseId: string): Promise<BackupRow | undefined> {
    return this.latestSucceededBy('databaseId', databaseId);
  }
}

export function toBackup(b: BackupRow) {
  return {
    id: b.id, databaseId: b.databaseId, environmentId: b.environmentId, status: b.status, trigger: b.trigger, storage: b.storage,
    bucket: b.bucket, objectKey: b.objectKey, sizeBytes: b.sizeBytes == null ? null : Number(b.sizeBytes), sha256: b.sha256,
    pinned: b.pinned, error: b.error, startedAt: b.startedAt, finishedAt: b.finishedAt,
  };
}

export interface RestoreRow extends LeasedRunRow {
  id: string;
  databaseId: string;
  backupId: string | null;
  safetyBackupId: string | null;
  target: 'database' | 'scratch' | 'drill';
  scratchContainer: string | null;
  checkOutput: string | null;
  durationMs: number | null;
}

export class RestoresRepository extends LeasedRuns<RestoreRow> {
  constructor(db: Knex) {
    super(db, 'restores');
  }

  /** Restores and drills held, by target and status: a gauge of /metrics. */
  async countByTargetAndStatus(): Promise<Array<{ target: string; status: string; count: number }>> {
    const rows = await this.db('restores').select('target', 'status').count({ count: '*' }).groupBy('target', 'status');
    return (rows as Array<{ target: string; status: string; count: string }>).map((r) => ({ target: r.target, status: r.status, count: Number(r.count) }));
  }

  drillsOf(databaseId: string, page: PageQuery): Promise<Page<RestoreRow>> {
    return this.pageBy('databaseId', databaseId, page, { target: 'drill' });
  }
}

export function toRestore(r: RestoreRow) {
  return {
    id: r.id, databaseId: r.databaseId, backupId: r.backupId, safetyBackupId: r.safetyBackupId, target: r.target, status: r.status,
    scratchContainer: r.scratchContainer, checkOutput: r.checkOutput, durationMs: r.durationMs, error: r.error,
    startedAt: r.startedAt, finishedAt: r.finishedAt,
  };
}
