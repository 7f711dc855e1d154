// Placement by selector: a service with `serverSelector` runs on every server of its environment
// whose labels match, and only there. Level-triggered: after a server's labels or a service's
// selector change (API, manifests) and on the drift sweep, the deployment set is made to follow:
// a server that starts matching gets a deployment (its container comes with the next rollout, or
// at once under driftPolicy heal); a deployment on a server that stops matching is deleted and its
// container removed through a plan of remove steps (the same steps a manifest prune uses).
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import { formatLabels, matchesSelector, type Labels, type ServerSelector } from '../../controller/placement/labels.js';
import { requestConvergence, requestRemoval } from '../entrance.js';
import { driftPolicyOf } from '../deployment/reconcile-drift.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { mountsOf, volumeServerOf } from '../../controller/model/volume-mount.js';

/** Pure: which servers a selector adds the service to and which deployments it drops. */
export function placementChanges<D extends { id: string; serverId: string }>(selector: ServerSelector, servers: Array<{ id: string; labels: Labels }>, deployments: D[]) {
  const matching = new Set(servers.filter((x) => matchesSelector(selector, x.labels)).map((x) => x.id));
  const placed = new Set(deployments.map((d) => d.serverId));
  return {
    add: [...matching].filter((id) => !placed.has(id)),
    drop: deployments.filter((d) => !matching.has(d.serverId)),
  };
}

export interface PlacementResult {
  created: DeploymentRow[];
  removed: DeploymentRow[];
  /** Plans started: removals, and with driftPolicy heal the new placements' deploys. */
  planIds: string[];
}

/** Makes the deployments of the environment's selector services (or of `serviceIds`) follow their selectors. */
export async function syncPlacements(s: Services, environmentId: string, serviceIds?: string[]): Promise<PlacementResult> {
  const all = await s.services.listWithSelector(environmentId);
  const services = all.filter((x) => x.serverSelector && (!serviceIds || serviceIds.includes(x.id)));
  const out: PlacementResult = { created: [], removed: [], planIds: [] };
  if (!services.length) return out;
  const servers = await s.servers.listByEnvironment(environmentId);
  const nameOf = new Map(servers.map((x) => [x.id, x.name]));
  for (const svc of services) {
    const { created, dropped } = await s.transaction(async (trx) => {
      const [locked] = await s.services.lockForUpdate([svc.id], trx);
      if (!locked?.serverSelector) return { created: [], dropped: [] };
      const have = await s.deployments.listByService(svc.id, trx);
      // a service that mounts a volume matches only the volume's server
      const pinned = await volumeServerOfService(s, locked);
      const change = placementChanges(locked.serverSelector, pinned === undefined ? servers : servers.filter((x) => x.id === pinned), have);
      const made: DeploymentRow[] = [];
      for (const serverId of change.add) {
        const taken = await s.deployments.findByContainerName(serverId, locked.name, trx);
        if (taken) {
          s.logger.warn('a server matches the selector but its container name is taken', { service: locked.name, server: nameOf.get(serverId) });
          continue;
        }
        const row = await s.deployments.create(locked.id, environmentId,
          { serverId, containerName: locked.name, composePath: null, source: JSON.stringify({ kind: 'selector' }) } as never, trx);
        await s.events.publish('deployment.updated', environmentId,
          { action: 'created', deploymentId: row.id, serviceId: locked.id, serverId, containerName: row.containerName, reason: 'serverSelector' }, trx);
        made.push(row);
      }
      for (const d of change.drop) {
        await s.deployments.delete(d.id, trx);
        await s.events.publish('deployment.updated', environmentId,
          { action: 'deleted', deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, reason: 'serverSelector' }, trx);
      }
      return { created: made, dropped: change.drop };
    });
    out.created.push(...created);
    out.removed.push(...dropped);
    const deployed = dropped.filter((d) => d.imageTag || d.containerId);
    if (deployed.length) {
      const plan = await requestRemoval(s, environmentId, deployed,
        `unplace ${svc.name} from ${deployed.map((d) => nameOf.get(d.serverId) ?? d.serverId).join(', ')} (serverSelector ${formatLabels(svc.serverSelector!.matchLabels)})`, 'selector');
      if (plan) out.planIds.push(plan.id);
    }
    if (created.length && svc.desiredRevision != null && (await driftPolicyOf(s, environmentId)) === 'heal') {
      try {
        const plan = await requestConvergence(s, {
          environmentId, trigger: 'drift-heal', name: `place ${svc.name} on ${created.map((d) => nameOf.get(d.serverId)).join(', ')}`,
          items: [{ serviceId: svc.id, deploymentIds: created.map((d) => d.id) }],
        });
        if (plan) out.planIds.push(plan.id);
      } catch (e) {
        s.logger.warn('could not deploy a service on the servers its selector added', { service: svc.name, error: messageOf(e) });
      }
    }
  }
  return out;
}

/** The server a service's managed volumes pin it to; undefined when it mounts none (or they cannot be placed: none then). */
async function volumeServerOfService(s: Services, svc: ServiceRow): Promise<string | null | undefined> {
  const mounts = mountsOf(svc.volumes);
  if (!mounts.length) return undefined;
  const known = new Map((await s.volumes.listByEnvironment(svc.environmentId)).map((v) => [v.name, v]));
  const { serverId, problem } = volumeServerOf(mounts, known);
  return problem ? null : serverId;
}

/** Whether a service is placed by selector (its deployments are not written by hand). */
export const placedBySelector = (svc: Pick<ServiceRow, 'serverSelector'>): boolean => !!svc.serverSelector;
