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
import { RegistriesRepository } from './store/repositories/registries.js';
import { ServiceAccountsRepository } from './store/repositories/service-accounts.js';
import { SystemSettings } from './settings/system-settings.js';
import { SmtpService } from './admin/smtp.js';
import { Deliveries } from './delivery/index.js';
import { HostAccess } from './hosts/host-access.js';
import { ServersRepository } from './store/repositories/servers.js';
import { createConfigStore, type ConfigStore } from './config-files/config-store.js';
import { PlanEngine } from './deploy/plans/plan-engine.js';
import { ServicesRepository } from './store/repositories/services.js';
import { DeploymentsRepository } from './store/repositories/deployments.js';
import { ContainerImagesRepository } from './store/repositories/container-images.js';
import { ServiceDependenciesRepository } from './store/repositories/service-dependencies.js';
import { CommandTypesRepository } from './store/repositories/command-types.js';

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
  /** Service templates (the catalog). */
  services: ServicesRepository;
  /** Per-server placements of services. */
  deployments: DeploymentsRepository;
  containerImages: ContainerImagesRepository;
  serviceDependencies: ServiceDependenciesRepository;
  serviceTypes: CommandTypesRepository;
  databaseTypes: CommandTypesRepository;
  /** Event log + LISTEN/NOTIFY fan-out: SSE, notifications, webhooks read it. */
  events: EventBus;
  /** Keyed reconcile queue ("kind/id"). */
  queue: WorkQueue;
  /** Periodic singleton jobs across replicas. */
  scheduler: Scheduler;
  registries: RegistriesRepository;
  serviceAccounts: ServiceAccountsRepository;
  /** System-wide settings; `systemSettings.get()` for webhook delivery, retention and the like. */
  systemSettings: SystemSettings;
  smtp: SmtpService;
  /** Notifications out: fan-out of notification-type events and the durable delivery outbox. */
  deliveries: Deliveries;
  servers: ServersRepository;
  /** Reach a server by id: exec, docker, writeFile, readFile, compose (controller/hosts/host-access.ts). */
  hosts: HostAccess;
  /** Secrets, vars, config fragments and files, rendering and sync (controller/config-files/). */
  configStore: ConfigStore;
  /** Deployment plans: create, execute, cancel, roll back; deployService for webhooks and routes. */
  plans: PlanEngine;
  /** Reports whether the database answers, for /health. */
  databaseOk(): Promise<boolean>;
}

export function createServices(config: Config, db: Knex, logger: Logger, databaseUrl: string): Services {
  const secretBox = new SecretBox(config.secretsKey);
  const hosts = new HostAccess(db, secretBox, logger, { protectedPaths: [config.stateDir] });
  const events = new EventBus(db, databaseUrl, logger);
  const systemSettings = new SystemSettings(db, secretBox);
  const smtp = new SmtpService(db, secretBox);
  const services = {
    config,
    db,
    logger,
    secretBox,
    audit: new AuditLog(db),
    users: new UsersRepository(db),
    apiTokens: new ApiTokensRepository(db),
    environments: new EnvironmentsRepository(db),
    settings: new SettingsStore(db),
    services: new ServicesRepository(db),
    deployments: new DeploymentsRepository(db),
    containerImages: new ContainerImagesRepository(db),
    serviceDependencies: new ServiceDependenciesRepository(db),
    serviceTypes: new CommandTypesRepository(db, 'service_types'),
    databaseTypes: new CommandTypesRepository(db, 'database_types'),
    events,
    deliveries: new Deliveries(db, secretBox, events, logger, databaseUrl, systemSettings, smtp),
    queue: new WorkQueue({ logger }),
    scheduler: new Scheduler(db, logger),
    registries: new RegistriesRepository(db),
    serviceAccounts: new ServiceAccountsRepository(db),
    systemSettings,
    smtp,
    servers: new ServersRepository(db),
    hosts,
    configStore: createConfigStore(db, secretBox, hosts, logger, config.secretsKey),
    async databaseOk() {
      try {
        await db.raw('select 1');
        return true;
      } catch {
        return false;
      }
    },
  } as Services;
  services.plans = new PlanEngine(services);
  return services;
}
