// Drift reports: the deployment reconciler's plan(desired, actual) per deployment, not applied.
import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { REASONS } from '../../controller/model/conditions.js';
import { driftReport, reportDriftOf } from '../../reconcilers/deployment/drift.js';
import { route } from '../http/route.js';
import { fallbackNote } from '../../reconcilers/service/fallback.js';
import { environmentOf } from './loaders.js';
import { driftEffect, statusOfReasons } from '../../controller/model/drift-effect.js';
import { arrayOf, bool, enumOf, int, nullable, object, str, timestamp, uuid, type Schema } from '../http/schema.js';

// driftReport(reportDriftOf(…)) of reconcilers/deployment/drift.ts: looks, nothing recorded
const driftItem = object({
  deploymentId: uuid, serviceId: uuid, serverId: uuid, containerName: str(), imageTag: nullable(str()),
  desiredImageTag: nullable(str()), runningImageTag: nullable(str()),
  degraded: nullable(object({ reason: str(), message: str() }, ['reason', 'message'])),
  drifted: { type: 'boolean', nullable: true, description: 'null: the server could not be asked' },
  action: nullable(enumOf('none', 'create', 'start', 'recreate', 'conflict')),
  actions: arrayOf(object({ type: enumOf('redeploy'), deploymentId: uuid, field: str(), reason: str(), message: str() }, ['type', 'deploymentId', 'field', 'reason', 'message'])),
  error: str(),
  revisionNote: nullable(str({ description: 'When the desired revision failed: "running r7 (last good); r8 failed: …"' })),
  statusNote: nullable(str({ description: 'What the driftPolicy does about a missing or stopped container: "not restored: driftPolicy warn"' })),
}, ['deploymentId', 'serviceId', 'serverId', 'containerName', 'drifted', 'action', 'actions']);
const report = { checkedAt: timestamp, drifted: int(0), unreachable: int(0), degraded: int(0), items: arrayOf(driftItem) };
const reportRequired = ['checkedAt', 'drifted', 'unreachable', 'degraded', 'items'];
const serverDrift: Schema = object({ serverId: uuid, ...report }, ['serverId', ...reportRequired]);
const environmentDrift: Schema = object({ environmentId: uuid, driftPolicy: str(), ...report }, ['environmentId', 'driftPolicy', ...reportRequired]);

/** Degraded reasons about the container as it is now, not about a rollout that failed before. */
const PRESENT_TROUBLE = new Set<string>([REASONS.CrashLooping, REASONS.NameConflict]);

/**
 * Each item says when its service's desired revision failed and which last good one is the
 * target, and what the drift policy does about a missing or stopped container. When such a
 * container is what the look finds now, a failed rollout the revision note already tells is not
 * shown again as its Degraded (a health check that failed then) beside the real cause.
 */
type Item = { serviceId: string; actions: Array<{ reason: string }>; degraded: { reason: string; message: string } | null };
async function withNotes<T extends { degraded: number; items: Item[] }>(s: Services, report: T, driftPolicy: string): Promise<T> {
  const services = new Map((await s.services.findByIds([...new Set(report.items.map((i) => i.serviceId))])).map((x) => [x.id, x]));
  const items = report.items.map((i) => {
    const status = statusOfReasons(i.actions.map((a) => a.reason));
    const revisionNote = services.has(i.serviceId) ? fallbackNote(services.get(i.serviceId)!) : null;
    const told = !!revisionNote && !!status && !!i.degraded && !PRESENT_TROUBLE.has(i.degraded.reason);
    const degraded = told ? null : i.degraded;
    return { ...i, degraded, revisionNote, statusNote: status && driftEffect(driftPolicy, status) };
  });
  return { ...report, degraded: items.filter((i) => i.degraded).length, items };
}
const driftPolicyOf = async (s: Services, environmentId: string) => (await s.settings.get<{ driftPolicy: string }>(environmentId, 'operations')).driftPolicy;

export default function driftRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/servers/{id}/drift', operationId: 'getServerDrift', tag: 'servers', access: 'viewer',
      summary: 'What differs between the desired and the running deployments of a server', response: serverDrift,
      load: async (_ctx, p) => {
        const row = await s.servers.findById(p.id);
        if (!row) throw notFound('Server');
        return row;
      },
      async handler(_ctx, { resource }) {
        const deployments = await s.deployments.listByServer(resource.id);
        return { serverId: resource.id, ...(await withNotes(s, driftReport(await reportDriftOf(s, deployments)), await driftPolicyOf(s, resource.environmentId))) };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/drift', operationId: 'getEnvironmentDrift', tag: 'environments', access: 'viewer',
      summary: 'Drift of every deployment of an environment', load: environmentOf(s), response: environmentDrift,
      async handler(_ctx, { params }) {
        const deployments = await s.deployments.listByEnvironment(params.envId);
        const driftPolicy = await driftPolicyOf(s, params.envId);
        return { environmentId: params.envId, driftPolicy, ...(await withNotes(s, driftReport(await reportDriftOf(s, deployments)), driftPolicy)) };
      },
    }),
  ];
}
