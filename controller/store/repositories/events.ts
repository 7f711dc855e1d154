import type { Knex } from 'knex';

export interface EventRow { id: number | string; type: string; environmentId: string | null; data: Record<string, unknown>; createdAt: Date | string }

/** The event log (`events`): rows announced with NOTIFY on `channel` when their transaction commits. */
export class EventsRepository {
  constructor(private readonly db: Knex, private readonly channel: string) {}

  /** Appends an event and announces its id (at commit, when inside a transaction). */
  async append(type: string, environmentId: string | null, data: Record<string, unknown>, trx?: Knex.Transaction): Promise<EventRow> {
    const conn = trx ?? this.db;
    const [row] = await conn('events').insert({ type, environmentId, data: JSON.stringify(data) }).returning('*');
    await conn.raw('SELECT pg_notify(?, ?)', [this.channel, String(row.id)]);
    return row as EventRow;
  }

  async findById(id: number): Promise<EventRow | undefined> {
    return this.db('events').where('id', id).first();
  }

  /** Events after `lastId` (optionally of one environment), oldest first. */
  since(lastId: number, environmentId: string | null | undefined, limit: number): Promise<EventRow[]> {
    const q = this.db('events').where('id', '>', lastId).orderBy('id').limit(limit);
    if (environmentId) q.where('environmentId', environmentId);
    return q;
  }

  /** A page of one environment's events whose type starts with `typePrefix` (e.g. `agent.`), newest first. */
  async pageOfPrefix(environmentId: string, typePrefix: string, page: { limit: number; offset: number }): Promise<{ items: EventRow[]; total: number }> {
    const where = (q: Knex.QueryBuilder) => q.where('environmentId', environmentId).where('type', 'like', `${typePrefix.replace(/[\\%_]/g, '\\$&')}%`);
    const [items, [count]] = await Promise.all([
      where(this.db('events')).orderBy('id', 'desc').limit(page.limit).offset(page.offset),
      where(this.db('events')).count({ n: '*' }),
    ]);
    return { items: items as EventRow[], total: Number((count as { n: string | number }).n) };
  }

  /** A page of one environment's events of these types, newest first (what `stevedore events` lists). */
  async pageOfTypes(environmentId: string, types: string[], page: { limit: number; offset: number }): Promise<{ items: EventRow[]; total: number }> {
    const where = (q: Knex.QueryBuilder) => q.where('environmentId', environmentId).whereIn('type', types);
    const [items, [count]] = await Promise.all([
      where(this.db('events')).orderBy('id', 'desc').limit(page.limit).offset(page.offset),
      where(this.db('events')).count({ n: '*' }),
    ]);
    return { items: items as EventRow[], total: Number((count as { n: string | number }).n) };
  }

  /** The id of the newest event, 0 when there is none. */
  async lastId(): Promise<number> {
    const [row] = await this.db('events').max('id as max');
    return Number(row?.max ?? 0);
  }
}
