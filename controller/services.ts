import type { VolumeOps } from './volumes/volume-ops.js';
import type { VolumesRepository } from './store/repositories/volumes.js';
import type { Db } from './store/knex.js';
import type { Metrics } from './metrics/metrics.js';
import type { Config } from './config/config.js';
import type { Logger } from './logger.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { OutgoingGuard } from './net/outgoing-guard.js';
import type { AuditLog } from './audit/audit-log.js';
import type { UsersRepository } from './store/repositories/users.js';
import type { UserIdentitiesRepository } from './store/repositories/user-identities.js';
import type { ApiTokensRepository } from './store/repositories/api-tokens.js';
import type { EnvironmentsRepository } from './store/repositories/environments.js';
import type { EnvironmentMembersRepository } from './store/repositories/environment-members.js';
import type { SettingsStore } from './settings/settings-store.js';
import type { EventBus } from './events/event-bus.js';
import type { WorkQueue } from './queue/work-queue.js';
import type { Scheduler } from './queue/scheduler.js';
import type { Leadership } from './queue/leadership.js';
import type { CacheInvalidation } from './events/cache-invalidation.js';
import type { RegistriesRepository } from './store/repositories/registries.js';
import type { ServiceAccountsRepository } from './store/repositories/service-accounts.js';
import type { SystemSettings } from './settings/system-settings.js';
import type { SmtpService } from './admin/smtp.js';
import type { Deliveries } from './delivery/index.js';
import type { HostAccess } from './hosts/host-access.js';
import type { ServersRepository } from './store/repositories/servers.js';
import type { ConfigStore } from './config-files/config-store.js';
import type { PlanRunner } from './model/plan-runner.js';
import type { ManifestHandOff } from './model/manifest-hand-off.js';
import type { ServicesRepository } from './store/repositories/services.js';
import type { ServiceRevisionsRepository } from './store/repositories/service-revisions.js';
import type { DeploymentsRepository } from './store/repositories/deployments.js';
import type { ContainerImagesRepository } from './store/repositories/container-images.js';
import type { ServiceDependenciesRepository } from './store/repositories/service-dependencies.js';
import type { CommandTypesRepository } from './store/repositories/command-types.js';
import type { ChatChannelsRepository } from './store/repositories/chat-channels.js';
import type { NotificationRoutingsRepository } from './store/repositories/notification-routings.js';
import type { DeliveryTargetsRepository } from './store/repositories/delivery-targets.js';
import type { NotificationsRepository } from './store/repositories/notifications.js';
import type { DeploymentViews } from './store/repositories/deployment-views.js';
import type { EnvironmentOverview } from './store/repositories/environment-overview.js';
import type { FleetSeries } from './store/repositories/fleet-series.js';
import type { ServiceImages } from './store/repositories/service-images.js';
import type { ReplayGuard } from './store/repositories/incoming-webhook-replays.js';
import type { ServerContainersRepository } from './store/repositories/server-containers.js';
import type { IdempotencyKeysRepository } from './store/repositories/idempotency-keys.js';
import type { SessionLocks } from './store/session-locks.js';
import type { Trx } from './store/transaction.js';
import type { DatabaseOps } from './databases/database-ops.js';
import type { ObjectStorageRepository } from './store/repositories/object-storage.js';
import type { GitSourcesRepository } from './store/repositories/git-sources.js';
import type { PreviewsRepository } from './store/repositories/previews.js';
import type { ErrorTracking } from './admin/error-tracking.js';
import type { ServerBootstrapRunsRepository } from './store/repositories/server-bootstrap-runs.js';
import type { ServerAgentsRepository } from './store/repositories/server-agents.js';
import type { ServerSamplesRepository } from './store/repositories/server-samples.js';
import type { HealthLogsRepository } from './store/repositories/health-logs.js';
import type { ServiceRunsRepository } from './store/repositories/service-runs.js';
import type { JobsRepository } from './store/repositories/jobs.js';
import type { AlertStatesRepository } from './store/repositories/alert-states.js';
import type { NotificationTypeSettingsRepository } from './store/repositories/notification-type-settings.js';
import type { CertificatesRepository } from './store/repositories/certificates.js';
import type { AcmeRepository } from './store/repositories/acme.js';

/**
 * Everything the API and the controller share, built once at start-up. Route modules and
 * reconcilers receive this object instead of reaching for globals.
 */
