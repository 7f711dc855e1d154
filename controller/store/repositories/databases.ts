import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';

export interface DatabaseRow {
  id: string;
  environmentId: string;
  name: string;
  type: string;
  serverId: string | null;
  containerName: string | null;
  host: string | null;
  port: number | null;
  databaseName: string;
  username: string | null;
  passwordEnc: string | null;
  timezone: string | null;
  monitoringEnabled: boolean;
  collectionIntervalSec: number;
  backupCron: string | null;
  backupEnabled: boolean;
  nextBackupAt: Date | null;
  keepLast: number | null;
  keepDays: number | null;
  drillCron: string | null;
  drillEnabled: boolean;
  drillCheckCommand: string | null;
  nextDrillAt: Date | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type ScheduleKind = 'backup' | 'drill';
const NEXT_COLUMN = { backup: 'nextBackupAt', drill: 'nextDrillAt' } as const;
const ENABLED_COLUMN = { backup: 'backupEnabled', drill: 'drillEnabled' } as const;

export class DatabasesRepository extends BaseRepository<DatabaseRow> {
  constructor(db: Knex) {
    super(db, 'databases', {
      databases_env_name_unique: 'A database with this name already exists in this environment',
      databases_server_id_foreign: 'The server does not exist',
    });
  }

  async pageOf(environmentId: string, page: PageQuery): Promise<Page<DatabaseRow>> {
    if (!isUuid(environmentId)) return { items: [], total: 0, limit: page.limit, offset: page.offset };
    return this.list({ environmentId }, page, 'name');
  }

  /** Databases with monitoring on (their reachability check runs every collectionIntervalSec). */
  monitored(): Promise<DatabaseRow[]> {
    return this.q().where('monitoringEnabled', true) as Promise<DatabaseRow[]>;
  }

  /** Databases whose backup (or drill) schedule is due now. */
  async due(kind: ScheduleKind, now: Date): Promise<DatabaseRow[]> {
    return this.q().where(ENABLED_COLUMN[kind], true).where(NEXT_COLUMN[kind], '<=', now) as Promise<DatabaseRow[]>;
  }

  /**
   * Moves a due schedule to its next time; true for the one caller that moved it (compare-and-set
   * on the old time), so a run happens once even with several replicas or after a restart.
   */
  async claimDue(id: string, kind: ScheduleKind, was: Date, next: Date | null): Promise<boolean> {
    const n = await this.q().where({ id }).where(NEXT_COLUMN[kind], was).update({ [NEXT_COLUMN[kind]]: next } as never);
    return n === 1;
  }

  /** Merges a condition into status.conditions (Degraded, DrillSucceeded...), keyed by type. */
  async setCondition(id: string, condition: { type: string; status: boolean; reason: string; message: string }): Promise<void> {
    const row = await this.findById(id);
    if (!row) return;
    const conditions = ((row.status?.conditions as Array<{ type: string }>) ?? []).filter((c) => c.type !== condition.type);
    const status = { ...row.status, conditions: [...conditions, { ...condition, lastTransitionTime: new Date().toISOString() }] };
    await this.q().where({ id }).update({ status: JSON.stringify(status) } as never);
  }
}

/** What the API shows of a database: credential-free, with hasCredentials. */
export function toDatabase(r: DatabaseRow) {
  return {
    id: r.id, environmentId: r.environmentId, name: r.name, type: r.type, serverId: r.serverId, containerName: r.containerName,
    host: r.host, port: r.port, databaseName: r.databaseName, username: r.username, hasCredentials: !!r.passwordEnc,
    timezone: r.timezone, monitoringEnabled: r.monitoringEnabled, collectionIntervalSec: r.collectionIntervalSec,
    generation: r.generation, status: r.status, source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}
