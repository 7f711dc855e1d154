import type { Knex } from 'knex';
import type { Page, PageQuery } from './base-repository.js';
import type { CheckKind, CheckStatus } from './health-logs.js';

/** The persisted alert state of one check (controller/monitoring/alert-machine.ts decides it). */
export interface AlertStateRow {
  checkKey: string;
  environmentId: string;
  kind: CheckKind;
  serverId: string | null;
  deploymentId: string | null;
  target: string;
  status: 'up' | 'down';
  failures: number;
  successes: number;
  reminders: number;
  downSince: Date | null;
  lastNotifiedAt: Date | null;
  lastResult: CheckStatus;
  lastError: string | null;
  lastCheckedAt: Date;
}

export class AlertStatesRepository {
  constructor(private readonly db: Knex) {}

  /** How many checks are in each state (up, down): a gauge of /metrics. */
  async countByStatus(): Promise<Array<{ status: string; count: number }>> {
    const rows = await this.db('alert_states').select('status').count({ count: '*' }).groupBy('status');
    return (rows as Array<{ status: string; count: string }>).map((r) => ({ status: r.status, count: Number(r.count) }));
  }

  /** The state with its row locked until `trx` ends (two replicas never step the same check at once). */
  async lock(checkKey: string, trx: Knex.Transaction): Promise<AlertStateRow | undefined> {
    return trx('alert_states').where({ checkKey }).forUpdate().first() as Promise<AlertStateRow | undefined>;
  }

  async save(row: AlertStateRow, trx: Knex.Transaction): Promise<void> {
    await trx('alert_states').insert(row).onConflict('checkKey').merge();
  }

  find(checkKey: string): Promise<AlertStateRow | undefined> {
    return this.db('alert_states').where({ checkKey }).first() as Promise<AlertStateRow | undefined>;
  }

  /** The checks of a server (its own and its containers') that are down. */
  downOfServer(serverId: string): Promise<AlertStateRow[]> {
    return this.db('alert_states').where({ serverId, status: 'down' }) as Promise<AlertStateRow[]>;
  }

  async pageOf(environmentId: string, filter: { status?: 'up' | 'down'; kind?: CheckKind }, page: PageQuery): Promise<Page<AlertStateRow>> {
    const where = (q: Knex.QueryBuilder) => {
      q.where('environmentId', environmentId);
      if (filter.status) q.where('status', filter.status);
      if (filter.kind) q.where('kind', filter.kind);
      return q;
    };
    const [rows, [{ count }]] = await Promise.all([
      where(this.db('alert_states')).orderBy([{ column: 'kind' }, { column: 'target' }, { column: 'checkKey' }]).limit(page.limit).offset(page.offset),
      where(this.db('alert_states')).count({ count: '*' }),
    ]);
    return { items: rows as AlertStateRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** States of checks not observed for `days` (their subject is gone or no longer checked). */
  async prune(days: number): Promise<number> {
    return this.db('alert_states').where('lastCheckedAt', '<', this.db.raw(`now() - (? * interval '1 day')`, [days])).delete();
  }
}
