import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { EventBus } from '../events/event-bus.js';
import { camelizeRow } from '../store/case.js';
import { postOnce, webhookHeaders, USER_AGENT, type PostOutcome } from './http-post.js';
import { retryDelay, type DeliverySettingsReader } from './delivery-settings.js';
import type { Mailer } from './mailer.js';

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

export interface OutboxOptions {
  /** Concurrent deliveries to one receiver: a slow one holds only its own lanes. */
  perTarget?: number;
  /** Concurrent deliveries of this process in all. */
  maxInFlight?: number;
  pollMs?: number;
}

const TARGET_TABLE: Record<string, string> = { webhook: 'outgoing_webhooks', subscription: 'webhook_subscriptions', chat: 'chat_channels' };
/** Lease beyond the attempt timeout: time to record the outcome before another replica may retry. */
const LEASE_MARGIN_MS = 5_000;
const READY = `((status = 'pending' AND next_attempt_at <= now()) OR (status = 'delivering' AND lease_until < now()))`;

/**
 * Delivers the durable outbox (delivery_outbox). Each delivery is claimed with
 * FOR UPDATE SKIP LOCKED and a lease (attempt timeout + margin): a process that dies mid-attempt
 * leaves a lease that expires and the row is claimed again, so nothing is lost; a row is marked
 * succeeded in the same statement that checks the lease is still ours, so no replica delivers a
 * row another one holds. Every receiver has its own lanes (perTarget), so a slow or failing one
 * never delays the others, nor anything that publishes events (publishing only writes rows).
 */
export class DeliveryOutbox {
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  private readonly lanes = new Map<string, number>();
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private pumping = false;
  private again = false;
  private stopped = true;
  private readonly running = new Set<Promise<void>>();
  private readonly perTarget: number;
  private readonly maxInFlight: number;
  private readonly pollMs: number;

  constructor(
    private readonly db: Knex,
    private readonly secretBox: SecretBox,
    private readonly events: EventBus,
    private readonly settings: DeliverySettingsReader,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    opts: OutboxOptions = {},
  ) {
    this.perTarget = opts.perTarget ?? 8;
    this.maxInFlight = opts.maxInFlight ?? 64;
    this.pollMs = opts.pollMs ?? 250;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** Look for ready deliveries now (after a fan-out wrote some). */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().catch((e) => this.logger.warn('outbox poll failed', { error: (e as Error).message }))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    if (this.inFlight >= this.maxInFlight) return;
    const { rows } = await this.db.raw(`SELECT DISTINCT kind, target_id FROM delivery_outbox WHERE ${READY} LIMIT 500`);
    for (const r of rows as Array<{ kind: string; target_id: string }>) {
      const key = `${r.kind}/${r.target_id}`;
      while ((this.lanes.get(key) ?? 0) < this.perTarget && this.inFlight < this.maxInFlight && !this.stopped) {
        this.startLane(key, r.kind, r.target_id);
      }
    }
  }

  private startLane(key: string, kind: string, targetId: string): void {
    this.lanes.set(key, (this.lanes.get(key) ?? 0) + 1);
    this.inFlight++;
    const p = this.lane(kind, targetId)
      .catch((e) => this.logger.warn('delivery lane failed', { kind, targetId, error: (e as Error).message }))
      .finally(() => {
        const n = (this.lanes.get(key) ?? 1) - 1;
        if (n <= 0) this.lanes.delete(key);
        else this.lanes.set(key, n);
        this.inFlight--;
        this.running.delete(p);
      });
    this.running.add(p);
  }

  /** One lane: claim one ready delivery of the target, deliver it, repeat until none is ready. */
  private async lane(kind: string, targetId: string): Promise<void> {
    while (!this.stopped) {
      const settings = await this.settings.get();
      const row = await this.claim(kind, targetId, settings.webhookTimeoutMs + LEASE_MARGIN_MS);
      if (!row) return;
      await this.deliver(row);
    }
  }

  async claim(kind: string, targetId: string, leaseMs: number): Promise<OutboxRow | null> {
    const { rows } = await this.db.raw(
      `UPDATE delivery_outbox SET status = 'delivering', attempts = attempts + 1,
              lease_until = now() + (? * interval '1 millisecond'), lease_owner = ?
        WHERE id = (SELECT id FROM delivery_outbox WHERE kind = ? AND target_id = ? AND ${READY}
                    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`, [leaseMs, this.owner, kind, targetId]);
    return rows[0] ? (camelizeRow(rows[0]) as OutboxRow) : null;
  }

