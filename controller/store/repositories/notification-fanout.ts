import type { Knex } from 'knex';
import { camelizeRow } from '../case.js';

/** A notification event as the fan-out reads it. */
export interface FanOutEvent { id: number; type: string; environmentId: string | null; data: Record<string, unknown>; createdAt: Date }

/** Events of these types from the last 7 days without an event_fanouts marker. */
const PENDING = `e.type = ANY(?) AND e.created_at > now() - interval '7 days'
            AND NOT EXISTS (SELECT 1 FROM event_fanouts f WHERE f.event_id = e.id)`;

/**
 * What the notification fan-out reads and writes: pending events (locked with SKIP LOCKED so
 * replicas share them), their receivers and users, and what an event produces (outbox rows,
 * in-app notifications, the event_fanouts marker). Each method takes the batch's
 * transaction.
 */
export class NotificationFanOutStore {
  constructor(private readonly db: Knex) {}

  /** Locks up to `limit` pending events of `types`, oldest first; events another replica holds are skipped. */
  async lockPendingEvents(types: string[], limit: number, trx: Knex.Transaction): Promise<FanOutEvent[]> {
    const { rows } = await trx.raw(`SELECT e.* FROM events e WHERE ${PENDING} ORDER BY e.id LIMIT ? FOR UPDATE OF e SKIP LOCKED`, [types, limit]);
    return (rows as unknown[]).map((r) => camelizeRow(r) as FanOutEvent);
  }

  /** The oldest pending event of `types` (locked or not). */
  async oldestPendingEvent(types: string[]): Promise<number | null> {
    const { rows } = await this.db.raw(`SELECT e.id FROM events e WHERE ${PENDING} ORDER BY e.id LIMIT 1`, [types]);
    return rows[0] ? rows[0].id : null;
  }

  /** Writes the events' fan-out markers (a repeat is a no-op). */
  async markFannedOut(eventIds: number[], trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('event_fanouts').insert(eventIds.map((eventId) => ({ eventId }))).onConflict('eventId').ignore();
  }

  enabledWebhooks(trx: Knex.Transaction): Promise<Array<{ id: string; eventTypes: string[]; environmentIds: string[]; failed: boolean }>> {
    return trx('outgoing_webhooks').where('enabled', true).select('id', 'eventTypes', 'environmentIds', 'failed');
  }

  enabledSubscriptions(environmentId: string, trx: Knex.Transaction): Promise<Array<{ id: string; eventTypes: string[]; failed: boolean }>> {
    return trx('webhook_subscriptions').where({ environmentId, enabled: true }).select('id', 'eventTypes', 'failed');
  }

  users(trx: Knex.Transaction): Promise<Array<{ id: string; email: string }>> {
    return trx('users').select('id', 'email');
  }

  preferences(trx: Knex.Transaction): Promise<Array<{ userId: string; type: string; inApp: boolean; email: boolean }>> {
    return trx('notification_preferences').select('userId', 'type', 'inApp', 'email');
  }

  async emailEnabled(trx: Knex.Transaction): Promise<boolean> {
    const smtp = await trx('smtp_config').where('id', 1).first('enabled');
    return !!smtp?.enabled;
  }

  /** The environment's name; null when it was deleted. */
  async environmentName(id: string, trx: Knex.Transaction): Promise<string | null> {
    const env = await trx('environments').where('id', id).first('name');
    return env?.name ?? null;
  }

  /** Queues deliveries, a thousand rows a statement (the unique index makes a repeat a no-op). */
  async queueDeliveries(rows: Array<Record<string, unknown>>, trx: Knex.Transaction): Promise<void> {
    for (let i = 0; i < rows.length; i += 1000) await trx('delivery_outbox').insert(rows.slice(i, i + 1000)).onConflict().ignore();
  }

  /** Inserts in-app notifications; returns those not there already (one per user and event). */
  insertNotifications(rows: Array<Record<string, unknown>>, trx: Knex.Transaction): Promise<Array<Record<string, any>>> {
    return trx('notifications').insert(rows).onConflict(['userId', 'eventId']).ignore().returning('*');
  }
}
