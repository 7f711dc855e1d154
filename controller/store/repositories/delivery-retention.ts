import type { Knex } from 'knex';

/** Forgets what the notification and delivery tables no longer need (Deliveries.prune). */
export class DeliveryRetention {
  constructor(private readonly db: Knex) {}

  /**
   * Finished deliveries after 30 days, fan-out markers after 8 (the fan-out looks 7 days back),
   * in-app notifications after `notificationDays`, incoming replay
   * keys after 10 minutes.
   */
  async prune(notificationDays: number): Promise<void> {
    await this.db.raw(`DELETE FROM delivery_outbox WHERE status IN ('succeeded', 'failed', 'cancelled') AND completed_at < now() - interval '30 days'`);
    await this.db.raw(`DELETE FROM event_fanouts WHERE created_at < now() - interval '8 days'`);
    await this.db.raw(`DELETE FROM notifications WHERE created_at < now() - (? * interval '1 day')`, [notificationDays]);
    await this.db.raw(`DELETE FROM incoming_webhook_replays WHERE created_at < now() - interval '10 minutes'`);
  }
}
