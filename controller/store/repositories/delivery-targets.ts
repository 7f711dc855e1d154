import type { Knex } from 'knex';
import { isUuid, type Page, type PageQuery } from './base-repository.js';

export type DeliveryTargetRow = Record<string, any>;

/**
 * outgoing_webhooks and webhook_subscriptions: receivers of the delivery outbox. `outboxKind` is
 * the `kind` of their rows in delivery_outbox, deleted with them.
 */
export class DeliveryTargetsRepository {
  constructor(
    private readonly db: Knex,
    readonly table: 'outgoing_webhooks' | 'webhook_subscriptions',
    private readonly outboxKind: 'webhook' | 'subscription',
  ) {}

  async findById(id: string): Promise<DeliveryTargetRow | undefined> {
    return isUuid(id) ? this.db(this.table).where('id', id).first() : undefined;
  }

  /** One page by name; `where` narrows it (a subscription's environment). */
  async page(where: Record<string, unknown>, page: PageQuery): Promise<Page<DeliveryTargetRow>> {
    const base = () => this.db(this.table).where(where);
    const [items, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'name' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items, total: Number(count), limit: page.limit, offset: page.offset };
  }

  async insert(values: DeliveryTargetRow): Promise<DeliveryTargetRow> {
    const [row] = await this.db(this.table).insert(values).returning('*');
    return row;
  }

  async update(id: string, values: DeliveryTargetRow): Promise<DeliveryTargetRow> {
    const [row] = await this.db(this.table).where('id', id).update({ ...values, updatedAt: this.db.fn.now() }).returning('*');
    return row;
  }

  /** Deletes the receiver with every outbox row addressed to it. */
  async delete(id: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('delivery_outbox').where({ kind: this.outboxKind, targetId: id }).delete();
      await trx(this.table).where('id', id).delete();
    });
  }

  /** A page of the receiver's outbox rows, newest first. */
  async deliveries(targetId: string, status: string | undefined, page: PageQuery): Promise<Page<Record<string, any>>> {
    const base = () => {
      const q = this.db('delivery_outbox').where({ kind: this.outboxKind, targetId });
      if (status) q.where('status', status);
      return q;
    };
    const [items, [{ count }]] = await Promise.all([
      base().orderBy('id', 'desc').limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items, total: Number(count), limit: page.limit, offset: page.offset };
  }
}
