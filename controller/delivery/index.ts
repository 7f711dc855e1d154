import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
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
  private readonly db: Knex;

  constructor(mainDb: Knex, secretBox: SecretBox, events: EventBus, logger: Logger, databaseUrl: string | undefined,
    private readonly systemSettings: SystemSettings, smtp: SmtpService) {
    const db = databaseUrl ? createKnex(databaseUrl, 6) : mainDb;
    this.db = db;
    this.ownsDb = db !== mainDb;
    this.settings = new DeliverySettingsReader(systemSettings);
    this.outbox = new DeliveryOutbox(db, secretBox, events, this.settings, smtp, logger);
    this.fanout = new FanOut(db, events, logger, () => this.outbox.wake());
  }

  async start(): Promise<void> {
    this.fanout.start();
    await this.outbox.start();
  }

  /**
   * Retention: finished deliveries after 30 days, fan-out markers after 8 (the fan-out looks 7
   * days back), in-app notifications after the system setting notificationRetentionDays (90), bounce counts idle for a day, incoming replay keys after 10 minutes.
   */
  async prune(): Promise<void> {
    await this.db.raw(`DELETE FROM delivery_outbox WHERE status IN ('succeeded', 'failed', 'cancelled') AND completed_at < now() - interval '30 days'`);
    await this.db.raw(`DELETE FROM event_fanouts WHERE created_at < now() - interval '8 days'`);
    await this.db.raw(`DELETE FROM notification_bounces WHERE updated_at < now() - interval '1 day'`);
    const days = Number((await this.systemSettings.get()).notificationRetentionDays) || 90;
    await this.db.raw(`DELETE FROM notifications WHERE created_at < now() - (? * interval '1 day')`, [days]);
    await this.db.raw(`DELETE FROM incoming_webhook_replays WHERE created_at < now() - interval '10 minutes'`);
  }

  async stop(): Promise<void> {
    await this.fanout.stop();
    await this.outbox.stop();
    if (this.ownsDb) await this.db.destroy();
  }
}
