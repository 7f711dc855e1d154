import { EventEmitter } from 'node:events';
import { listen, type Listener } from '../store/listen.js';
import type { EventRow, EventsRepository } from '../store/repositories/events.js';
import type { Trx } from '../store/transaction.js';
import type { Logger } from '../logger.js';
import { Outage } from '../queue/outage.js';

export interface StreamEvent {
  id: number;
  /** SSE names (plan.updated, plan.step, deployment.updated, health.changed, drift.changed,
   *  notification.created, log) or notification type codes (deployment.success, …). */
  type: string;
  environmentId: string | null;
  data: Record<string, unknown>;
  createdAt: string;
}

export const EVENTS_CHANNEL = 'stevedore_events';
/** Ids remembered as already handed out, so a replay never hands one out twice. */
const REMEMBERED = 10_000;
/**
 * A replay starts this many ids below the highest one handed out: ids are taken at insert and
 * announced at commit, so a smaller id can become visible after a larger one.
 */
const REPLAY_MARGIN = 500;
const RECONNECT_BASE_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * Events are rows in `events`, announced with NOTIFY at commit; every replica LISTENs and hands
 * them to its local subscribers (SSE streams, notification fan-out). Data must never hold a
 * secret value: publishers pass names and ids.
 *
 * The LISTEN connection is re-established (with backoff) whenever it is lost, and what was
 * committed meanwhile is read back from the table and handed out in id order: a subscriber sees
 * every event exactly once across a database restart.
 */
export class EventBus {
  private readonly local = new EventEmitter();
  private listener: Listener | null = null;
  private stopped = true;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly outage: Outage;
  /** Highest id handed out. */
  private highest = 0;
  /** The highest id when this process started: older events are history, never replayed. */
  private floor = 0;
  private readonly handed = new Set<number>();
  /** Serializes hand-outs so a replay and live notifications never interleave out of order. */
  private chain: Promise<void> = Promise.resolve();

  /** `rows` announces on EVENTS_CHANNEL. */
  constructor(private readonly rows: EventsRepository, private readonly databaseUrl: string, private readonly logger: Logger) {
    this.local.setMaxListeners(0);
    this.outage = new Outage(logger, 'event listener (LISTEN) connection');
  }

  async publish(type: string, environmentId: string | null, data: Record<string, unknown>, trx?: Trx): Promise<StreamEvent> {
    return toEvent(await this.rows.append(type, environmentId, data, trx));
  }

  /** Calls `fn` for every event published by any replica from now on; returns an unsubscribe. */
  subscribe(fn: (e: StreamEvent) => void): () => void {
    this.local.on('event', fn);
    return () => this.local.off('event', fn);
  }

  /** The id of the newest event (0 when there is none): where a fresh stream starts. */
  lastId(): Promise<number> {
    return this.rows.lastId();
  }

  /** Events after `lastId` (for Last-Event-ID resume), oldest first. */
  async since(lastId: number, environmentId?: string | null, limit = 500): Promise<StreamEvent[]> {
    return (await this.rows.since(lastId, environmentId, limit)).map(toEvent);
  }

  /** A page of one environment's events whose type starts with `typePrefix`, newest first (agent events). */
  pageOfPrefix(environmentId: string, typePrefix: string, page: { limit: number; offset: number }) {
    return this.rows.pageOfPrefix(environmentId, typePrefix, page);
  }

  /** A page of one environment's events of these types, newest first. */
  async pageOfTypes(environmentId: string, types: string[], page: { limit: number; offset: number }): Promise<{ items: StreamEvent[]; total: number }> {
    const r = await this.rows.pageOfTypes(environmentId, types, page);
    return { items: r.items.map(toEvent), total: r.total };
  }

  /** Connects the listener; the first connection must succeed (the database was just migrated). */
  async start(): Promise<void> {
    this.stopped = false;
    this.highest = this.floor = await this.lastId();
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => {});
    await this.chain;
  }

  private async connect(): Promise<void> {
    let mine: Listener | null = null;
    const lost = (why: unknown) => {
      if (!mine || this.listener !== mine) return; // stopped, or replaced already
      this.listener = null;
      if (this.stopped) return;
      this.outage.failed(why);
      this.scheduleRecovery();
    };
    const notify = (payload: string) => {
      const id = Number(payload);
      this.enqueue(async () => {
        if (this.handed.has(id)) return;
        try {
          const row = await this.rows.findById(id);
          if (row) this.handOut(toEvent(row));
        } catch (e) {
          // the row is in the table: the catch-up replay hands it out
          this.logger.debug('event read failed; catching up later', { eventId: id, error: String(e) });
          this.scheduleRecovery();
        }
      });
    };
    // a connection that never came up throws: the caller handles it
    mine = await listen(this.databaseUrl, EVENTS_CHANNEL, { notify, lost });
    this.listener = mine;
  }

  /** Reconnects when the listener is gone (with backoff), then replays what it missed. */
  private scheduleRecovery(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = this.outage.delayMs(RECONNECT_BASE_MS, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      void (async () => {
        try {
          if (!this.listener) await this.connect();
          await this.replay();
          this.reconnectTimer = null;
          this.outage.ok();
        } catch (e) {
          this.reconnectTimer = null;
          if (this.stopped) return;
          this.outage.failed(e);
          this.scheduleRecovery();
        }
      })();
    }, delay);
    this.reconnectTimer.unref();
  }

  /** Hands out every committed event not handed out yet, from a little below the highest seen. */
  private replay(): Promise<void> {
    let failure: unknown = null;
    const from = Math.max(this.floor, this.highest - REPLAY_MARGIN);
    this.enqueue(async () => {
      try {
        for (let after = from; ;) {
          const page = await this.since(after, null, 500);
          for (const e of page) this.handOut(e);
          if (page.length < 500) break;
          after = page[page.length - 1].id;
        }
      } catch (e) {
        failure = e;
      }
    });
    return this.chain.then(() => {
      if (failure) throw failure;
    });
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(work, work);
  }

  private handOut(e: StreamEvent): void {
    if (this.handed.has(e.id)) return;
    this.handed.add(e.id);
    if (this.handed.size > REMEMBERED) {
      // Sets iterate in insertion order: drop the oldest
      const drop = this.handed.size - REMEMBERED;
      let i = 0;
      for (const id of this.handed) {
        if (i++ >= drop) break;
        this.handed.delete(id);
      }
    }
    if (e.id > this.highest) this.highest = e.id;
    try {
      this.local.emit('event', e);
    } catch (err) {
      // a subscriber's bug must not stop the others, nor the bus
      this.logger.error('event subscriber failed', { eventId: e.id, error: String(err) });
    }
  }
}

function toEvent(row: EventRow): StreamEvent {
  return {
    id: Number(row.id),
    type: row.type,
    environmentId: row.environmentId,
    data: row.data,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}
