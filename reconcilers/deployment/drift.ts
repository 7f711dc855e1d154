// Drift of deployments: plan(desired, observed) per deployment, never applied here. The report is
// what the drift routes show; looking also records each deployment's conditions, so status and
// drift always say the same thing.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { lookAt, record } from './observe-and-record.js';
import type { DriftReason, PlanAction } from './plan.js';

export interface DriftAction {
  type: 'redeploy';
  deploymentId: string;
  field: string;
  reason: DriftReason;
  message: string;
}

export interface DriftItem {
  deploymentId: string;
  serviceId: string;
  serverId: string;
  containerName: string;
  /** The tag the deployment should run. */
  imageTag: string | null;
  desiredTag: string | null;
  /** The tag the container runs, as Docker reports it. */
  runningTag: string | null;
  /** null: the server could not be asked. */
  drifted: boolean | null;
  action: PlanAction | null;
  actions: DriftAction[];
  error?: string;
}

export async function driftOf(s: Services, deployments: DeploymentRow[], o: { record?: boolean } = {}): Promise<DriftItem[]> {
  return Promise.all(deployments.map(async (d): Promise<DriftItem> => {
    const look = await lookAt(s, d);
    if (o.record !== false) await record(s, look);
    const base = { deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, imageTag: d.imageTag };
    const ob = look.observation;
    if (ob.kind === 'not-deployed') return { ...base, desiredTag: null, runningTag: null, drifted: false, action: null, actions: [] };
    if (ob.kind === 'unreachable') return { ...base, desiredTag: d.imageTag, runningTag: null, drifted: null, action: null, actions: [], error: ob.message };
    return {
      ...base, desiredTag: ob.desired.imageTag, runningTag: ob.plan.runningTag, drifted: ob.plan.action !== 'none', action: ob.plan.action,
      actions: ob.plan.differences.map((x) => ({ type: 'redeploy' as const, deploymentId: d.id, ...x })),
    };
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
