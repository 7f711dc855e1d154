import crypto from 'node:crypto';
import os from 'node:os';
import type { Db } from '../store/knex.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { OutgoingGuard } from '../net/outgoing-guard.js';
import type { EventBus } from '../events/event-bus.js';
import { DeliveryOutboxRepository, type OutboxRow } from '../store/repositories/delivery-outbox.js';
import { DeliveryReceivers } from '../store/repositories/delivery-receivers.js';
import { transactionRunner } from '../store/transaction.js';
import { postOnce, webhookHeaders, USER_AGENT, type PostOutcome } from './http-post.js';
import { openHeaders } from './sealed-headers.js';
import { retryDelay, type DeliverySettings, type DeliverySettingsReader } from './delivery-settings.js';
import type { SmtpService } from '../admin/smtp.js';
import { Outage } from '../queue/outage.js';
import { isDatabaseUnavailable } from '../store/connection-errors.js';

export type { DeliveryKind, OutboxRow } from '../store/repositories/delivery-outbox.js';

export interface OutboxOptions {
  /** Lanes per receiver: a slow one holds only its own lanes. */
  perTarget?: number;
  /** Deliveries one lane claims and sends at once (so up to perTarget x batch requests per receiver). */
  batch?: number;
  /** Lanes of this process in all. */
  maxInFlight?: number;
  pollMs?: number;
}

