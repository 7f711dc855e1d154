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
  nextMonitorAt: Date | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type ScheduleKind = 'backup' | 'drill' | 'monitor';
const NEXT_COLUMN = { backup: 'nextBackupAt', drill: 'nextDrillAt', monitor: 'nextMonitorAt' } as const;
const ENABLED_COLUMN = { backup: 'backupEnabled', drill: 'drillEnabled', monitor: 'monitoringEnabled' } as const;

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

  /** Databases whose backup (or drill) schedule is due now; a monitored database never probed is due at once. */
  async due(kind: ScheduleKind, now: Date): Promise<DatabaseRow[]> {
    const next = NEXT_COLUMN[kind];
    return this.q().where(ENABLED_COLUMN[kind], true)
      .where((w) => (kind === 'monitor' ? w.where(next, '<=', now).orWhereNull(next) : w.where(next, '<=', now))) as Promise<DatabaseRow[]>;
  }

  /** Enabled backup (or drill) schedules with no next time yet (set by a manifest): the scheduler computes it. */
  async unscheduled(kind: 'backup' | 'drill'): Promise<DatabaseRow[]> {
    return this.q().where(ENABLED_COLUMN[kind], true).whereNull(NEXT_COLUMN[kind]) as Promise<DatabaseRow[]>;
  }

  /**
   * Moves a due schedule to its next time; true for the one caller that moved it (compare-and-set
   * on the old time), so a run happens once even with several replicas or after a restart.
   */
  async claimDue(id: string, kind: ScheduleKind, was: Date | null, next: Date | null): Promise<boolean> {
    const q = this.q().where({ id });
    const n = await (was === null ? q.whereNull(NEXT_COLUMN[kind]) : q.where(NEXT_COLUMN[kind], was)).update({ [NEXT_COLUMN[kind]]: next } as never);
    return n === 1;
  }

  /** Replaces status.monitoring (the last probe) and keeps the rest of the status. */
  async setMonitoring(id: string, monitoring: Record<string, unknown>): Promise<void> {
    // in one statement, so a backup's condition written meanwhile is not lost
    await this.q().where({ id }).update({ status: this.db.raw("jsonb_set(status, '{monitoring}', ?::jsonb)", [JSON.stringify(monitoring)]) } as never);
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
    generation: r.generation, status: shownStatus(r), source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}

/** The last probe is shown only while monitoring is on: a result nobody refreshes would look current. */
function shownStatus(r: DatabaseRow): Record<string, unknown> {
  if (r.monitoringEnabled || !('monitoring' in (r.status ?? {}))) return r.status;
  const { monitoring: _hidden, ...rest } = r.status;
  return rest;
}
