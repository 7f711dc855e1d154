import type { Knex } from 'knex';

const RECEIVER_TABLE: Record<string, string> = { webhook: 'outgoing_webhooks', subscription: 'webhook_subscriptions', chat: 'chat_channels' };

/** The receivers the outbox delivers to (outgoing webhooks, subscriptions, chat channels): their rows and delivery marks. */
export class DeliveryReceivers {
  constructor(private readonly db: Knex) {}

  /** True for a kind with a receiver row (email has none: its address is in the delivery). */
  hasReceiver(kind: string): boolean {
    return kind in RECEIVER_TABLE;
  }

  async find(kind: string, id: string): Promise<Record<string, any> | null> {
    return (await this.db(RECEIVER_TABLE[kind]).where('id', id).first()) ?? null;
  }

  /** A delivery got through: refreshes lastDeliveredAt and clears the failed mark. */
  async markDelivered(kind: string, id: string, trx?: Knex.Transaction): Promise<void> {
    const db = trx ?? this.db;
    await db(RECEIVER_TABLE[kind]).where('id', id).update({ lastDeliveredAt: db.fn.now(), failed: false });
  }

  /**
   * A delivery failed for good: counts it and marks the receiver failed, under a row lock so
   * that only one failure sees the change. `wasFailed` is null when the receiver is gone.
   */
  async markFailed(kind: string, id: string, trx: Knex.Transaction): Promise<{ wasFailed: boolean | null; name: string | null }> {
    const table = RECEIVER_TABLE[kind];
    const before = await trx(table).where('id', id).forUpdate().first('failed');
    const [t] = await trx(table).where('id', id)
      .update({ failureCount: trx.raw('failure_count + 1'), failed: true, lastFailedAt: trx.fn.now() })
      .returning(['id', 'name']);
    return { wasFailed: before ? !!before.failed : null, name: t?.name ?? null };
  }
}