/** Lease beyond the attempt timeout: time to record the outcome before another replica may retry. */
const LEASE_MARGIN_MS = 30_000;

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
  private readonly marked = new Map<string, number>();
  private stopping = new AbortController();
  private readonly successQueue: Array<{
    id: number; st: number | null; dur: number; retry?: { delay: number; err: string | null };
    resolve: (mine: boolean) => void; reject: (e: unknown) => void;
  }> = [];
  private flushing = false;
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private pumping = false;
  private again = false;
  private stopped = true;
  private readonly running = new Set<Promise<void>>();
  private readonly perTarget: number;
  private readonly maxInFlight: number;
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly outage: Outage;
  /** While the database is away, no poll starts before this time (backoff). */
  private retryAt = 0;
  /**
   * Deliveries the receiver answered whose outcome is not on disk yet (the database went away):
   * their lease may run out meanwhile, and a claim of this process must not send them again.
   */
  private readonly unrecorded = new Set<number>();
  private readonly deliveries: DeliveryOutboxRepository;
  private readonly receivers: DeliveryReceivers;
  private readonly transaction: ReturnType<typeof transactionRunner>;

  constructor(
    db: Db,
    private readonly secretBox: SecretBox,
    private readonly events: EventBus,
    private readonly settings: DeliverySettingsReader,
    private readonly smtp: SmtpService,
    private readonly logger: Logger,
    private readonly outgoing: OutgoingGuard,
    opts: OutboxOptions = {},
  ) {
    this.perTarget = opts.perTarget ?? 2;
    this.batch = opts.batch ?? 8;
    this.maxInFlight = opts.maxInFlight ?? 32;
    this.pollMs = opts.pollMs ?? 250;
    this.outage = new Outage(logger, 'delivery outbox');
    this.deliveries = new DeliveryOutboxRepository(db);
    this.receivers = new DeliveryReceivers(db);
    this.transaction = transactionRunner(db);
  }

  async start(): Promise<void> {
    this.stopping = new AbortController();
    await this.releaseOrphans().catch((e) => this.logger.warn('outbox orphan release failed', { error: (e as Error).message }));
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Requests in flight are cut and left leased: the next start on this host (releaseOrphans)
    // or the lease's end hands them back, so a hanging receiver never holds up a shutdown.
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** Look for ready deliveries now (after a fan-out wrote some). */
  wake(): void {
    if (this.stopped || Date.now() < this.retryAt) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().then(() => {
      this.outage.ok();
      this.retryAt = 0;
    }, (e) => this.databaseAway(e))
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
    for (const r of await this.deliveries.readyReceivers(500)) {
      const key = `${r.kind}/${r.targetId}`;
      while ((this.lanes.get(key) ?? 0) < this.perTarget && this.inFlight < this.maxInFlight && !this.stopped) {
        this.startLane(key, r.kind, r.targetId);
      }
    }
  }

  private startLane(key: string, kind: string, targetId: string): void {
    this.lanes.set(key, (this.lanes.get(key) ?? 0) + 1);
    this.inFlight++;
    const p = this.lane(kind, targetId)
      .catch((e) => {
        if (isDatabaseUnavailable(e)) this.databaseAway(e);
        else this.logger.warn('delivery lane failed', { kind, targetId, error: (e as Error).message });
      })
      .finally(() => {
        const n = (this.lanes.get(key) ?? 1) - 1;
        if (n <= 0) this.lanes.delete(key);
        else this.lanes.set(key, n);
        this.inFlight--;
        this.running.delete(p);
      });
    this.running.add(p);
  }

  /**
   * One lane: read the receiver, claim up to `batch` ready deliveries of it, send them at once,
   * record the outcomes; repeat until none is ready. The receiver is read before the claim so
   * that nothing but the HTTP call stands between a claim and its send.
   */
  private async lane(kind: string, targetId: string): Promise<void> {
    const hasReceiver = this.receivers.hasReceiver(kind);
    let target: Record<string, any> | null = null;
    let readAt = 0;
    while (!this.stopped) {
      const settings = await this.settings.get();
      if (hasReceiver && Date.now() - readAt > 2000) {
        // Re-read now and then: a change to the receiver (URL, secret, disabled) applies within 2 s.
        target = await this.receivers.find(kind, targetId);
        readAt = Date.now();
      }
      if (hasReceiver && (!target || target.enabled === false)) {
        await this.deliveries.cancelPending(kind, targetId, target ? 'receiver disabled' : 'receiver deleted');
        return;
      }
      const claimed = await this.claim(kind, targetId, settings.webhookTimeoutMs + LEASE_MARGIN_MS, this.batch);
      if (claimed.length === 0) return;
      // answered already, outcome still being written: claimed under our name, so that write still counts
      const rows = claimed.filter((r) => !this.unrecorded.has(r.id));
      if (rows.length === 0) return;
      // Each outcome is written as soon as it is known: an answered delivery never waits for a
      // slow sibling of its batch before it counts as delivered.
      await Promise.all(rows.map(async (r) => {
        const outcome = await this.send(r, target, settings.webhookTimeoutMs);
        // A cut request is not an attempt that failed: leave it leased. An answered one is recorded.
        if (outcome.ok || !this.stopping.signal.aborted) await this.recordSurely(r, outcome, settings, target);
      }));
    }
  }

  /**
   * Records an answered delivery, waiting out a database outage (with backoff) rather than
   * dropping the outcome: a success not written would be sent again when its lease runs out.
   */
  private async recordSurely(r: OutboxRow, outcome: PostOutcome, settings: DeliverySettings, target: Record<string, any> | null): Promise<void> {
    this.unrecorded.add(r.id);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.record([r], [outcome], settings, target);
          return;
        } catch (e) {
          if (!isDatabaseUnavailable(e) || this.stopped) throw e;
          this.databaseAway(e);
          await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** Math.min(attempt, 5))));
        }
      }
    } finally {
      this.unrecorded.delete(r.id);
    }
  }

  /** The database is not reachable: log once per outage and poll less often until it is back. */
  private databaseAway(e: unknown): void {
    this.outage.failed(e);
    this.retryAt = Date.now() + this.outage.delayMs(this.pollMs, 10_000);
  }

  claim(kind: string, targetId: string, leaseMs: number, limit = 1): Promise<OutboxRow[]> {
    return this.deliveries.claimBatch(kind, targetId, leaseMs, this.owner, limit);
  }

  private async send(row: OutboxRow, target: Record<string, any> | null, timeoutMs: number): Promise<PostOutcome> {
    if (row.kind === 'email') {
      const started = performance.now();
      try {
        await this.smtp.send(JSON.parse(row.body), timeoutMs);
        return { ok: true, status: 250, error: null, durationMs: Math.round(performance.now() - started) };
      } catch (e) {
        return { ok: false, status: null, error: (e as Error).message, durationMs: Math.round(performance.now() - started) };
      }
    }
    if (row.kind === 'chat') {
      const url = this.secretBox.open(target!.webhookUrlEnc);
      return postOnce(this.outgoing, url, row.body, { 'content-type': 'application/json', 'user-agent': USER_AGENT }, timeoutMs, this.stopping.signal);
    }
    const secret = target!.secretEnc ? this.secretBox.open(target!.secretEnc) : null;
    const headers = webhookHeaders(row.body, secret, openHeaders(this.secretBox, target!.headers), { 'x-webhook-delivery': String(row.id) });
    return postOnce(this.outgoing, target!.url, row.body, headers, timeoutMs, this.stopping.signal);
  }

  /** Writes a batch's outcomes: successes and retries in one statement each, final failures one by one. */
  private async record(rows: OutboxRow[], outcomes: PostOutcome[], settings: DeliverySettings, target: Record<string, any> | null): Promise<void> {
    const ok: Array<[OutboxRow, PostOutcome]> = [];
    const retry: Array<[OutboxRow, PostOutcome]> = [];
    const failed: Array<[OutboxRow, PostOutcome]> = [];
    rows.forEach((r, i) => {
      const o = outcomes[i];
      if (o.ok) ok.push([r, o]);
      else if (r.attempts < settings.webhookMaxRetries) retry.push([r, o]);
      else failed.push([r, o]);
    });
    if (ok.length) {
      const done = await Promise.all(ok.map(([r, o]) => this.recordSuccess(r.id, o)));
      const hasReceiver = this.receivers.hasReceiver(rows[0].kind);
      const key = `${rows[0].kind}/${rows[0].targetId}`;
      // lastDeliveredAt is refreshed at most once a second per receiver; clearing the failed mark is never put off.
      if (done.some(Boolean) && hasReceiver && rows[0].kind !== 'chat' && (target?.failed || Date.now() - (this.marked.get(key) ?? 0) > 1000)) {
        this.marked.set(key, Date.now());
        if (target) target.failed = false;
        await this.receivers.markDelivered(rows[0].kind, rows[0].targetId);
      }
    }
    if (retry.length) {
      const delays = retry.map(([r]) => retryDelay(settings, r.attempts));
      await Promise.all(retry.map(([r, o], i) => this.queueWrite({ id: r.id, st: o.status, dur: o.durationMs, retry: { delay: delays[i], err: o.error } })));
      const t = setTimeout(() => this.wake(), Math.min(...delays) + 5);
      t.unref();
    }
    for (const [r, o] of failed) await this.finish(r, 'failed', o);
  }

  /**
   * Successes (and attempts to retry) are written in groups: whatever finished while the previous
   * write ran goes in the next UPDATE, so an outcome is on disk within one round trip of its answer
   * while the database sees one statement for many deliveries. Resolves true when the row was still ours.
   */
  private recordSuccess(id: number, o: PostOutcome): Promise<boolean> {
    return this.queueWrite({ id, st: o.status, dur: o.durationMs });
  }

  /** Queues a success (or, with `retry`, a failed attempt to try again later) for the next grouped write. */
  private queueWrite(w: { id: number; st: number | null; dur: number; retry?: { delay: number; err: string | null } }): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.successQueue.push({ ...w, resolve, reject });
      if (!this.flushing) void this.flushSuccesses();
    });
  }

  private async flushSuccesses(): Promise<void> {
    this.flushing = true;
    try {
      while (this.successQueue.length) {
        const group = this.successQueue.splice(0, 500);
        try {
          const ok = group.filter((g) => !g.retry);
          const again = group.filter((g) => g.retry);
          const mine = new Set<number>();
          if (ok.length) {
            for (const id of await this.deliveries.markDelivered(ok, this.owner)) mine.add(id);
          }
          if (again.length) {
            const retries = again.map(({ id, st, dur, retry }) => ({ id, st, dur, delay: retry!.delay, err: retry!.err }));
            for (const id of await this.deliveries.scheduleRetries(retries, this.owner)) mine.add(id);
          }
          for (const g of group) g.resolve(mine.has(g.id));
        } catch (e) {
          for (const g of group) g.reject(e);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Rows leased by an earlier incarnation of a process on this host (same host, its pid gone or
   * reused by us) are handed back at once instead of waiting out the lease.
   */
  async releaseOrphans(): Promise<number> {
    const host = os.hostname();
    const dead = (await this.deliveries.leaseOwnersOn(host)).filter((owner) => {
      if (owner === this.owner) return false;
      const pid = Number(owner.slice(host.length + 1).split(':')[0]);
      if (!Number.isInteger(pid) || pid === process.pid) return true;
      try {
        process.kill(pid, 0);
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'ESRCH';
      }
    });
    if (dead.length === 0) return 0;
    const n = await this.deliveries.releaseLeases(dead);
    this.logger.info('outbox deliveries of a stopped process released', { count: n });
    return n;
  }

  /** Records a final outcome of one delivery; a webhook that fails gets its count, mark and (on the change to failed) a webhook.failed event. */
  private async finish(row: OutboxRow, status: 'succeeded' | 'failed' | 'cancelled', o: PostOutcome): Promise<void> {
    await this.transaction(async (trx) => {
      const ours = await this.deliveries.complete(row.id, this.owner, status, o, trx);
      if (!ours || status === 'cancelled') return; // the lease was lost: whoever holds it reports
      if (!this.receivers.hasReceiver(row.kind)) return;
      if (status === 'succeeded') {
        if (row.kind !== 'chat') await this.receivers.markDelivered(row.kind, row.targetId, trx);
        return;
      }
      if (row.kind === 'chat') {
        this.logger.warn('chat message not delivered', { channelId: row.targetId, error: o.error });
        return;
      }
      const { wasFailed, name } = await this.receivers.markFailed(row.kind, row.targetId, trx);
      this.logger.warn('webhook delivery failed', { kind: row.kind, targetId: row.targetId, event: row.eventType, attempts: row.attempts, error: o.error });
      // One notice when the webhook turns failed (not one per lost delivery), and never a chain of them.
      if (wasFailed !== false || row.eventType === 'webhook.failed' || row.eventType === 'test') return;
      await this.events.publish('webhook.failed', row.environmentId, {
        webhookId: row.targetId, webhookName: name, webhookKind: row.kind, deliveryId: row.id,
        event: row.eventType, attempts: row.attempts, lastStatus: o.status, error: o.error,
      }, trx);
    });
  }
}
