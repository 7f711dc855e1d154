import type { Services } from '../../controller/services.js';
import type { RouteSpec } from '../http/route.js';
import healthRoutes from './health.js';
import authRoutes from './auth.js';
import userRoutes from './users.js';
import environmentRoutes from './environments.js';
import environmentMemberRoutes from './environment-members.js';
import settingsRoutes from './settings.js';
import registryBrowseRoutes from './registry-browse.js';
import systemSettingsRoutes from './system-settings.js';
import smtpRoutes from './admin-smtp.js';
import tokenRoutes from './admin-tokens.js';
import serviceAccountRoutes from './service-accounts.js';
import auditLogRoutes from './audit-logs.js';
import incomingWebhookRoutes from './webhooks-incoming.js';
import outgoingWebhookRoutes from './webhooks-outgoing.js';
import notificationRoutes from './notifications.js';
import chatChannelRoutes from './chat-channels.js';
import deploymentPlanRoutes from './deployment-plans.js';
import deployRoutes from './deploys.js';
import execRoutes from './exec.js';
import runRoutes from './runs.js';
import jobRoutes from './jobs.js';
import revisionRoutes from './revisions.js';
import oidcRoutes from './auth-oidc.js';
import composeRoutes from './compose.js';
import driftRoutes from './drift.js';
import environmentOverviewRoutes from './environment-overview.js';
import serviceRoutes from './services.js';
import deploymentRoutes from './deployments.js';
import containerImageRoutes from './container-images.js';
import containerImageUpdateRoutes from './container-image-updates.js';
import serviceImageUpdateRoutes from './service-image-updates.js';
import dependencyRoutes from './dependencies.js';
import commandTypeRoutes from './command-types.js';
import manifestRoutes from './manifests.js';
import manifestsSourceRoutes from './manifests-source.js';
import gitWebhookRoutes from './webhooks-git.js';
import previewRoutes from './previews.js';
import ageKeyRoutes from './age-keys.js';
import serverRoutes from './servers.js';
import secretRoutes from './secrets.js';
import configFragmentRoutes from './config-fragments.js';
import configFileRoutes from './config-files.js';
import configAssetRoutes from './config-assets.js';
import configAttachmentRoutes from './config-attachments.js';
import configSyncRoutes from './config-sync.js';
import secretSubstitutionRoutes from './secret-substitutions.js';
import adminMcpRoutes from './admin-mcp.js';
import databaseRoutes from './databases.js';
import backupRoutes from './backups.js';
import volumeRoutes from './volumes.js';
import objectStorageRoutes from './object-storage.js';
import topologyRoutes from './topology.js';
import { kindCrudRoutes } from './kind-crud.js';
import { kindRouteHooks } from './kind-hooks.js';
import { KINDS } from '../../controller/kinds/index.js';
import systemCliRoutes from './system-cli.js';
import serverOperationRoutes from './server-operations.js';
import serviceOperationRoutes from './service-operations.js';
import adminErrorTrackingRoutes from './admin-error-tracking.js';
import agentRoutes from './agent.js';
import serverAgentRoutes from './server-agents.js';
import metricsRoutes from './metrics.js';
import healthCheckRoutes from './health-checks.js';
import disownRoutes from './disown.js';
import environmentEventRoutes from './environment-events.js';
import certificateRoutes from './certificates.js';

/** Every route module of the API, in one list: the router and the OpenAPI document read it. */
export function allRoutes(s: Services): RouteSpec[] {
  const hooks = kindRouteHooks(s);
  return [
    ...healthRoutes(s),
    ...authRoutes(s),
    ...oidcRoutes(s),
    ...userRoutes(s),
    ...environmentRoutes(s),
    ...environmentMemberRoutes(s),
    // Before settingsRoutes: /settings/notifications is matched ahead of /settings/{module}.
    ...chatChannelRoutes(s),
    ...settingsRoutes(s),
    ...registryBrowseRoutes(s),
    ...systemSettingsRoutes(s),
    ...smtpRoutes(s),
    ...tokenRoutes(s),
    ...serviceAccountRoutes(s),
    ...auditLogRoutes(s),
    ...incomingWebhookRoutes(s),
    ...gitWebhookRoutes(s),
    ...outgoingWebhookRoutes(s),
    ...notificationRoutes(s),
    ...deploymentPlanRoutes(s),
    ...deployRoutes(s),
    ...execRoutes(s),
    ...runRoutes(s),
    ...revisionRoutes(s),
    ...composeRoutes(s),
    ...driftRoutes(s),
    ...environmentOverviewRoutes(s),
    ...serviceRoutes(s),
    ...serviceOperationRoutes(s),
    ...deploymentRoutes(s),
    ...containerImageRoutes(s),
    ...containerImageUpdateRoutes(s),
    ...serviceImageUpdateRoutes(s),
    ...dependencyRoutes(s),
    ...commandTypeRoutes(s),
    ...manifestRoutes(s),
    ...manifestsSourceRoutes(s),
    ...previewRoutes(s),
    ...ageKeyRoutes(s),
    ...serverRoutes(s),
    ...serverOperationRoutes(s),
    ...serverAgentRoutes(s),
    ...agentRoutes(s),
    ...healthCheckRoutes(s),
    ...secretRoutes(s),
    ...configFragmentRoutes(s),
    ...configFileRoutes(s),
    ...configAssetRoutes(s),
    ...configAttachmentRoutes(s),
    ...configSyncRoutes(s),
    ...secretSubstitutionRoutes(s),
    ...adminMcpRoutes(s),
    ...databaseRoutes(s),
    ...backupRoutes(s),
    ...volumeRoutes(s),
    ...objectStorageRoutes(s),
    // Every kind whose descriptor sets `api`: its CRUD routes, from the descriptor (and its hooks).
    ...KINDS.filter((k) => k.api).flatMap((k) => kindCrudRoutes(s, k, hooks[k.kind])),
    ...jobRoutes(s),
    ...topologyRoutes(s),
    ...systemCliRoutes(s),
    ...adminErrorTrackingRoutes(s),
    ...metricsRoutes(s),
    ...disownRoutes(s),
    ...environmentEventRoutes(s),
    ...certificateRoutes(s),
  ];
}
