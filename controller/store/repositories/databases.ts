import type { Knex } from 'knex';
import { validationError } from '../../errors/app-error.js';
import type { KindDescriptor } from '../../kinds/kind.js';
import { SETTINGS_MODULES } from '../../settings/environment-settings.js';
import { ConditionedRepository } from './conditioned-repository.js';
import { KindRepository, type KindRow } from './kind-repository.js';
import { claimNextRun } from './schedule-claim.js';
import { settingsOf } from './manifest-rows.js';

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

export class DatabasesRepository extends ConditionedRepository<DatabaseRow> {
  constructor(db: Knex) {
    super(db, 'databases', {
      databases_env_name_unique: 'A database with this name already exists in this environment',
      databases_server_id_foreign: 'The server does not exist',
    });
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
  claimDue(id: string, kind: ScheduleKind, was: Date | null, next: Date | null): Promise<boolean> {
    return claimNextRun(this.q().where({ id }), NEXT_COLUMN[kind], was, next);
  }

  /** Replaces status.monitoring (the last probe) and keeps the rest of the status. */
  async setMonitoring(id: string, monitoring: Record<string, unknown>): Promise<void> {
    // in one statement, so a backup's condition written meanwhile is not lost
    await this.q().where({ id }).update({ status: this.db.raw("jsonb_set(status, '{monitoring}', ?::jsonb)", [JSON.stringify(monitoring)]) } as never);
  }
}

/** What the API shows of a database: credential-free, with hasCredentials. */

/** The last probe is shown only while monitoring is on: a result nobody refreshes would look current. */
function shownStatus(r: DatabaseRow): Record<string, unknown> {
  if (r.monitoringEnabled || !('monitoring' in (r.status ?? {}))) return r.status;
  const { monitoring: _hidden, ...rest } = r.status;
  return rest;
}

/**
 * Databases as the generic CRUD routes write and read them: a new one monitored as its
 * environment's data settings say unless the body does; a type that exists and a server of the
 * same environment, or 400; monitoring switched or re-timed is probed at the next tick; reads
 * credential-free (hasCredentials), the last probe shown only while monitoring is on.
 */
export class DatabaseKindRepository extends KindRepository {
  constructor(db: Knex, kind: KindDescriptor) {
    super(db, kind, { databases_server_id_foreign: 'The server does not exist' });
  }

  protected override async defaults(trx: Knex.Transaction, environmentId: string) {
    const data = { ...SETTINGS_MODULES.data.defaults, ...(await settingsOf(trx, environmentId, ['data'])).data };
    return { monitoringEnabled: data.defaultMonitoringEnabled, collectionIntervalSec: data.defaultCollectionIntervalSec };
  }

  protected override columns(body: Record<string, unknown>) {
    const out = super.columns(body);
    // monitoring switched on or re-timed: the next probe is due at the scheduler's next tick
    if (body.monitoringEnabled !== undefined || body.collectionIntervalSec !== undefined) out.nextMonitorAt = null;
    return out;
  }

  protected override async check(trx: Knex.Transaction, environmentId: string, body: Record<string, unknown>) {
    if (body.type !== undefined && !(await trx('database_types').where({ name: body.type }).first('name'))) {
      throw validationError(`Unknown database type '${body.type}'`, 'type', 'GET /api/settings/database-types lists them');
    }
    if (body.serverId) {
      // a server of another environment is as unknown as a missing one
      if (!(await trx('servers').where({ id: body.serverId, environmentId }).first('id'))) throw validationError('Server not found in this environment', 'serverId');
    }
  }

  override async present(rows: KindRow[]) {
    return rows.map((r) => toDatabase(r as unknown as DatabaseRow));
  }
}

function toDatabase(r: DatabaseRow) {
  return {
    id: r.id, environmentId: r.environmentId, name: r.name, type: r.type, serverId: r.serverId, containerName: r.containerName,
    host: r.host, port: r.port, databaseName: r.databaseName, username: r.username, hasCredentials: !!r.passwordEnc,
    timezone: r.timezone, monitoringEnabled: r.monitoringEnabled, collectionIntervalSec: r.collectionIntervalSec,
    generation: r.generation, status: shownStatus(r), source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}
