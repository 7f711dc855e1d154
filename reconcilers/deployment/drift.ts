// Drift of deployments: plan(desired, actual) per deployment, never applied here. The report is
// what the drift routes show; the reconciler turns it into conditions, events and (heal) a plan.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { plan, type Action } from './plan.js';
import { actualOf, desiredOf } from './observe.js';

export interface DriftItem {
  deploymentId: string;
  serviceId: string;
  serverId: string;
  containerName: string;
  imageTag: string | null;
  /** null: the server could not be asked. */
  drifted: boolean | null;
  actions: Action[];
  error?: string;
}

export async function driftOf(s: Services, deployments: DeploymentRow[]): Promise<DriftItem[]> {
  return Promise.all(deployments.map(async (d): Promise<DriftItem> => {
    const base = { deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, imageTag: d.imageTag };
    try {
      const desired = await desiredOf(s, d);
      // never deployed: nothing is desired, so there is nothing to ask the server
      const actions = desired.image ? plan(desired, await actualOf(s, d)) : [];
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
    items,
  };
}
