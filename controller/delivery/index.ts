import type { Db } from '../store/knex.js';
import { DeliveryRetention } from '../store/repositories/delivery-retention.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { OutgoingGuard } from '../net/outgoing-guard.js';
import type { EventBus } from '../events/event-bus.js';
import { DeliverySettingsReader } from './delivery-settings.js';
import type { SmtpService } from '../admin/smtp.js';
import type { SystemSettings } from '../settings/system-settings.js';
import { DeliveryOutbox } from './outbox.js';
import { FanOut } from './fanout.js';
import { createKnex } from '../store/knex.js';

/** Notifications out: bus events -> fan-out -> durable outbox -> webhooks, chat, email. */
export class Deliveries {
  readonly settings: DeliverySettingsReader;
  readonly outbox: DeliveryOutbox;
  readonly fanout: FanOut;
  private readonly ownsDb: boolean;

  /**
   * `db` is a small pool of the deliveries' own (from `databaseUrl`), so a burst of deliveries
   * never queues the API's queries (or a deploy publishing its events) behind it.
   */
  private readonly db: Db;

  constructor(mainDb: Db, secretBox: SecretBox, events: EventBus, logger: Logger, databaseUrl: string | undefined,
    private readonly systemSettings: SystemSettings, smtp: SmtpService, outgoing: OutgoingGuard) {
    const db = databaseUrl ? createKnex(databaseUrl, 6) : mainDb;
    this.db = db;
    this.ownsDb = db !== mainDb;
    this.settings = new DeliverySettingsReader(systemSettings);
    this.outbox = new DeliveryOutbox(db, secretBox, events, this.settings, smtp, logger, outgoing);
    this.fanout = new FanOut(db, events, logger, () => this.outbox.wake());
  }

  async start(): Promise<void> {
    this.fanout.start();
    await this.outbox.start();
  }

  /** Retention (DeliveryRetention.prune); in-app notifications after the system setting notificationRetentionDays (90). */
  async prune(): Promise<void> {
    await new DeliveryRetention(this.db).prune(Number((await this.systemSettings.get()).notificationRetentionDays) || 90);
  }

  async stop(): Promise<void> {
    await this.fanout.stop();
    await this.outbox.stop();
    if (this.ownsDb) await this.db.destroy();
  }
}
