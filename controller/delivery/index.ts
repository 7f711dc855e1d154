import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { EventBus } from '../events/event-bus.js';
import { DeliverySettingsReader } from './delivery-settings.js';
import { Mailer } from './mailer.js';
import { DeliveryOutbox } from './outbox.js';
import { FanOut } from './fanout.js';

/** Notifications out: bus events -> fan-out -> durable outbox -> webhooks, chat, email. */
export class Deliveries {
  readonly settings: DeliverySettingsReader;
  readonly mailer: Mailer;
  readonly outbox: DeliveryOutbox;
  readonly fanout: FanOut;

  constructor(db: Knex, secretBox: SecretBox, events: EventBus, logger: Logger, systemSettings?: { get(): Promise<any> }) {
    this.settings = new DeliverySettingsReader(db, systemSettings);
    this.mailer = new Mailer(db, secretBox);
    this.outbox = new DeliveryOutbox(db, secretBox, events, this.settings, this.mailer, logger);
    this.fanout = new FanOut(db, events, logger, () => this.outbox.wake());
  }

  start(): void {
    this.fanout.start();
    this.outbox.start();
  }

  async stop(): Promise<void> {
    await this.fanout.stop();
    await this.outbox.stop();
    this.mailer.close();
  }
}
