// Drift of deployments: plan(desired, actual) per deployment, never applied here. The report is
// what the drift routes show; the reconciler turns it into conditions, events and (heal) a plan.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { plan, type Action } from './plan.js';
import { actualOf, desiredOf } from './observe.js';
import type { Condition } from '../conditions.js';

const tagOf = (image: string | null) => (image ? /:([^:/]+)$/.exec(image)?.[1] ?? null : null);

export interface DriftItem {
  deploymentId: string;
  serviceId: string;
  serverId: string;
  containerName: string;
  imageTag: string | null;
  /** The tag the service desires, and the tag the container runs (null: none, or unknown). */
  desiredImageTag: string | null;
  runningImageTag: string | null;
  /** The deployment's Degraded condition when True: a rollout did not reach the desired state. */
  degraded: { reason: string; message: string } | null;
  /** null: the server could not be asked. */
  drifted: boolean | null;
  actions: Action[];
  error?: string;
}

export async function driftOf(s: Services, deployments: DeploymentRow[]): Promise<DriftItem[]> {
  return Promise.all(deployments.map(async (d): Promise<DriftItem> => {
    const bad = ((d.conditions ?? []) as Condition[]).find((c) => c.type === 'Degraded' && c.status === 'True');
    const base = {
      deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, imageTag: d.imageTag,
      desiredImageTag: null as string | null, runningImageTag: null as string | null, degraded: bad ? { reason: bad.reason, message: bad.message } : null,
    };
    try {
      const desired = await desiredOf(s, d);
      base.desiredImageTag = tagOf(desired.image);
      // never deployed: nothing is desired, so there is nothing to ask the server
      if (!desired.image) return { ...base, drifted: false, actions: [] };
      const actual = await actualOf(s, d);
      base.runningImageTag = tagOf(actual.image);
      const actions = plan(desired, actual);
      return { ...base, drifted: actions.length > 0, actions };
    } catch (e) {
      return { ...base, drifted: null, actions: [], error: messageOf(e) };
    }
  }));
}

export function driftReport(items: DriftItem[]) {
  return {
    checkedAt: new Date().toISOString(),
    drifted: items.filter((i) => i.drifted).length,
    unreachable: items.filter((i) => i.drifted === null).length,
    degraded: items.filter((i) => i.degraded).length,
    items,
  };
}
