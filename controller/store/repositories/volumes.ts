import type { Knex } from 'knex';
import { validationError } from '../../errors/app-error.js';
import type { Consistency, VolumeBackupSpec } from '../../kinds/volume.js';
import type { KindDescriptor } from '../../kinds/kind.js';
import { dockerVolumeName } from '../../model/volume-mount.js';
import { type Page, type PageQuery } from './base-repository.js';
import { ConditionedRepository } from './conditioned-repository.js';
import { LeasedRuns, type LeasedRunRow } from './backups.js';
import { KindRepository, type KindRow } from './kind-repository.js';
import { claimNextRun } from './schedule-claim.js';

export interface VolumeRow {
  id: string;
  environmentId: string;
  name: string;
  serverId: string;
  driver: string;
  labels: Record<string, string>;
  backup: VolumeBackupSpec | null;
  nextBackupAt: Date | null;
  nextDrillAt: Date | null;
  /** null: the name it was created under (dockerNameOf). */
  dockerName: string | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** The Docker volume a volume is now: the one a restore swapped in, else the one it was created as. */
export const dockerNameOf = (v: Pick<VolumeRow, 'environmentId' | 'name' | 'dockerName'>): string => v.dockerName ?? dockerVolumeName(v.environmentId, v.name);

export type VolumeScheduleKind = 'backup' | 'drill';

export class VolumesRepository extends ConditionedRepository<VolumeRow> {
  constructor(db: Knex) {
    super(db, 'volumes');
  }

  listByEnvironment(environmentId: string): Promise<VolumeRow[]> {
    return this.q().where({ environmentId }).orderBy('name') as Promise<VolumeRow[]>;
  }

  listByServer(serverId: string): Promise<VolumeRow[]> {
    return this.q().where({ serverId }).orderBy('name') as Promise<VolumeRow[]>;
  }

  /** Volumes with a backup block: their backup (and drill) schedules are due, or not computed yet (null). */
  scheduled(): Promise<VolumeRow[]> {
    return this.q().whereNotNull('backup') as Promise<VolumeRow[]>;
  }

  /** Moves a backup (or drill) schedule to its next time; true for the one caller that moved it. */
  claimDue(id: string, kind: VolumeScheduleKind, was: Date | null, next: Date | null): Promise<boolean> {
    return claimNextRun(this.q().where({ id }), kind === 'backup' ? 'nextBackupAt' : 'nextDrillAt', was, next);
  }

  /** The swap of a restore: the volume is now `dockerName`, but only if it still was `was`. */
  async swapDockerName(id: string, was: string | null, dockerName: string): Promise<boolean> {
    const q = this.q().where({ id });
    const n = await (was === null ? q.whereNull('dockerName') : q.where('dockerName', was)).update({ dockerName, updatedAt: this.db.fn.now() } as never);
    return n === 1;
  }
}

/**
 * Volumes as the generic CRUD routes write and read them: a server of the same environment or
 * 400; labels and backup blocks checked (descriptor rules); a changed backup block is scheduled
 * afresh; reads show the Docker name it is now.
 */
export class VolumeKindRepository extends KindRepository {
  constructor(db: Knex, kind: KindDescriptor) {
    super(db, kind, {
      volumes_server_id_foreign: 'The server does not exist',
      volumes_server_docker_name_unique: { message: 'A volume of this Docker name already exists on this server', field: 'name' },
    });
  }

  protected override columns(body: Record<string, unknown>) {
    const out = super.columns(body);
    if ('backup' in body) Object.assign(out, { nextBackupAt: null, nextDrillAt: null });
    return out;
  }

  protected override async check(trx: Knex.Transaction, environmentId: string, body: Record<string, unknown>) {
    const p = this.kind.problem!(body);
    if (p) throw validationError(p.message, p.field);
    if (body.serverId && !(await trx('servers').where({ id: body.serverId, environmentId }).first('id'))) {
      // a server of another environment is as unknown as a missing one
      throw validationError('Server not found in this environment', 'serverId');
    }
  }

  override async present(rows: KindRow[]) {
    const plain = await super.present(rows);
    return plain.map((p, i) => ({ ...p, dockerName: dockerNameOf(rows[i] as unknown as VolumeRow) }));
  }
}

export interface VolumeBackupRow extends LeasedRunRow {
  id: string;
  volumeId: string;
  environmentId: string;
  trigger: 'manual' | 'schedule' | 'safety';
  consistency: Consistency;
  storage: 'local' | 's3';
  bucket: string | null;
  objectKey: string;
  sizeBytes: string | number | null;
  tarBytes: string | number | null;
  sha256: string | null;
  pinned: boolean;
}

export class VolumeBackupsRepository extends LeasedRuns<VolumeBackupRow> {
  constructor(db: Knex) {
    super(db, 'volume_backups');
  }

  pageOf(volumeId: string, page: PageQuery): Promise<Page<VolumeBackupRow>> {
    return this.pageBy('volumeId', volumeId, page);
  }

  /** Every finished backup of a volume, newest first (what retention looks at). */
  finishedOf(volumeId: string): Promise<VolumeBackupRow[]> {
    return this.finishedBy('volumeId', volumeId);
  }

  latestSucceeded(volumeId: string): Promise<VolumeBackupRow | undefined> {
    return this.latestSucceededBy('volumeId', volumeId);
  }
}

export function toVolumeBackup(b: VolumeBackupRow) {
  return {
    id: b.id, volumeId: b.volumeId, environmentId: b.environmentId, status: b.status, trigger: b.trigger, consistency: b.consistency,
    storage: b.storage, bucket: b.bucket, objectKey: b.objectKey, sizeBytes: b.sizeBytes == null ? null : Number(b.sizeBytes),
    tarBytes: b.tarBytes == null ? null : Number(b.tarBytes), sha256: b.sha256, pinned: b.pinned, error: b.error,
    startedAt: b.startedAt, finishedAt: b.finishedAt,
  };
}

export interface VolumeRestoreRow extends LeasedRunRow {
  id: string;
  volumeId: string;
  environmentId: string;
  backupId: string | null;
  target: 'volume' | 'drill';
  newDockerName: string | null;
  previousDockerName: string | null;
  checkOutput: string | null;
  durationMs: number | null;
}

export class VolumeRestoresRepository extends LeasedRuns<VolumeRestoreRow> {
  constructor(db: Knex) {
    super(db, 'volume_restores');
  }

  drillsOf(volumeId: string, page: PageQuery): Promise<Page<VolumeRestoreRow>> {
    return this.pageBy('volumeId', volumeId, page, { target: 'drill' });
  }
}

export function toVolumeRestore(r: VolumeRestoreRow) {
  return {
    id: r.id, volumeId: r.volumeId, environmentId: r.environmentId, backupId: r.backupId, target: r.target, status: r.status, newDockerName: r.newDockerName,
    previousDockerName: r.previousDockerName, checkOutput: r.checkOutput, durationMs: r.durationMs, error: r.error,
    startedAt: r.startedAt, finishedAt: r.finishedAt,
  };
}
