// The dashboard's overview of one environment in one request: what used to take the servers,
// services (in pages of 200), health-status, plans, notifications and manifests routes.
import type { Services } from '../../controller/services.js';
import { manifestsStatusOf } from '../../controller/manifests/status.js';
import { route } from '../http/route.js';
import { PLAN_STATUSES } from '../../controller/model/plan-states.js';
import { arrayOf, bool, condition, enumOf, int, nullable, nullableTimestamp, object, str, timestamp, uuid } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { environmentOf } from './loaders.js';
import { applyRecord, sourceStatus } from './manifest-schemas.js';
import { statusView } from '../../controller/manifests/git/source-view.js';
import { labelsSchema, serverSelectorSchema } from '../../controller/placement/labels.js';

// written from controller/store/repositories/environment-overview.ts: every field is always there
const conditions = arrayOf(condition);
const serverItem = object({
  id: uuid, name: str(), hostname: str(), labels: labelsSchema, status: nullable(enumOf('healthy', 'unhealthy', 'unknown')), message: nullable(str()),
  checkedAt: nullableTimestamp, conditions,
}, ['id', 'name', 'hostname', 'labels', 'status', 'message', 'checkedAt', 'conditions']);
const deploymentItem = object({
  deploymentId: uuid, serverId: uuid, serverName: str(), containerName: str(), status: str(), runningTag: nullable(str()), conditions,
}, ['deploymentId', 'serverId', 'serverName', 'containerName', 'status', 'runningTag', 'conditions']);
const serviceItem = object({
  id: uuid, name: str(), desiredTag: nullable(str()), serverSelector: nullable(serverSelectorSchema), conditions, deployments: arrayOf(deploymentItem),
}, ['id', 'name', 'desiredTag', 'serverSelector', 'conditions', 'deployments']);
const planItem = object({
  id: uuid, name: str(), status: enumOf(...PLAN_STATUSES), error: nullable(str()), createdAt: timestamp, finishedAt: nullableTimestamp,
}, ['id', 'name', 'status', 'error', 'createdAt', 'finishedAt']);
const notificationItem = object({
  id: uuid, type: str(), title: nullable(str()), message: nullable(str()), createdAt: timestamp,
}, ['id', 'type', 'title', 'message', 'createdAt']);
const overviewRead = object({
  environmentId: uuid,
  servers: arrayOf(serverItem),
  services: arrayOf(serviceItem),
  plans: arrayOf(planItem),
  notifications: object({ unread: int(0), items: arrayOf(notificationItem) }, ['unread', 'items']),
  manifests: object({
    dir: nullable(str()), watching: bool, lastAttempted: applyRecord, lastApplied: applyRecord,
    degraded: arrayOf(object({ name: str(), reason: str(), message: str() }, ['name', 'reason', 'message'])),
    gitSource: { ...nullable(sourceStatus), description: "The environment's Git source's status (GET …/manifests-source/status); null: it follows none" },
  }, ['dir', 'watching', 'lastAttempted', 'lastApplied', 'degraded', 'gitSource']),
}, ['environmentId', 'servers', 'services', 'plans', 'notifications', 'manifests']);

type Degraded = { type: string; status: string; reason?: string; message?: string };
const userIdOf = (ctx: Ctx) => (ctx.state.actor?.type === 'user' ? ctx.state.actor.id : null);

export default function environmentOverviewRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/environments/{envId}/overview', operationId: 'getEnvironmentOverview', tag: 'environments',
      access: 'viewer', load: environmentOf(s), response: overviewRead,
      summary: "One environment at a glance: servers with health and conditions, services with each deployment's server, "
        + 'running and desired tag and conditions, the 10 latest plans, the caller\'s unread notifications, the manifests folder and Git source',
      async handler(ctx, { resource }) {
        const [o, source] = await Promise.all([s.environmentOverview.of(resource.id, userIdOf(ctx)), s.gitSources.ofEnvironment(resource.id)]);
        const st = manifestsStatusOf(s);
        // the environment's own Degraded services (GET /api/manifests/status lists every environment's)
        const degraded = o.services.flatMap((svc) => {
          const c = (svc.conditions as Degraded[]).find((x) => x.type === 'Degraded' && x.status === 'True');
          return c ? [{ name: svc.name, reason: c.reason ?? 'Unknown', message: c.message ?? '' }] : [];
        });
        return {
          environmentId: resource.id, ...o,
          manifests: { dir: s.config.manifestsDir ?? null, watching: st.watching, lastAttempted: st.lastAttempted, lastApplied: st.lastApplied, degraded,
            gitSource: source ? statusView(source, resource.name) : null },
        };
      },
    }),
  ];
}
