// What a replica caches (token resolutions, system settings) is dropped on every replica as soon
// as any of them commits a change to it: database triggers NOTIFY on INVALIDATE_CHANNEL with the
// topic (migration 20261217R), and each replica LISTENs on a connection of its own. Payloads are
// topics only; the caches read the rows again.
import { listen, type Listener } from '../store/listen.js';
import type { Logger } from '../logger.js';
import { Outage } from '../queue/outage.js';

export const INVALIDATE_CHANNEL = 'stevedore_invalidate';
export type CacheTopic = 'auth' | 'settings';

const RECONNECT_BASE_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export class CacheInvalidation {
  private readonly handlers = new Map<CacheTopic, Array<() => void>>();
  private listener: Listener | null = null;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly outage: Outage;

  constructor(private readonly databaseUrl: string, private readonly logger: Logger) {
    this.outage = new Outage(logger, 'cache invalidation (LISTEN) connection');
  }

  /** Calls `drop` whenever `topic` changed anywhere (and after the listener was down a while). */
  on(topic: CacheTopic, drop: () => void): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), drop]);
  }

  /** Connects; the first connection must succeed (the database was just migrated). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => {});
  }

  private drop(topic: CacheTopic): void {
    for (const fn of this.handlers.get(topic) ?? []) {
      try {
        fn();
      } catch (e) {
        this.logger.error('cache invalidation handler failed', { topic, error: String(e) });
      }
    }
  }

  private async connect(): Promise<void> {
    let mine: Listener | null = null;
    mine = await listen(this.databaseUrl, INVALIDATE_CHANNEL, {
      notify: (payload) => {
        if (payload === 'auth' || payload === 'settings') this.drop(payload);
      },
      lost: (why) => {
        if (!mine || this.listener !== mine) return;
        this.listener = null;
        if (this.stopped) return;
        this.outage.failed(why);
        this.reconnectLater();
      },
    });
    if (this.stopped) await mine.end().catch(() => {});
    else this.listener = mine;
  }

  private reconnectLater(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().then(() => {
        // changes made while nobody listened were not announced here: forget everything
        for (const topic of this.handlers.keys()) this.drop(topic);
        this.outage.ok();
      }, (e) => {
        if (this.stopped) return;
        this.outage.failed(e);
        this.reconnectLater();
      });
    }, this.outage.delayMs(RECONNECT_BASE_MS, RECONNECT_MAX_MS));
    this.timer.unref();
  }
}
