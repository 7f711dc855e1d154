import { VolumeOps } from './volumes/volume-ops.js';
import { VolumeBackupsRepository, VolumeRestoresRepository, VolumesRepository } from './store/repositories/volumes.js';
import { randomUUID } from 'node:crypto';
import { databaseAnswers, type Db } from './store/knex.js';
import type { Config } from './config/config.js';
import type { Logger } from './logger.js';
import { SecretBox } from './crypto/secret-box.js';
import { AuditLog } from './audit/audit-log.js';
import { UsersRepository } from './store/repositories/users.js';
import { UserIdentitiesRepository } from './store/repositories/user-identities.js';
import { EnvironmentMembersRepository } from './store/repositories/environment-members.js';
import { ApiTokensRepository } from './store/repositories/api-tokens.js';
import { EnvironmentsRepository } from './store/repositories/environments.js';
import { SettingsStore } from './settings/settings-store.js';
import { EventBus, EVENTS_CHANNEL } from './events/event-bus.js';
import { EventsRepository } from './store/repositories/events.js';
import { WorkQueue } from './queue/work-queue.js';
import { Scheduler } from './queue/scheduler.js';
import { Leadership } from './queue/leadership.js';
import { CacheInvalidation } from './events/cache-invalidation.js';
import { clearAuthCache } from './auth/authenticate-token.js';
import { RegistriesRepository } from './store/repositories/registries.js';
import { ServiceAccountsRepository } from './store/repositories/service-accounts.js';
import { SystemSettings } from './settings/system-settings.js';
import { OutgoingGuard } from './net/outgoing-guard.js';
import { SmtpService } from './admin/smtp.js';
import { Deliveries } from './delivery/index.js';
import { HostAccess } from './hosts/host-access.js';
import { ServersRepository } from './store/repositories/servers.js';
import { createConfigStore, type ConfigStore } from './config-files/config-store.js';
import { Metrics } from './metrics/metrics.js';
import { queueObserver, registerGauges } from './metrics/gauges.js';
import { ServiceRevisionsRepository } from './store/repositories/service-revisions.js';
import { ServicesRepository } from './store/repositories/services.js';
import { DeploymentsRepository } from './store/repositories/deployments.js';
import { ContainerImagesRepository } from './store/repositories/container-images.js';
import { ServiceDependenciesRepository } from './store/repositories/service-dependencies.js';
import { CommandTypesRepository } from './store/repositories/command-types.js';
import { ChatChannelsRepository } from './store/repositories/chat-channels.js';
import { NotificationRoutingsRepository } from './store/repositories/notification-routings.js';
import { DeliveryTargetsRepository } from './store/repositories/delivery-targets.js';
import { NotificationsRepository } from './store/repositories/notifications.js';
import { DeploymentViews } from './store/repositories/deployment-views.js';
import { EnvironmentOverview } from './store/repositories/environment-overview.js';
import { FleetSeries } from './store/repositories/fleet-series.js';
import { ServiceImages } from './store/repositories/service-images.js';
import { ReplayGuard } from './store/repositories/incoming-webhook-replays.js';
import { ServerContainersRepository } from './store/repositories/server-containers.js';
import { SmtpConfigRepository } from './store/repositories/smtp-config.js';
import { SystemSettingsRepository } from './store/repositories/system-settings.js';
import { IdempotencyKeysRepository } from './store/repositories/idempotency-keys.js';
import { lockPool, SessionLocks } from './store/session-locks.js';
import { ErrorTracking } from './admin/error-tracking.js';
import { ServerBootstrapRunsRepository } from './store/repositories/server-bootstrap-runs.js';
import { ServerAgentsRepository } from './store/repositories/server-agents.js';
import { ServerSamplesRepository } from './store/repositories/server-samples.js';
import { HealthLogsRepository } from './store/repositories/health-logs.js';
import { ServiceRunsRepository } from './store/repositories/service-runs.js';
import { JobsRepository } from './store/repositories/jobs.js';
import { AlertStatesRepository } from './store/repositories/alert-states.js';
import { NotificationTypeSettingsRepository } from './store/repositories/notification-type-settings.js';
import { transactionRunner } from './store/transaction.js';
import { DatabaseOps } from './databases/database-ops.js';
import { recordDatabaseProbe } from './monitoring/database-checks.js';
import { BackupStores } from './databases/storage/stores.js';
import { DatabasesRepository } from './store/repositories/databases.js';
import { BackupsRepository, RestoresRepository } from './store/repositories/backups.js';
import { ObjectStorageRepository } from './store/repositories/object-storage.js';
import { GitSourcesRepository } from './store/repositories/git-sources.js';
import { PreviewsRepository } from './store/repositories/previews.js';
import { CertificatesRepository } from './store/repositories/certificates.js';
import { AcmeRepository } from './store/repositories/acme.js';
import type { Services } from './services.js';
import type { Reconcilers } from './model/reconcilers.js';

/**
 * Builds the Services locator once at start-up (the composition root). Kept apart from the
 * interface so the modules that receive a Services import only types, never this file. The plan
 * engine and the manifest hand-off are the reconcilers' (handed in: controller/ never imports them).
 */
