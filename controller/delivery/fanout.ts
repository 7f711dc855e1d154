import type { Db, Trx } from '../store/knex.js';
import type { Logger } from '../logger.js';
import type { EventBus, StreamEvent } from '../events/event-bus.js';
import { NotificationFanOutStore } from '../store/repositories/notification-fanout.js';
import { transactionRunner } from '../store/transaction.js';
import { NOTIFICATION_CODES, describe, notificationType, type NotificationType } from '../notifications/types.js';
import { chatPayload, chatResolver } from './chat-routing.js';
import { ChatRoutingReads } from '../store/repositories/chat-routing-reads.js';
import { Outage } from '../queue/outage.js';
import { isDatabaseUnavailable } from '../store/connection-errors.js';

/** The outgoing webhook body of the spec. */
export interface WebhookPayload {
  event: string;
  timestamp: string;
  environmentId: string | null;
  environmentName: string | null;
  data: Record<string, unknown>;
}

interface Filterable { id: string; eventTypes: string[]; failed: boolean }

const matchesType = (w: { eventTypes: string[] }, type: string) => !w.eventTypes?.length || w.eventTypes.includes(type);

/** webhook.failed is not sent to the receiver that failed, nor to one already marked failed. */
const worthSending = (w: Filterable, e: StreamEvent) =>
  e.type !== 'webhook.failed' || (!w.failed && e.data.webhookId !== w.id);

/**
 * Turns bus events whose type is a notification code into in-app notifications and outbox rows
 * (webhooks, subscriptions, chat, email), each event exactly once: the event row is locked
 * (SKIP LOCKED, so replicas share the work) and its event_fanouts marker is written in the same
 * transaction as everything it produced.
 */
export class FanOut {
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private again = false;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;
  private current: Promise<void> = Promise.resolve();
  private readonly outage: Outage;
  /** While the database is away, no pass starts before this time (backoff). */
  private retryAt = 0;
  private readonly store: NotificationFanOutStore;
  private readonly transaction: ReturnType<typeof transactionRunner>;

  constructor(
    db: Db,
    private readonly events: EventBus,
    private readonly logger: Logger,
    private readonly onDeliveries: () => void,
    private readonly pollMs = 1000,
  ) {
    this.outage = new Outage(logger, 'notification fan-out');
    this.store = new NotificationFanOutStore(db);
    this.transaction = transactionRunner(db);
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.events.subscribe((e) => {
      if (notificationType(e.type)) this.wake();
    });
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.current;
  }

  wake(): void {
    if (this.stopped || Date.now() < this.retryAt) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.current = (async () => {
      try {
        while (!this.stopped && (await this.runOnce()) > 0) { /* drain */ }
        this.outage.ok();
        this.retryAt = 0;
      } catch (e) {
        this.outage.failed(e);
        this.retryAt = Date.now() + this.outage.delayMs(this.pollMs);
      } finally {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      }
    })();
  }

  /**
   * Fans out up to `batch` unprocessed events in one transaction; returns how many. When the
   * batch fails, its events are retried one by one so that one bad event (its transaction
   * failing) is logged and marked done instead of holding up every later one.
   */
  async runOnce(batch = 200): Promise<number> {
    let n: number;
    try {
      n = await this.fanBatch(batch);
    } catch (e) {
      // no database: one by one would fail the same way (and mark events done that were not)
      if (isDatabaseUnavailable(e)) throw e;
      this.logger.warn('notification fan-out batch failed; retrying its events one by one', { error: (e as Error).message });
      n = 0;
      for (;;) {
        let one: number;
        try {
          one = await this.fanBatch(1);
        } catch (err) {
          if (isDatabaseUnavailable(err)) throw err;
          const bad = await this.store.oldestPendingEvent(NOTIFICATION_CODES);
          if (bad === null) break;
          this.logger.error('notification fan-out skipped an event', { eventId: bad, error: (err as Error).message });
          await this.store.markFannedOut([bad]);
          continue;
        }
        if (one === 0 || ++n >= batch) break;
      }
    }
    if (n > 0) this.onDeliveries();
    return n;
  }

  private async fanBatch(batch: number): Promise<number> {
    return this.transaction(async (trx) => {
      const rows = await this.store.lockPendingEvents(NOTIFICATION_CODES, batch, trx);
      if (rows.length === 0) return 0;
      const ctx = await this.context(trx);
      const outbox: Array<Record<string, unknown>> = [];
      for (const r of rows) {
        const e: StreamEvent = { id: Number(r.id), type: r.type, environmentId: r.environmentId, data: r.data ?? {}, createdAt: new Date(r.createdAt).toISOString() };
        await this.fanOne(trx, ctx, e, outbox);
      }
      // One multi-row insert for the whole batch (the unique index makes a repeat a no-op).
      await this.store.queueDeliveries(outbox, trx);
      await this.store.markFannedOut(rows.map((r) => r.id), trx);
      return rows.length;
    });
  }