export interface Services {
  config: Config;
  /** The database handle, for controller/store/ code only: everything else goes through repositories. */
  db: Db;
  /** Groups repository writes in one transaction (each repository method takes the `trx`). */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  logger: Logger;
  secretBox: SecretBox;
  /** Where outgoing requests to operator-set URLs may go (controller/net/outgoing-guard.ts). */
  outgoing: OutgoingGuard;
  audit: AuditLog;
  users: UsersRepository;
  /** Which user an OpenID provider's identity (issuer + subject) signs in as. */
  userIdentities: UserIdentitiesRepository;
  apiTokens: ApiTokensRepository;
  environmentMembers: EnvironmentMembersRepository;
  environments: EnvironmentsRepository;
  settings: SettingsStore;
  /** Service templates (the catalog). */
  services: ServicesRepository;
  /** Numbered, immutable rendered specs of each service (reconcilers/service/revisions.ts). */
  revisions: ServiceRevisionsRepository;
  /** Per-server placements of services. */
  deployments: DeploymentsRepository;
  /** Deployments joined with their services' names, for listings. */
  deploymentViews: DeploymentViews;
  /** The dashboard overview of one environment in a few queries. */
  environmentOverview: EnvironmentOverview;
  /** What /metrics reads of services, servers and deployments. */
  fleetSeries: FleetSeries;
  containerImages: ContainerImagesRepository;
  /** Services found through their container image (CI webhooks). */
  serviceImages: ServiceImages;
  serviceDependencies: ServiceDependenciesRepository;
  serviceTypes: CommandTypesRepository;
  databaseTypes: CommandTypesRepository;
  /** Event log + LISTEN/NOTIFY fan-out: SSE, notifications, webhooks read it. */
  events: EventBus;
  /** Keyed reconcile queue ("kind/id"). */
  queue: WorkQueue;
  /** Advisory locks held on a connection of their own: one plan step per server, one replica per job. */
  locks: SessionLocks;
  /** Periodic singleton jobs across replicas (run by the leader). */
  scheduler: Scheduler;
  /** Which replica leads (advisory lock on a session of its own) and the work only the leader runs. */
  leadership: Leadership;
  /** Drops cached tokens and settings on every replica when any of them changes them. */
  invalidation: CacheInvalidation;
  registries: RegistriesRepository;
  serviceAccounts: ServiceAccountsRepository;
  /** System-wide settings; `systemSettings.get()` for webhook delivery, retention and the like. */
  systemSettings: SystemSettings;
  smtp: SmtpService;
  /** Sentry-compatible error reporting (admin setting): status, test, and capture of unexpected failures. */
  errorTracking: ErrorTracking;
  /** Notifications out: fan-out of notification-type events and the durable delivery outbox. */
  deliveries: Deliveries;
  servers: ServersRepository;
  /** Bootstraps of servers (install and start Docker), step by step. */
  serverBootstrapRuns: ServerBootstrapRunsRepository;
  /** Monitoring agents: each server's agent token (hashed) and when its agent was last heard from. */
  serverAgents: ServerAgentsRepository;
  /** Server metrics, a time series partitioned by day (controller/monitoring/). */
  serverSamples: ServerSamplesRepository;
  /** Every monitoring check result (server, container, tcp, cert). */
  healthLogs: HealthLogsRepository;
  /** One-off runs of services: status, exit code and log tail (docs/exec.md#one-off-runs). */
  serviceRuns: ServiceRunsRepository;
  /** Scheduled jobs' occurrences and run history (the kind's CRUD goes through its KindRepository). */
  jobs: JobsRepository;
  /** The alert state of each check (monitoring/alert-machine.ts). */
  alertStates: AlertStatesRepository;
  /** Admin overrides of notification types' alert policies. */
  notificationTypeSettings: NotificationTypeSettingsRepository;
  /** What container discovery last found on each server. */
  serverContainers: ServerContainersRepository;
  /** Idempotency-Key records of write requests. */
  idempotencyKeys: IdempotencyKeysRepository;
  /** Incoming-webhook replay protection (incoming_webhook_replays). */
  webhookReplays: ReplayGuard;
  chatChannels: ChatChannelsRepository;
  notificationRoutings: NotificationRoutingsRepository;
  outgoingWebhooks: DeliveryTargetsRepository;
  webhookSubscriptions: DeliveryTargetsRepository;
  /** In-app notifications and each user's notification preferences. */
  notifications: NotificationsRepository;
  /** Reach a server by id: exec, docker, writeFile, readFile, compose (controller/hosts/host-access.ts). */
  hosts: HostAccess;
  /** Secrets, vars, config fragments and files, rendering and sync (controller/config-files/). */
  configStore: ConfigStore;
  /** Deployment plans: their rows, steps and artifacts, and the engine that runs them (reconcilers/deployment/plans/). */
  plans: PlanRunner;
  /** Where a manifest apply hands changed services and deleted deployments (reconcilers/manifest-hand-off.ts). */
  handOff: ManifestHandOff;
  /** Databases: their repositories, backups, restores, drills and rotation (controller/databases/). */
  databaseOps: DatabaseOps;
  /** Managed volumes (docs/volumes.md). */
  volumes: VolumesRepository;
  /** Volume backups, restores into a new volume, drills and rotation (controller/volumes/). */
  volumeOps: VolumeOps;
  /** The global S3-compatible storage and each environment's use of it. */
  objectStorage: ObjectStorageRepository;
  /** Each environment's Git source of manifests, its sync status, and the environment's age identity (controller/manifests/git/). */
  gitSources: GitSourcesRepository;
  /** Preview environments per pull request of a Git source (docs/git-sources.md#previews). */
  previews: PreviewsRepository;
  /** Certificates from ACME, one per (environment, host); the proxy reads them through controller/ingress/acme/held-certificates.ts. */
  certificates: CertificatesRepository;
  /** The ACME account key per directory and the HTTP-01 challenges of open orders. */
  acme: AcmeRepository;
  /** What GET /metrics serves (controller/metrics/): counters fed as things happen, gauges read when scraped. */
  metrics: Metrics;
  /** Reports whether the database answers, for /health. */
  databaseOk(): Promise<boolean>;
}
