import type { Knex } from 'knex';
import type { Page, PageQuery } from './base-repository.js';
import { DayPartitions } from '../day-partitions.js';

export type CheckKind = 'server' | 'container' | 'tcp' | 'cert' | 'database';
export type CheckStatus = 'ok' | 'warning' | 'failed';

/** One health check result as it is stored (details: e.g. daysToExpiry of a cert check). */
export interface HealthLogRow {
  id: string;
  environmentId: string;
  kind: CheckKind;
  /** Identifies the check across passes (its alert state): kind plus subject plus port. */
  checkKey: string;
  serverId: string | null;
  deploymentId: string | null;
  /** For people: names the server, container and port ("web-1 on s1 tcp 127.0.0.1:8443"). */
  target: string;
  status: CheckStatus;
  latencyMs: number;
  error: string | null;
  details: Record<string, unknown>;
  checkedAt: Date;
}

export type NewHealthLog = Omit<HealthLogRow, 'id' | 'checkedAt'> & { checkedAt?: Date };

export interface HealthLogFilter { kind?: CheckKind; status?: CheckStatus; serverId?: string; deploymentId?: string; checkKey?: string }

/**
 * The health_logs table: appended by every check, read newest first. Range-partitioned by UTC day
 * (`health_logs_p20261126`): partitions are created ahead by the health worker and on demand by an
 * insert that meets a day without one; retention drops whole days (`partitions.dropBefore`).
 */
export class HealthLogsRepository {
  readonly partitions: DayPartitions;

  constructor(private readonly db: Knex) {
    this.partitions = new DayPartitions(db, 'health_logs');
  }

  async insert(row: NewHealthLog, trx?: Knex.Transaction): Promise<HealthLogRow> {
    const values = { ...row, details: JSON.stringify(row.details ?? {}) };
    // without checkedAt the database's now() is stored: its day is, within a second, ours
    const day = row.checkedAt ?? new Date();
    const [out] = await this.partitions.writeCreatingDays([day], (q) => q('health_logs').insert(values).returning('*'), trx);
    return out as HealthLogRow;
  }

  async pageOf(environmentId: string, filter: HealthLogFilter, page: PageQuery): Promise<Page<HealthLogRow>> {
    const where = (q: Knex.QueryBuilder) => {
      q.where('environmentId', environmentId);
      for (const k of ['kind', 'status', 'serverId', 'deploymentId', 'checkKey'] as const) if (filter[k]) q.where(k, filter[k]);
      return q;
    };
    const [rows, [{ count }]] = await Promise.all([
      where(this.db('health_logs')).orderBy([{ column: 'checkedAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit).offset(page.offset),
      where(this.db('health_logs')).count({ count: '*' }),
    ]);
    return { items: rows as HealthLogRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }
}
