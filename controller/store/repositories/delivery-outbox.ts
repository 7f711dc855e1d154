import type { Knex } from 'knex';
import { camelizeRow } from '../case.js';

export type DeliveryKind = 'webhook' | 'subscription' | 'chat' | 'email';

export interface OutboxRow {
  id: number;
  kind: DeliveryKind;
  targetId: string;
  eventId: number | null;
  eventType: string;
  environmentId: string | null;
  body: string;
  status: 'pending' | 'delivering' | 'succeeded' | 'failed' | 'cancelled';
  attempts: number;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  lastStatus: number | null;
  lastError: string | null;
}

/** A delivery's answer, as written to its row. */
export interface DeliveryResult { status: number | null; error: string | null; durationMs: number }

/** Pending and due, or leased by someone whose lease ran out. */
const READY = `((status = 'pending' AND next_attempt_at <= now()) OR (status = 'delivering' AND lease_until < now()))`;

/**
 * The durable outbox (delivery_outbox): claims under a lease with FOR UPDATE SKIP LOCKED, and
 * outcomes written only while the lease is still the writer's (lease_owner), so no replica
 * records a row another one holds.
 */
export class DeliveryOutboxRepository {
  constructor(private readonly db: Knex) {}

  /** Receivers with at least one ready delivery. */
  async readyReceivers(limit = 500): Promise<Array<{ kind: string; targetId: string }>> {
    const { rows } = await this.db.raw(`SELECT DISTINCT kind, target_id FROM delivery_outbox WHERE ${READY} LIMIT ?`, [limit]);
    return (rows as Array<{ kind: string; target_id: string }>).map((r) => ({ kind: r.kind, targetId: r.target_id }));
  }

  /** Cancels a receiver's pending deliveries (it was disabled or deleted). */
  async cancelPending(kind: string, targetId: string, reason: string): Promise<void> {
    await this.db.raw(`UPDATE delivery_outbox SET status = 'cancelled', last_error = ?, completed_at = now(), lease_until = NULL
                        WHERE kind = ? AND target_id = ? AND status = 'pending'`, [reason, kind, targetId]);
  }

  /** Leases up to `limit` ready deliveries of one receiver to `owner`, oldest first; counts the attempt. */
  async claimBatch(kind: string, targetId: string, leaseMs: number, owner: string, limit = 1): Promise<OutboxRow[]> {
    const { rows } = await this.db.raw(
      `WITH picked AS (SELECT id FROM delivery_outbox WHERE kind = ? AND target_id = ? AND ${READY}
                        ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
       UPDATE delivery_outbox d SET status = 'delivering', attempts = d.attempts + 1,
              lease_until = now() + (? * interval '1 millisecond'), lease_owner = ?
         FROM picked WHERE d.id = picked.id
       RETURNING d.*`, [kind, targetId, limit, leaseMs, owner]);
    return (rows as unknown[]).map((r) => camelizeRow(r) as OutboxRow).sort((a, b) => a.id - b.id);
  }

  /** Marks deliveries succeeded in one statement; returns the ids that were still `owner`'s. */
  async markDelivered(items: Array<{ id: number; st: number | null; dur: number }>, owner: string): Promise<number[]> {
    const { rows } = await this.db.raw(
      `UPDATE delivery_outbox d SET status = 'succeeded', lease_until = NULL, lease_owner = NULL, last_status = v.st,
              last_error = NULL, duration_ms = v.dur, completed_at = now()
         FROM jsonb_to_recordset(?::jsonb) AS v(id bigint, st int, dur int)
        WHERE d.id = v.id AND d.lease_owner = ? AND d.status = 'delivering'
        RETURNING d.id`,
      [JSON.stringify(items.map(({ id, st, dur }) => ({ id, st, dur }))), owner]);
    return (rows as Array<{ id: number | string }>).map((r) => Number(r.id));
  }

  /** Hands failed attempts back as pending after their delay, in one statement; returns the ids that were still `owner`'s. */
  async scheduleRetries(items: Array<{ id: number; st: number | null; dur: number; delay: number; err: string | null }>, owner: string): Promise<number[]> {
    const { rows } = await this.db.raw(
      `UPDATE delivery_outbox d SET status = 'pending', next_attempt_at = now() + (v.delay * interval '1 millisecond'),
              lease_until = NULL, lease_owner = NULL, last_status = v.st, last_error = v.err, duration_ms = v.dur
         FROM jsonb_to_recordset(?::jsonb) AS v(id bigint, delay int, st int, err text, dur int)
        WHERE d.id = v.id AND d.lease_owner = ? AND d.status = 'delivering'
        RETURNING d.id`,
      [JSON.stringify(items.map(({ id, st, dur, delay, err }) => ({ id, st, dur, delay, err }))), owner]);
    return (rows as Array<{ id: number | string }>).map((r) => Number(r.id));
  }

  /** Owners (`host:pid:…`) holding leases of deliveries in progress on `host`. */
  async leaseOwnersOn(host: string): Promise<string[]> {
    const { rows } = await this.db.raw(`SELECT DISTINCT lease_owner FROM delivery_outbox WHERE status = 'delivering' AND lease_owner LIKE ?`, [`${host}:%`]);
    return (rows as Array<{ lease_owner: string }>).map((r) => r.lease_owner);
  }

  /** Hands the deliveries leased by `owners` back as pending, due now; returns how many. */
  releaseLeases(owners: string[]): Promise<number> {
    return this.db('delivery_outbox').where('status', 'delivering').whereIn('leaseOwner', owners)
      .update({ status: 'pending', leaseUntil: null, leaseOwner: null, nextAttemptAt: this.db.fn.now() });
  }

  /** Records a final outcome of one delivery still leased by `owner`; false when the lease was lost. */
  async complete(id: number, owner: string, status: 'succeeded' | 'failed' | 'cancelled', r: DeliveryResult, trx?: Knex.Transaction): Promise<boolean> {
    const db = trx ?? this.db;
    const n = await db('delivery_outbox').where({ id, leaseOwner: owner, status: 'delivering' }).update({
      status, leaseUntil: null, leaseOwner: null, lastStatus: r.status, lastError: r.error,
      durationMs: r.durationMs, completedAt: db.fn.now(),
    });
    return n > 0;
  }
}