  private async deliver(row: OutboxRow): Promise<void> {
    const settings = await this.settings.get();
    let outcome: PostOutcome;
    const table = TARGET_TABLE[row.kind];
    const target = table ? await this.db(table).where('id', row.targetId).first() : null;
    if (table && (!target || target.enabled === false)) {
      await this.finish(row, 'cancelled', { ok: false, status: null, error: target ? 'receiver disabled' : 'receiver deleted', durationMs: 0 });
      return;
    }
    if (row.kind === 'email') {
      const started = performance.now();
      try {
        await this.mailer.send(JSON.parse(row.body), settings.webhookTimeoutMs);
        outcome = { ok: true, status: 250, error: null, durationMs: Math.round(performance.now() - started) };
      } catch (e) {
        outcome = { ok: false, status: null, error: (e as Error).message, durationMs: Math.round(performance.now() - started) };
      }
    } else if (row.kind === 'chat') {
      const url = this.secretBox.open(target.webhookUrlEnc);
      outcome = await postOnce(url, row.body, { 'content-type': 'application/json', 'user-agent': USER_AGENT }, settings.webhookTimeoutMs);
    } else {
      const secret = target.secretEnc ? this.secretBox.open(target.secretEnc) : null;
      const headers = webhookHeaders(row.body, secret, target.headers ?? {}, { 'x-webhook-delivery': String(row.id) });
      outcome = await postOnce(target.url, row.body, headers, settings.webhookTimeoutMs);
    }
    if (outcome.ok) {
      await this.finish(row, 'succeeded', outcome);
      return;
    }
    if (row.attempts < settings.webhookMaxRetries) {
      const delay = retryDelay(settings, row.attempts);
      await this.db.raw(
        `UPDATE delivery_outbox SET status = 'pending', next_attempt_at = now() + (? * interval '1 millisecond'),
                lease_until = NULL, lease_owner = NULL, last_status = ?, last_error = ?, duration_ms = ?
          WHERE id = ? AND lease_owner = ?`, [delay, outcome.status, outcome.error, outcome.durationMs, row.id, this.owner]);
      const t = setTimeout(() => this.wake(), delay + 5);
      t.unref();
      return;
    }
    await this.finish(row, 'failed', outcome);
  }

  private async finish(row: OutboxRow, status: 'succeeded' | 'failed' | 'cancelled', o: PostOutcome): Promise<void> {
    await this.db.transaction(async (trx) => {
      const n = await trx('delivery_outbox').where({ id: row.id, leaseOwner: this.owner, status: 'delivering' }).update({
        status, leaseUntil: null, leaseOwner: null, lastStatus: o.status, lastError: o.error,
        durationMs: o.durationMs, completedAt: trx.fn.now(),
      });
      if (n === 0 || status === 'cancelled') return; // the lease was lost: whoever holds it reports
      const table = TARGET_TABLE[row.kind];
      if (!table) return;
      if (status === 'succeeded') {
        if (row.kind !== 'chat') await trx(table).where('id', row.targetId).update({ lastDeliveredAt: trx.fn.now(), failed: false });
        return;
      }
      if (row.kind === 'chat') {
        this.logger.warn('chat message not delivered', { channelId: row.targetId, error: o.error });
        return;
      }
      const [t] = await trx(table).where('id', row.targetId)
        .update({ failureCount: trx.raw('failure_count + 1'), failed: true, lastFailedAt: trx.fn.now() })
        .returning(['id', 'name']);
      this.logger.warn('webhook delivery failed', { kind: row.kind, targetId: row.targetId, event: row.eventType, attempts: row.attempts, error: o.error });
      if (row.eventType === 'webhook.failed' || row.eventType === 'test') return; // never a chain of failure notices
      await this.events.publish('webhook.failed', row.environmentId, {
        webhookId: row.targetId, webhookName: t?.name ?? null, webhookKind: row.kind, deliveryId: row.id,
        event: row.eventType, attempts: row.attempts, lastStatus: o.status, error: o.error,
      }, trx);
    });
  }
}