export function createServices(config: Config, db: Db, logger: Logger, databaseUrl: string,
  reconcilers: Pick<Reconcilers, 'planEngine' | 'manifestHandOff'>): Services {
  const secretBox = new SecretBox(config.secretsKey);
  const metrics = new Metrics({ perService: !!config.metricsToken });
  // on a pool of their own: a held lock keeps its connection for the whole job or step (session-locks.ts)
  const locks = new SessionLocks(lockPool(databaseUrl));
  const servers = new ServersRepository(db);
  const hosts = new HostAccess(servers, secretBox, logger, { protectedPaths: [config.stateDir] });
  const events = new EventBus(new EventsRepository(db, EVENTS_CHANNEL), databaseUrl, logger);
  const systemSettingsStore = new SystemSettingsRepository(db);
  const systemSettings = new SystemSettings(systemSettingsStore, secretBox);
  const outgoing = new OutgoingGuard(async () => (await systemSettings.get()).outgoingAllowList ?? config.outgoingAllowList);
  const smtp = new SmtpService(new SmtpConfigRepository(db), secretBox, outgoing);
  const objectStorage = new ObjectStorageRepository(db);
  const databaseTypes = new CommandTypesRepository(db, 'database_types');
  const leadership = new Leadership(databaseUrl, config.replicas.leaderRetryMs, logger);
  const invalidation = new CacheInvalidation(databaseUrl, logger);
  invalidation.on('auth', clearAuthCache);
  invalidation.on('settings', () => systemSettings.forget());
  const services = {
    config,
    db,
    transaction: transactionRunner(db),
    logger,
    secretBox,
    outgoing,
    audit: new AuditLog(db),
    users: new UsersRepository(db),
    userIdentities: new UserIdentitiesRepository(db),
    apiTokens: new ApiTokensRepository(db),
    environmentMembers: new EnvironmentMembersRepository(db),
    environments: new EnvironmentsRepository(db),
    settings: new SettingsStore(db),
    services: new ServicesRepository(db),
    revisions: new ServiceRevisionsRepository(db),
    metrics,
    deployments: new DeploymentsRepository(db),
    deploymentViews: new DeploymentViews(db),
    environmentOverview: new EnvironmentOverview(db),
    fleetSeries: new FleetSeries(db),
    containerImages: new ContainerImagesRepository(db),
    serviceImages: new ServiceImages(db),
    serviceDependencies: new ServiceDependenciesRepository(db),
    serviceTypes: new CommandTypesRepository(db, 'service_types'),
    databaseTypes,
    events,
    deliveries: new Deliveries(db, secretBox, events, logger, databaseUrl, systemSettings, smtp, outgoing),
    queue: new WorkQueue({ logger, observer: queueObserver(metrics) }),
    locks,
    scheduler: new Scheduler(locks, logger, () => leadership.isLeader),
    leadership,
    invalidation,
    registries: new RegistriesRepository(db),
    serviceAccounts: new ServiceAccountsRepository(db),
    systemSettings,
    smtp,
    errorTracking: new ErrorTracking(systemSettingsStore, secretBox, logger, outgoing),
    servers,
    serverContainers: new ServerContainersRepository(db),
    idempotencyKeys: new IdempotencyKeysRepository(db),
    serverBootstrapRuns: new ServerBootstrapRunsRepository(db),
    serverAgents: new ServerAgentsRepository(db),
    serverSamples: new ServerSamplesRepository(db),
    healthLogs: new HealthLogsRepository(db),
    serviceRuns: new ServiceRunsRepository(db),
    jobs: new JobsRepository(db),
    alertStates: new AlertStatesRepository(db),
    notificationTypeSettings: new NotificationTypeSettingsRepository(db),
    webhookReplays: new ReplayGuard(db),
    chatChannels: new ChatChannelsRepository(db),
    notificationRoutings: new NotificationRoutingsRepository(db),
    outgoingWebhooks: new DeliveryTargetsRepository(db, 'outgoing_webhooks', 'webhook'),
    webhookSubscriptions: new DeliveryTargetsRepository(db, 'webhook_subscriptions', 'subscription'),
    notifications: new NotificationsRepository(db),
    hosts,
    configStore: createConfigStore(db, secretBox, hosts, logger, config.secretsKey),
    databaseOk: () => databaseAnswers(db),
    objectStorage,
    gitSources: new GitSourcesRepository(db),
    previews: new PreviewsRepository(db),
    certificates: new CertificatesRepository(db, secretBox),
    acme: new AcmeRepository(db, secretBox),
    databaseOps: new DatabaseOps({
      databases: new DatabasesRepository(db), backups: new BackupsRepository(db), restores: new RestoresRepository(db),
      databaseTypes, hosts, events, logger, secretBox, outgoing, stores: new BackupStores(config.stateDir, objectStorage, secretBox, outgoing), owner: randomUUID(),
    }),
  } as Services;
  services.volumes = new VolumesRepository(db);
  services.volumeOps = new VolumeOps({
    volumes: services.volumes, backups: new VolumeBackupsRepository(db), restores: new VolumeRestoresRepository(db), hosts, events,
    logger, stores: services.databaseOps.ctx.stores, settings: services.settings, helperImage: config.volumeHelperImage, owner: services.databaseOps.ctx.owner,
  });
  services.plans = reconcilers.planEngine(services);
  services.handOff = reconcilers.manifestHandOff(services);
  services.databaseOps.ctx.onProbed = (row, result) => recordDatabaseProbe(services, row, result);
  registerGauges(services);
  return services;
}
