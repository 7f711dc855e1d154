import type { Knex } from 'knex';
import type { Config } from './config/config.js';
import type { Logger } from './logger.js';
import { SecretBox } from './crypto/secret-box.js';
import { AuditLog } from './audit/audit-log.js';
import { UsersRepository } from './store/repositories/users.js';
import { ApiTokensRepository } from './store/repositories/api-tokens.js';
import { EnvironmentsRepository } from './store/repositories/environments.js';
import { SettingsStore } from './settings/settings-store.js';
import { EventBus } from './events/event-bus.js';
import { WorkQueue } from './queue/work-queue.js';
import { Scheduler } from './queue/scheduler.js';
import { Deliveries } from './delivery/index.js';

/**
 * Everything the API and the controller share, built once at start-up. Route modules and
 * reconcilers receive this object instead of reaching for globals.
 */
export interface Services {
  config: Config;
  db: Knex;
  logger: Logger;
  secretBox: SecretBox;
  audit: AuditLog;
  users: UsersRepository;
  apiTokens: ApiTokensRepository;
  environments: EnvironmentsRepository;
  settings: SettingsStore;
  /** Event log + LISTEN/NOTIFY fan-out: SSE, notifications, webhooks read it. */
  events: EventBus;
  /** Keyed reconcile queue ("kind/id"). */
  queue: WorkQueue;
  /** Periodic singleton jobs across replicas. */
  scheduler: Scheduler;
  /** Notifications out: fan-out of notification-type events and the durable delivery outbox. */
  deliveries: Deliveries;
  /** Reports whether the database answers, for /health. */
  databaseOk(): Promise<boolean>;
}

export function createServices(config: Config, db: Knex, logger: Logger, databaseUrl: string): Services {
  const secretBox = new SecretBox(config.secretsKey);
  const events = new EventBus(db, databaseUrl, logger);
  return {
    config,
    db,
    logger,
    secretBox,
    audit: new AuditLog(db),
    users: new UsersRepository(db),
    apiTokens: new ApiTokensRepository(db),
    environments: new EnvironmentsRepository(db),
    settings: new SettingsStore(db),
    events,
    deliveries: new Deliveries(db, secretBox, events, logger, databaseUrl),
    queue: new WorkQueue({ logger }),
    scheduler: new Scheduler(db, logger),
    async databaseOk() {
      try {
        await db.raw('select 1');
        return true;
      } catch {
        return false;
      }
    },
  };
}
