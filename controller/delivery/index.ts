import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { EventBus } from '../events/event-bus.js';
import { DeliverySettingsReader } from './delivery-settings.js';
import { Mailer } from './mailer.js';
import { DeliveryOutbox } from './outbox.js';
import { FanOut } from './fanout.js';
import { createKnex } from '../store/knex.js';

/** Notifications out: bus events -> fan-out -> durable outbox -> webhooks, chat, email. */
export class Deliveries {
  readonly settings: DeliverySettingsReader;
  readonly mailer: Mailer;
  readonly outbox: DeliveryOutbox;
  readonly fanout: FanOut;
  private readonly ownsDb: boolean;

  /**
   * `db` is a small pool of the deliveries' own (from `databaseUrl`), so a burst of deliveries
   * never queues the API's queries (or a deploy publishing its events) behind it.
   */
  private readonly db: Knex;

  constructor(mainDb: Knex, secretBox: SecretBox, events: EventBus, logger: Logger, databaseUrl?: string, systemSettings?: { get(): Promise<any> }) {
    const db = databaseUrl ? createKnex(databaseUrl, 6) : mainDb;
    this.db = db;
    this.ownsDb = db !== mainDb;
    this.settings = new DeliverySettingsReader(db, systemSettings);
    this.mailer = new Mailer(db, secretBox);
    this.outbox = new DeliveryOutbox(db, secretBox, events, this.settings, this.mailer, logger);
    this.fanout = new FanOut(db, events, logger, () => this.outbox.wake());
  }

  async start(): Promise<void> {
    this.fanout.start();
    await this.outbox.start();
  }

  async stop(): Promise<void> {
    await this.fanout.stop();
    await this.outbox.stop();
    this.mailer.close();
    if (this.ownsDb) await this.db.destroy();
  }
}