  /** What every event of one batch needs: receivers, users and their preferences. */
  private async context(trx: Trx) {
    // One connection per transaction: these run one after another.
    const webhooks = await this.store.enabledWebhooks(trx);
    const users = await this.store.users(trx);
    const prefs = await this.store.preferences(trx);
    const emailOn = await this.store.emailEnabled(trx);
    const channelsFor = await chatResolver(new ChatRoutingReads(trx));
    const prefOf = new Map<string, { inApp: boolean; email: boolean }>();
    for (const p of prefs) prefOf.set(`${p.userId}/${p.type}`, p);
    return { webhooks, users, prefOf, channelsFor, emailOn, envNames: new Map<string, string | null>(), subs: new Map<string, Filterable[]>() };
  }

  private async fanOne(trx: Trx, ctx: Awaited<ReturnType<FanOut['context']>>, e: StreamEvent, outbox: Array<Record<string, unknown>>): Promise<void> {
    // bouncing happens where the checks run (monitoring/alert-machine.ts): every event is sent
    const t = notificationType(e.type)!;

    let envName: string | null = null;
    if (e.environmentId) {
      if (!ctx.envNames.has(e.environmentId)) {
        ctx.envNames.set(e.environmentId, await this.store.environmentName(e.environmentId, trx));
      }
      envName = ctx.envNames.get(e.environmentId) ?? null;
    }
    // An environment deleted since the event: its notifications keep no (dangling) reference.
    const notificationEnv = envName !== null ? e.environmentId : null;
    const payload: WebhookPayload = { event: e.type, timestamp: e.createdAt, environmentId: e.environmentId, environmentName: envName, data: e.data };
    const body = JSON.stringify(payload);
    const base = { eventId: e.id, eventType: e.type, environmentId: e.environmentId };

    for (const w of ctx.webhooks) {
      const envOk = !w.environmentIds?.length || (e.environmentId !== null && w.environmentIds.includes(e.environmentId));
      if (envOk && matchesType(w, e.type) && worthSending(w, e)) outbox.push({ ...base, kind: 'webhook', targetId: w.id, body });
    }
    if (e.environmentId) {
      if (!ctx.subs.has(e.environmentId)) {
        ctx.subs.set(e.environmentId, await this.store.enabledSubscriptions(e.environmentId, trx));
      }
      for (const w of ctx.subs.get(e.environmentId)!) {
        if (matchesType(w, e.type) && worthSending(w, e)) outbox.push({ ...base, kind: 'subscription', targetId: w.id, body });
      }
    }

    const message = describe(t, e.data);
    const title = t.title;
    for (const channelId of await ctx.channelsFor(e.type, e.environmentId)) {
      outbox.push({ ...base, kind: 'chat', targetId: channelId, body: JSON.stringify(chatPayload(t, message, envName)) });
    }

    const severity = typeof e.data.severity === 'string' && ['info', 'warning', 'error'].includes(e.data.severity) ? e.data.severity : t.defaultSeverity;
    const notifications: Array<Record<string, unknown>> = [];
    for (const u of ctx.users) {
      const p = ctx.prefOf.get(`${u.id}/${e.type}`) ?? defaultPreference(t);
      if (p.inApp) {
        notifications.push({
          userId: u.id, eventId: e.id, type: e.type, category: t.category, severity, environmentId: notificationEnv,
          title, message, data: JSON.stringify(e.data), createdAt: e.createdAt,
        });
      }
      if (p.email && ctx.emailOn) {
        const subject = `[Stevedore] ${title}${envName ? ` in ${envName}` : ''}`;
        const text = `${message}\n\nEvent: ${e.type}\nEnvironment: ${envName ?? '(system)'}\nTime: ${e.createdAt}\n`;
        outbox.push({ ...base, kind: 'email', targetId: u.id, body: JSON.stringify({ to: u.email, subject, text }) });
      }
    }
    if (notifications.length) {
      const created = await this.store.insertNotifications(notifications, trx);
      for (const n of created) {
        await this.events.publish('notification.created', n.environmentId, { userId: n.userId, notification: toNotification(n) }, trx);
      }
    }
  }
}

/** Defaults when a user has no preference row for a type: in-app always, email for errors. */
export const defaultPreference = (t: NotificationType) => ({ inApp: true, email: t.defaultSeverity === 'error' });

export function toNotification(n: Record<string, any>) {
  return {
    id: n.id, type: n.type, category: n.category, severity: n.severity, environmentId: n.environmentId,
    title: n.title, message: n.message, data: n.data, read: !!n.readAt, readAt: n.readAt ?? null, createdAt: n.createdAt,
  };
}
